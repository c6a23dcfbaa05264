/**
 * The Viewer's edit mode: the tool and mode, the current selection (a bitmask over the edit list's
 * base splats, from the engine's `edits.select`), the project's edit list (history, undo, redo),
 * the operations, and the floater-removal preview. Every change goes through the engine's `edits`
 * service (stores/edit-backend.ts); after each operation the scene store reloads the edited splats.
 *
 * Select all / none / invert need no geometry: they are computed here over the shown splats' base
 * indices (what the engine would answer, without the round trip). Big arrays (masks) are markRaw in
 * shallowRefs; `selectedCount` says how many are set.
 */
import { defineStore } from 'pinia';
import { computed, markRaw, ref, shallowRef, watch } from 'vue';
import type { EditOperation, OrientedBox, Similarity } from '../../../shared/edits/edit-list.js';
import type { StudioClient } from '../api/client.js';
import type { ScreenShape, SelectionMode } from '../viewer/edit/screen-shapes.js';
import { indicesFromMask, maskCount, maskFromIndices, maskWords } from '../../../shared/edits/selection-mask.js';
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import { EDIT_COMMANDS, isTextField, textFieldCommand, type EditAction } from '../viewer/edit/edit-keys.js';
import { clientEditsBackend, type CleanPreview, type EditRequest, type EditsBackend, type EditState, type SelectionShape } from './edit-backend.js';
import { useNoticeStore } from './notices.js';
import { useSceneStore } from './scene.js';

export type EditTool = 'rect' | 'lasso' | 'brush' | 'box' | 'sphere' | 'transform';
export const SCREEN_TOOLS: readonly EditTool[] = ['rect', 'lasso', 'brush'];

const count = (n: number) => n.toLocaleString('en-US');
const splatsWord = (n: number) => `${count(n)} splat${n === 1 ? '' : 's'}`;

/** The history panel's line for an operation (its own label when it has one). */
export function operationLabel(op: EditOperation): string {
  if (op.label) return op.label;
  switch (op.op) {
    case 'delete':
      return `Delete ${splatsWord(op.selection.count)}`;
    case 'hide':
      return `Hide ${splatsWord(op.selection.count)}`;
    case 'unhide':
      return op.selection ? `Unhide ${splatsWord(op.selection.count)}` : 'Unhide all';
    case 'crop':
      return 'Crop to box';
    case 'separate':
      return `Separate ${splatsWord(op.selection.count)} to “${op.layer}”`;
    case 'transform':
      return 'Transform the scene';
    case 'clean':
      return `Remove floaters: ${splatsWord(op.selection.count)}`;
  }
}

