/**
 * Applies an edit list (shared/edits/edit-list.ts) to its base splats, on the CPU: every
 * operation is one O(n) pass over flags indexed by BASE splat (removed, hidden, layer), so a
 * selection always names base indices, whatever ran before it, and nothing is copied until the
 * end. Transforms compose into one similarity, applied once to what is kept; a crop tests the
 * centres where the transforms before it have put them.
 */
import type { EditList, EditOperation, OrientedBox, SelectionRef, Similarity } from '../../../shared/edits/edit-list.js';
import { ArgonautError } from '../../../shared/rpc/errors.js';
import { emptySplats, shCoefficientCount, type SplatSet } from '../../../shared/scene/splats.js';
import { compose, editQuat, IDENTITY, isIdentity, similarity64, toSimilarity, transformSplatsInPlace, type Similarity64 } from './similarity.js';
import { wxyzToMatrix } from '../../../shared/math/quaternion.js';

/** The first layer's name: every splat is in it until a `separate` moves it. */
export const MAIN_LAYER = 'main';

export interface EditedSplats {
  /** The kept, visible splats (not deleted, cropped away or hidden), in base order, transformed (see ApplyEditsOptions). */
  splats: SplatSet;
  /** Per kept splat: its index into layerNames. */
  layers: Uint16Array;
  /** MAIN_LAYER first, then each `separate`'s layer in the order they first appear. */
  layerNames: string[];
  /** Splats kept but hidden (drawn and exported by nothing until unhidden). */
  hidden: number;
  /** Per kept splat: its index in the base. */
  keptToBase: Uint32Array<ArrayBuffer>;
  /** Splats in the base. */
  before: number;
  /** Every transform of the list composed (x' = s R x + t; the identity when none). */
  transform: Similarity;
}

export interface ApplyEditsOptions {
  /** Keep hidden splats in `splats` (training starts from them: hiding is a view, not a deletion). */
  keepHidden?: boolean;
  /** Leave the kept splats where training put them (the dataset's cameras are in that frame); `transform` still says what the list does. */
  untransformed?: boolean;
}

/** Reads an operation's selection: sorted, distinct base indices (selection-file.ts checks files). */
export type SelectionReader = (ref: SelectionRef, operation: EditOperation) => Uint32Array | Promise<Uint32Array>;

/** Base-indexed flags while the list is applied. */
interface EditState {
  removed: Uint8Array;
  hidden: Uint8Array;
  layer: Uint16Array;
  layerNames: string[];
  /** Every transform so far, composed. */
  transform: Similarity64;
}

export async function applyEdits(splats: SplatSet, list: EditList, readSelection: SelectionReader, options: ApplyEditsOptions = {}): Promise<EditedSplats> {
  const n = splats.count;
  if (list.base.splats !== n) throw new ArgonautError('invalid_argument', `the edit list applies to ${list.base.splats} splats (${list.base.run} step ${list.base.step}) but ${n} were given`);
  const state: EditState = { removed: new Uint8Array(n), hidden: new Uint8Array(n), layer: new Uint16Array(n), layerNames: [MAIN_LAYER], transform: IDENTITY };
  for (const operation of list.operations) {
    const selection = 'selection' in operation && operation.selection ? await readSelection(operation.selection, operation) : undefined;
    if (selection && selection.length && selection[selection.length - 1] >= n) {
      throw new ArgonautError('invalid_argument', `edit ${operation.id} (${operation.op}): its selection names splat ${selection[selection.length - 1]}, beyond the base's ${n}`);
    }
    applyOperation(state, splats, operation, selection);
  }
  return collect(splats, state, options);
}

