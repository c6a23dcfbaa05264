/**
 * Float64 reference of budget-driven densification's selection (kernels/densify.wgsl
 * budget_score, budget_key, budget_histogram, budget_threshold): the score of each splat, its
 * histogram bin, and the threshold key from which about `want` splats grow.
 */
export const BUDGET_HISTOGRAM_BINS = 4096;
const KEY_SHIFT = 19;
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** Mean gradient x (0.25 + opacity) x hits / (hits + 4); 0 for a splat no view saw. */
export function budgetScore(gradAcc: number, hits: number, opacityLogit: number): number {
  if (hits === 0) return 0;
  const opacity = 1 / (1 + Math.exp(-opacityLogit));
  return (gradAcc / hits) * (0.25 + opacity) * (hits / (hits + 4));
}

/** The score's bin: the top 12 bits of its float32 (exponent and 4 mantissa bits); 0 for 0. */
export function budgetKey(score: number): number {
  f32[0] = Math.max(score, 0);
  return u32[0] >>> KEY_SHIFT;
}

/** How close `score` is to its bin's edges, relative: where float32 arithmetic may pick the neighbour bin. */
export function keyEdgeDistance(score: number): number {
  const key = budgetKey(score);
  f32[0] = 0;
  u32[0] = key << KEY_SHIFT;
  const low = f32[0];
  u32[0] = (key + 1) << KEY_SHIFT;
  const high = f32[0];
  return Math.min(score - low, high - score) / score;
}

export function budgetHistogram(keys: ArrayLike<number>): Uint32Array {
  const histogram = new Uint32Array(BUDGET_HISTOGRAM_BINS);
  for (let i = 0; i < keys.length; i++) if (keys[i] > 0) histogram[keys[i]]++;
  return histogram;
}

/**
 * The smallest key k whose bins >= k hold about `want` splats: bins are taken from the top while
 * the total stays under `want`; the bin that crosses it is taken when that lands nearer. At least
 * 1 (a score of 0 never grows); 0xffffffff when `want` is 0.
 */
export function budgetThreshold(histogram: ArrayLike<number>, want: number): number {
  if (want <= 0) return 0xffffffff;
  let above = 0;
  for (let bin = BUDGET_HISTOGRAM_BINS - 1; bin >= 1; bin--) {
    const c = histogram[bin];
    if (above + c >= want) return Math.max(1, above + c - want < want - above ? bin : bin + 1);
    above += c;
  }
  return 1;
}
