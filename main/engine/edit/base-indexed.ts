/**
 * Selections name base splats (shared/edits/edit-list.ts) while the viewer shows the edited ones
 * (kept, visible, transformed). This lays the edited splats back at their base indices, so the
 * selection kernel and the cleanup index what they select exactly as the edit list does; the
 * splats the list removed or hid become the exclude mask (never selected, nobody's neighbour).
 */
import { emptySplats, shCoefficientCount, type SplatSet } from '../../../shared/scene/splats.js';
import { emptyMask } from '../../../shared/edits/selection-mask.js';

export interface BaseIndexedSplats {
  /** `baseCount` splats: each kept splat at its base index, the others zero. */
  splats: SplatSet;
  /** Base splats not among the kept ones (bitmask words); undefined when every one is kept. */
  exclude?: Uint32Array;
}

/** `kept` (in base order) put back at `keptToBase` among `baseCount` splats. */
export function baseIndexedSplats(kept: SplatSet, keptToBase: Uint32Array, baseCount: number): BaseIndexedSplats {
  if (keptToBase.length !== kept.count) throw new RangeError(`base-indexed splats: ${keptToBase.length} base indices for ${kept.count} kept splats`);
  if (kept.count === baseCount) return { splats: kept };
  const out = emptySplats(baseCount, kept.shDegree);
  const k = shCoefficientCount(kept.shDegree) * 3;
  const exclude = emptyMask(baseCount).fill(0xffffffff);
  if (baseCount & 31) exclude[exclude.length - 1] = (1 << (baseCount & 31)) - 1;
  for (let i = 0; i < kept.count; i++) {
    const b = keptToBase[i];
    if (!(b < baseCount)) throw new RangeError(`base-indexed splats: kept splat ${i} names base splat ${b} of ${baseCount}`);
    out.means.set(kept.means.subarray(3 * i, 3 * i + 3), 3 * b);
    out.logScales.set(kept.logScales.subarray(3 * i, 3 * i + 3), 3 * b);
    out.quats.set(kept.quats.subarray(4 * i, 4 * i + 4), 4 * b);
    out.opacityLogits[b] = kept.opacityLogits[i];
    out.sh.set(kept.sh.subarray(k * i, k * i + k), k * b);
    exclude[b >>> 5] &= ~(1 << (b & 31));
  }
  return { splats: out, exclude };
}
