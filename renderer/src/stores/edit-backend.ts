/**
 * What the Viewer's edit mode asks of the engine, as one interface over the typed client's `edits`
 * service (edit-core: get, apply, undo, redo, clear; edit-select: select, cleanPreview). The edit
 * store calls only this; `clientEditsBackend` is the one place that knows the contract's shapes.
 *
 * Selections cross as the engine keeps them: `edits.select` works on u32 bitmask words over the
 * edit list's BASE splats (viewer/edit/selection-mask.ts), `edits.apply` takes sorted base indices.
 */
import type { EditList, EditOperation, OrientedBox } from '../../../shared/edits/edit-list.js';
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import type { StudioClient } from '../api/client.js';
import { ArgonautError } from '../../../shared/rpc/errors.js';
import type { SelectionShape as EngineSelectionShape } from '../../../shared/contract/edit-select.js';
import { declares } from '../api/services.js';
import type { ScreenShape, SelectionMode } from '../viewer/edit/screen-shapes.js';

/** Operations as the store asks for them: the engine gives each its id and time, and stores the selection. */
type WithoutStored<T> = T extends unknown ? Omit<T, 'id' | 'at' | 'selection'> : never;
export type EditRequest = WithoutStored<EditOperation>;

/** What a selection shape is: drawn on screen (through the view's camera), a 3D helper, or an attribute range. */
export type SelectionShape =
  | { kind: 'screen'; shape: ScreenShape; camera: PinholeCamera }
  | { kind: 'box'; box: OrientedBox }
  | { kind: 'ellipsoid'; box: OrientedBox }
  /** Opacity in [0, 1]. */
  | { kind: 'opacity'; min: number; max: number }
  /** Largest axis scale (a standard deviation), world units. */
  | { kind: 'size'; min: number; max: number }
  /** Base colour within `distance` (RGB in 0..1) of `rgb`. */
  | { kind: 'colour'; rgb: [number, number, number]; distance: number };

/** A project's edits as the engine reports them. */
export interface EditState {
  list: EditList | undefined;
  /** Splats of the base (the trained splats the list applies to). */
  baseSplats: number;
  /** Splats left after the list: shown (not hidden), and hidden. */
  visibleSplats: number;
  hiddenSplats: number;
}

export interface CleanPreview {
  /** Sorted base indices the cleanup would remove. */
  selection: Uint32Array;
  /** How many it removes for each reason (a splat can have several). */
  reasons: Record<string, number>;
}

export interface EditsBackend {
  /** False until the engine's contract declares the methods (the UI says what is missing). */
  readonly available: { edits: boolean; select: boolean; clean: boolean };
  get(project: string): Promise<EditState>;
  apply(project: string, operation: EditRequest, selection?: Uint32Array): Promise<EditState>;
  undo(project: string): Promise<EditState>;
  redo(project: string): Promise<EditState>;
  clear(project: string): Promise<EditState>;
  select(project: string, shape: SelectionShape, mode: SelectionMode, mask: Uint32Array): Promise<{ mask: Uint32Array; count: number }>;
  cleanPreview(project: string, params: Record<string, number | string | boolean>): Promise<CleanPreview>;
}

/** The engine's reply to get/apply/undo/redo/clear, read without trusting its exact shape more than needed. */
export function readEditState(reply: unknown): EditState {
  const r = (reply ?? {}) as { list?: EditList; current?: EditList; summary?: { baseSplats?: number; before?: number; after?: number; visible?: number; hidden?: number } };
  const list = r.list ?? r.current;
  const s = r.summary ?? {};
  const baseSplats = s.baseSplats ?? s.before ?? list?.base.splats ?? 0;
  const hiddenSplats = s.hidden ?? 0;
  return { list, baseSplats, visibleSplats: s.visible ?? s.after ?? baseSplats, hiddenSplats };
}

/** A shape as the engine's `edits.select` takes it (shared/contract/edit-select.ts). */
export function engineShape(shape: SelectionShape): EngineSelectionShape {
  switch (shape.kind) {
    case 'screen': {
      const s = shape.shape;
      if (s.kind === 'rect') return { kind: 'rect', min: [s.x0, s.y0], max: [s.x1, s.y1] };
      if (s.kind === 'lasso') return { kind: 'lasso', points: s.points.map((p) => [p[0], p[1]]) };
      return { kind: 'brush', circles: s.points.map((p) => ({ centre: [p[0], p[1]], radius: s.radiusPx })) };
    }
    case 'box':
      return { kind: 'box', box: shape.box };
    case 'ellipsoid':
      return { kind: 'ellipsoid', ellipsoid: shape.box };
    default:
      return shape;
  }
}

export function clientEditsBackend(client: StudioClient | undefined): EditsBackend {
  const api = () => {
    if (!client) throw new ArgonautError('unavailable', 'not connected to the engine');
    return client.api;
  };
  return {
    get available() {
      return { edits: declares('edits', 'apply'), select: declares('edits', 'select'), clean: declares('edits', 'cleanPreview') };
    },
    get: async (project) => readEditState(await api().edits.get({ project })),
    apply: async (project, operation, selection) => readEditState(await api().edits.apply({ project, operation, ...(selection ? { selection: selection as Uint32Array<ArrayBuffer> } : {}) })),
    undo: async (project) => readEditState(await api().edits.undo({ project })),
    redo: async (project) => readEditState(await api().edits.redo({ project })),
    clear: async (project) => readEditState(await api().edits.clear({ project })),
    select: async (project, shape, mode, mask) => {
      const reply = await api().edits.select({
        project,
        mode,
        shape: engineShape(shape),
        ...(shape.kind === 'screen' ? { camera: { ...shape.camera, worldToCamera: [...shape.camera.worldToCamera] } } : {}),
        current: mask as Uint32Array<ArrayBuffer>,
      });
      return { mask: reply.mask, count: reply.count };
    },
    cleanPreview: async (project, params) => {
      const reply = await api().edits.cleanPreview({ project, params });
      return { selection: reply.selection, reasons: reply.reasons };
    },
  };
}
