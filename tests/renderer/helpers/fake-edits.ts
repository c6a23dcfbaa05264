/**
 * A CPU stand-in for the engine's `edits` service, for the edit store's tests: an edit list over
 * `base` splats with delete / hide / unhide / clean, rectangle selection through the given pinhole
 * camera (centres only), and a cleanup that picks the faintest splats. It answers the
 * `EditsBackend` interface and serves `projects.splats` with the kept splats and their base indices.
 */
import type { EditList, EditOperation } from '../../../shared/edits/edit-list.js';
import { projectToPixel } from '../../../renderer/src/viewer/opencv-frame.js';
import type { EditRequest, EditsBackend, EditState, SelectionShape } from '../../../renderer/src/stores/edit-backend.js';
import type { SelectionMode } from '../../../renderer/src/viewer/edit/screen-shapes.js';
import { maskCount, maskFromIndices, maskHas, maskWords } from '../../../shared/edits/selection-mask.js';

export class FakeEdits implements EditsBackend {
  readonly available = { edits: true, select: true, clean: true };
  list: EditList;
  private selections = new Map<string, Uint32Array>();
  private nextId = 1;
  readonly calls: string[] = [];

  constructor(readonly base: ArrayBuffer, readonly count: number) {
    this.list = { base: { run: 'run-001', step: 100, splats: count }, operations: [], undone: [] };
  }

  /** Base index -> state after the list: 'kept', 'hidden' or 'gone'. */
  private states(): ('kept' | 'hidden' | 'gone')[] {
    const out: ('kept' | 'hidden' | 'gone')[] = new Array(this.count).fill('kept');
    for (const op of this.list.operations) {
      const sel = this.selections.get(op.id);
      if (op.op === 'delete' || op.op === 'clean') sel!.forEach((i) => (out[i] = 'gone'));
      else if (op.op === 'hide') sel!.forEach((i) => out[i] === 'kept' && (out[i] = 'hidden'));
      else if (op.op === 'unhide') out.forEach((s, i) => s === 'hidden' && (out[i] = 'kept'));
    }
    return out;
  }

  state(): EditState {
    const s = this.states();
    return { list: structuredClone(this.list), baseSplats: this.count, visibleSplats: s.filter((x) => x === 'kept').length, hiddenSplats: s.filter((x) => x === 'hidden').length };
  }

  /** What `projects.splats` returns: kept splats in base order, with their base indices. */
  splats(): { count: number; run: string; step: number; data: ArrayBuffer; keptToBase: Uint32Array<ArrayBuffer> } {
    const s = this.states();
    const kept = s.flatMap((x, i) => (x === 'kept' ? [i] : []));
    const src = new Uint8Array(this.base);
    const data = new Uint8Array(kept.length * 32);
    kept.forEach((b, k) => data.set(src.subarray(b * 32, b * 32 + 32), k * 32));
    return { count: kept.length, run: 'run-001', step: 100, data: data.buffer, keptToBase: Uint32Array.from(kept) };
  }

  async get(): Promise<EditState> {
    this.calls.push('get');
    return this.state();
  }

  async apply(_project: string, request: EditRequest, selection?: Uint32Array): Promise<EditState> {
    this.calls.push(`apply ${request.op} ${selection?.length ?? '-'}`);
    const id = `op-${this.nextId++}`;
    const operation = { ...request, id, at: new Date().toISOString(), ...(selection ? { selection: { file: `edits/${id}.sel`, count: selection.length } } : {}) } as EditOperation;
    if (selection) this.selections.set(id, selection);
    this.list = { ...this.list, operations: [...this.list.operations, operation], undone: [] };
    return this.state();
  }

  async undo(): Promise<EditState> {
    this.calls.push('undo');
    const last = this.list.operations.at(-1);
    if (last) this.list = { ...this.list, operations: this.list.operations.slice(0, -1), undone: [...this.list.undone, last] };
    return this.state();
  }

  async redo(): Promise<EditState> {
    this.calls.push('redo');
    const next = this.list.undone.at(-1);
    if (next) this.list = { ...this.list, operations: [...this.list.operations, next], undone: this.list.undone.slice(0, -1) };
    return this.state();
  }

  async clear(): Promise<EditState> {
    this.calls.push('clear');
    this.list = { ...this.list, operations: [], undone: [] };
    return this.state();
  }

  async select(_project: string, shape: SelectionShape, mode: SelectionMode, mask: Uint32Array): Promise<{ mask: Uint32Array; count: number }> {
    this.calls.push(`select ${shape.kind} ${mode}`);
    if (shape.kind !== 'screen' || shape.shape.kind !== 'rect') throw new Error('the fake selects rectangles only');
    const { x0, y0, x1, y1 } = shape.shape;
    const floats = new Float32Array(this.base);
    const s = this.states();
    const inside: number[] = [];
    for (let i = 0; i < this.count; i++) {
      if (s[i] !== 'kept') continue;
      const p = projectToPixel(shape.camera, [floats[i * 8], floats[i * 8 + 1], floats[i * 8 + 2]]);
      if (p && p[0] >= x0 && p[0] <= x1 && p[1] >= y0 && p[1] <= y1) inside.push(i);
    }
    const hit = maskFromIndices(inside, this.count);
    const out = new Uint32Array(maskWords(this.count));
    for (let w = 0; w < out.length; w++) {
      const a = mask[w] ?? 0;
      const b = hit[w];
      out[w] = mode === 'replace' ? b : mode === 'add' ? a | b : mode === 'subtract' ? a & ~b : a & b;
    }
    return { mask: out, count: maskCount(out) };
  }

  async cleanPreview(_project: string, params: Record<string, number | string | boolean>) {
    this.calls.push(`cleanPreview ${params['edit.cleanStrength']}`);
    const strength = Number(params['edit.cleanStrength']);
    const bytes = new Uint8Array(this.base);
    const s = this.states();
    const selection: number[] = [];
    for (let i = 0; i < this.count; i++) if (s[i] === 'kept' && bytes[i * 32 + 27] < strength * 255) selection.push(i);
    return { selection: Uint32Array.from(selection), reasons: { opacity: selection.length, size: 0, isolated: 0, unseen: 0 } };
  }

  isKept(i: number, mask?: Uint32Array): boolean {
    return this.states()[i] === 'kept' && (!mask || maskHas(mask, i));
  }
}