function applyOperation(state: EditState, splats: SplatSet, operation: EditOperation, selection: Uint32Array | undefined): void {
  switch (operation.op) {
    case 'delete':
    case 'clean':
      for (const i of selection!) state.removed[i] = 1;
      return;
    case 'hide':
      for (const i of selection!) state.hidden[i] = 1;
      return;
    case 'unhide':
      if (selection) for (const i of selection) state.hidden[i] = 0;
      else state.hidden.fill(0);
      return;
    case 'crop':
      cropOutside(state, splats, operation.box);
      return;
    case 'separate': {
      let layer = state.layerNames.indexOf(operation.layer);
      if (layer < 0) layer = state.layerNames.push(operation.layer) - 1;
      for (const i of selection!) if (!state.removed[i]) state.layer[i] = layer;
      return;
    }
    case 'transform':
      state.transform = compose(similarity64(operation.transform), state.transform);
      return;
    default: {
      const unknown: never = operation;
      throw new ArgonautError('invalid_argument', `unknown edit operation ${JSON.stringify((unknown as { op: unknown }).op)}`);
    }
  }
}

/** Removes every splat whose centre (after the transforms so far) lies outside the box. */
function cropOutside(state: EditState, splats: SplatSet, box: OrientedBox): void {
  const axes = wxyzToMatrix(editQuat(box.rotation));
  const [cx, cy, cz] = box.centre;
  const [hx, hy, hz] = box.halfSize;
  const m = splats.means;
  const [r0, r1, r2, r3, r4, r5, r6, r7, r8] = state.transform.matrix;
  const s = state.transform.scale;
  const [tx, ty, tz] = state.transform.translation;
  for (let i = 0; i < splats.count; i++) {
    if (state.removed[i]) continue;
    // the centre where the transforms so far put it (applyToPoint, written out)
    const px = m[3 * i], py = m[3 * i + 1], pz = m[3 * i + 2];
    const dx = s * (r0 * px + r1 * py + r2 * pz) + tx - cx;
    const dy = s * (r3 * px + r4 * py + r5 * pz) + ty - cy;
    const dz = s * (r6 * px + r7 * py + r8 * pz) + tz - cz;
    // The box's own coordinates: its rotation's transpose applied to the offset.
    const u = axes[0] * dx + axes[3] * dy + axes[6] * dz;
    const v = axes[1] * dx + axes[4] * dy + axes[7] * dz;
    const w = axes[2] * dx + axes[5] * dy + axes[8] * dz;
    if (!(Math.abs(u) <= hx && Math.abs(v) <= hy && Math.abs(w) <= hz)) state.removed[i] = 1;
  }
}

function collect(splats: SplatSet, state: EditState, options: ApplyEditsOptions): EditedSplats {
  const n = splats.count;
  let kept = 0;
  let hidden = 0;
  for (let i = 0; i < n; i++) {
    if (state.removed[i]) continue;
    if (state.hidden[i]) hidden++;
    if (!state.hidden[i] || options.keepHidden) kept++;
  }
  const out = emptySplats(kept, splats.shDegree);
  const K = shCoefficientCount(splats.shDegree);
  const layers = new Uint16Array(kept);
  const keptToBase = new Uint32Array(kept);
  let j = 0;
  for (let i = 0; i < n; i++) {
    if (state.removed[i] || (state.hidden[i] && !options.keepHidden)) continue;
    for (let c = 0; c < 3; c++) {
      out.means[3 * j + c] = splats.means[3 * i + c];
      out.logScales[3 * j + c] = splats.logScales[3 * i + c];
    }
    for (let c = 0; c < 4; c++) out.quats[4 * j + c] = splats.quats[4 * i + c];
    out.opacityLogits[j] = splats.opacityLogits[i];
    for (let e = 0; e < K * 3; e++) out.sh[j * K * 3 + e] = splats.sh[i * K * 3 + e];
    layers[j] = state.layer[i];
    keptToBase[j] = i;
    j++;
  }
  if (!isIdentity(state.transform) && !options.untransformed) transformSplatsInPlace(out, state.transform);
  return { splats: out, layers, layerNames: state.layerNames, hidden, keptToBase, before: n, transform: toSimilarity(state.transform) };
}