export const useEditStore = defineStore('edits', () => {
  const scene = useSceneStore();
  let backend: EditsBackend = clientEditsBackend(undefined);

  /** Edit mode on (the toolbar and panels shown, the tools take the mouse). */
  const active = ref(false);
  const tool = ref<EditTool>('rect');
  /** The toolbar's mode; modifier keys override it per gesture (screen-shapes.ts). */
  const mode = ref<SelectionMode>('replace');
  const brushRadiusPx = ref(24);
  /** Selected base splats (bitmask words); empty: nothing selected. */
  const mask = shallowRef<Uint32Array>(markRaw(new Uint32Array(0)));
  const selectedCount = ref(0);
  const state = ref<EditState>();
  /** An operation or selection in flight; the tools wait for it. */
  const busy = ref(false);
  /** The floater-removal panel: strength and the splats it would remove (highlighted while shown). */
  const cleanStrength = ref(0.5);
  const cleanPreview = shallowRef<(CleanPreview & { mask: Uint32Array; count: number }) | undefined>();
  /** How the newest selection went, for tests and the status line: milliseconds from request to mask. */
  const lastSelectMs = ref<number>();

  /** The project being edited: edits apply to a project's saved splats, not to a live training snapshot or the sample scene. */
  const project = computed(() => (scene.source.kind === 'project' && scene.source.step !== undefined ? scene.source.project : undefined));
  const available = computed(() => backend.available);
  const canEdit = computed(() => project.value !== undefined && available.value.edits);
  const shownCount = computed(() => scene.splats?.count ?? 0);
  const baseCount = computed(() => state.value?.baseSplats || shownCount.value);
  const hiddenCount = computed(() => state.value?.hiddenSplats ?? 0);
  /** Applied operations, oldest first, and undone ones, the next redo first. */
  const applied = computed(() => state.value?.list?.operations ?? []);
  const undone = computed(() => [...(state.value?.list?.undone ?? [])].reverse());
  const canUndo = computed(() => canEdit.value && applied.value.length > 0 && !busy.value);
  const canRedo = computed(() => canEdit.value && undone.value.length > 0 && !busy.value);

  function setMask(next: Uint32Array) {
    mask.value = markRaw(next);
    selectedCount.value = maskCount(next);
  }
  function clearSelection() {
    setMask(new Uint32Array(maskWords(baseCount.value)));
  }

  /** Base indices of the shown splats (the identity while nothing was removed). */
  function shownBaseIndices(): ArrayLike<number> {
    const splats = scene.splats;
    if (!splats) return [];
    return splats.baseIndex ?? Uint32Array.from({ length: splats.count }, (_, i) => i);
  }

  /**
   * Follows the application menu: its edit commands arrive as `appCommand` events. With a text
   * field focused the command is the field's (menu shortcuts are registered on macOS, so the field
   * never saw the key); otherwise it edits the splats while edit mode is on.
   */
  function attach(client: StudioClient) {
    backend = clientEditsBackend(client);
    client.on('appCommand', ({ command }) => {
      const action = EDIT_COMMANDS[command];
      if (!action) return;
      if (typeof document !== 'undefined' && isTextField(document.activeElement)) {
        const fieldCommand = textFieldCommand(command);
        if (fieldCommand) document.execCommand(fieldCommand);
        return;
      }
      if (active.value) run(action);
    });
  }

  /** Runs a shortcut's or menu command's action ('cancel' is the overlay's: it drops the shape being drawn). */
  function run(action: EditAction): void {
    switch (action) {
      case 'undo':
        return void undo();
      case 'redo':
        return void redo();
      case 'delete':
        return void deleteSelected();
      case 'hide':
        return void hideSelected();
      case 'unhide-all':
        return void unhideAll();
      case 'select-all':
        return selectAll();
      case 'select-none':
        return clearSelection();
      case 'invert':
        return invert();
      case 'tool-rect':
      case 'tool-lasso':
      case 'tool-brush':
      case 'tool-box':
      case 'tool-sphere':
        tool.value = action.slice('tool-'.length) as EditTool;
        return;
      case 'cancel':
        return;
    }
  }
  /** Tests hand in a backend of their own. */
  function useBackend(b: EditsBackend) {
    backend = b;
  }

  /** Reads the project's edit list (on entering edit mode and when the project changes). */
  async function refresh(): Promise<void> {
    const path = project.value;
    if (!path || !available.value.edits) {
      state.value = undefined;
      return;
    }
    await guarded(async () => {
      state.value = await backend.get(path);
    });
  }

  async function guarded<T>(work: () => Promise<T>): Promise<T | undefined> {
    busy.value = true;
    try {
      return await work();
    } catch (error) {
      useNoticeStore().report(error, 'viewer');
      return undefined;
    } finally {
      busy.value = false;
    }
  }

  /** Combines a shape with the selection in `gestureMode` (the toolbar's mode unless modifiers said otherwise). */
  async function select(shape: SelectionShape, gestureMode: SelectionMode = mode.value): Promise<void> {
    const path = project.value;
    if (!path || busy.value) return;
    if (!available.value.select) {
      useNoticeStore().report({ code: 'unavailable', message: 'Selecting needs the engine’s edits.select service, which this engine does not have yet.' }, 'viewer');
      return;
    }
    const current = mask.value.length === maskWords(baseCount.value) ? mask.value : new Uint32Array(maskWords(baseCount.value));
    const started = performance.now();
    await guarded(async () => {
      const reply = await backend.select(path, shape, gestureMode, current);
      setMask(reply.mask);
      lastSelectMs.value = performance.now() - started;
    });
  }

  function selectScreen(shape: ScreenShape, camera: PinholeCamera, gestureMode?: SelectionMode) {
    return select({ kind: 'screen', shape, camera }, gestureMode);
  }

  function selectAll() {
    setMask(maskFromIndices(shownBaseIndices(), baseCount.value));
  }
  function invert() {
    const shown = maskFromIndices(shownBaseIndices(), baseCount.value);
    const current = mask.value;
    for (let w = 0; w < shown.length; w++) shown[w] &= ~(current[w] ?? 0);
    setMask(shown);
  }

  /** Applies an operation, then shows the edited splats; the selection is spent (its splats moved or went). */
  async function apply(operation: EditRequest, selection?: Uint32Array): Promise<boolean> {
    const path = project.value;
    if (!path || busy.value) return false;
    const done = await guarded(async () => {
      state.value = await backend.apply(path, operation, selection);
      await scene.reloadSplats();
      return true;
    });
    if (done) {
      clearSelection();
      cleanPreview.value = undefined;
    }
    return done ?? false;
  }

  const selectedIndices = () => indicesFromMask(mask.value);
  const withSelection = (make: (n: number) => EditRequest) => {
    if (selectedCount.value === 0) return Promise.resolve(false);
    const indices = selectedIndices();
    return apply(make(indices.length), indices);
  };

  const deleteSelected = () => withSelection((n) => ({ op: 'delete', label: `Delete ${splatsWord(n)}` }));
  const hideSelected = () => withSelection((n) => ({ op: 'hide', label: `Hide ${splatsWord(n)}` }));
  const unhideAll = () => apply({ op: 'unhide', label: 'Unhide all' });
  function separateSelected(layer = `Layer ${applied.value.filter((o) => o.op === 'separate').length + 2}`) {
    return withSelection((n) => ({ op: 'separate', layer, label: `Separate ${splatsWord(n)} to “${layer}”` }));
  }
  const cropTo = (box: OrientedBox) => apply({ op: 'crop', box, label: 'Crop to box' });
  const transformScene = (transform: Similarity, label = 'Transform the scene') => apply({ op: 'transform', transform, label });

  async function history(action: 'undo' | 'redo' | 'clear'): Promise<void> {
    const path = project.value;
    if (!path || busy.value) return;
    const done = await guarded(async () => {
      state.value = await backend[action](path);
      await scene.reloadSplats();
      return true;
    });
    if (done) {
      clearSelection();
      cleanPreview.value = undefined;
    }
  }
  const undo = () => history('undo');
  const redo = () => history('redo');
  const clearEdits = () => history('clear');

  /** The floater-removal parameters the panel sends (the registry's `edit.*` keys). */
  const cleanParams = () => ({ 'edit.cleanStrength': cleanStrength.value });

  /** Asks what the cleanup would remove at the current strength and highlights it. */
  async function previewClean(): Promise<void> {
    const path = project.value;
    if (!path || !available.value.clean) return;
    const strength = cleanStrength.value;
    await guarded(async () => {
      const preview = await backend.cleanPreview(path, cleanParams());
      if (strength !== cleanStrength.value) return; // moved on meanwhile; the newer preview follows
      cleanPreview.value = markRaw({ ...preview, mask: maskFromIndices(preview.selection, baseCount.value), count: preview.selection.length });
    });
  }
  async function applyClean(): Promise<boolean> {
    const preview = cleanPreview.value;
    if (!preview || preview.count === 0) return false;
    return apply({ op: 'clean', params: cleanParams(), label: `Remove floaters (strength ${cleanStrength.value.toFixed(2)}): ${splatsWord(preview.count)}` }, preview.selection);
  }
  function dismissClean() {
    cleanPreview.value = undefined;
  }

  watch(project, () => {
    clearSelection();
    cleanPreview.value = undefined;
    if (active.value) void refresh();
  });

  return {
    active, tool, mode, brushRadiusPx, mask, selectedCount, state, busy, cleanStrength, cleanPreview, lastSelectMs,
    project, available, canEdit, shownCount, baseCount, hiddenCount, applied, undone, canUndo, canRedo,
    attach, useBackend, run, refresh, select, selectScreen, selectAll, clearSelection, invert,
    deleteSelected, hideSelected, unhideAll, separateSelected, cropTo, transformScene, undo, redo, clearEdits,
    previewClean, applyClean, dismissClean, selectedIndices,
  };
});
