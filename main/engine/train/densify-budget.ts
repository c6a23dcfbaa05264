/**
 * Budget-driven densification (Taming 3DGS): instead of growing every splat whose gradient passes
 * a fixed threshold, a refine grows the `want` best-scoring splats (kernels/densify.wgsl's
 * budget_score, budget_histogram, budget_threshold), and `want` follows a growth curve that
 * reaches the budget at the last refine. The curve is the concave quadratic
 * n(p) = n0 + (B - n0)(2p - p^2) over the refine window, front-loaded as Taming's: most splats
 * come early, when the images still have most to give. It is computed from the current count
 * alone (each refine adds 2 / (refines left + 1) of what is still missing, the quadratic's
 * discrete form), so a resumed run continues on the same curve without remembering where it began.
 */
/** The refine schedule a budget's curve follows (AdcConfig's fields of it). */
export interface RefineSchedule {
  refineStart: number;
  refineStop: number;
  refineEvery: number;
}

/** The refine steps at or after `step` (ADC refines at step > refineStart, step < refineStop, step % refineEvery == 0). */
export function refineStepsFrom(step: number, config: RefineSchedule): number {
  const { refineStart, refineStop, refineEvery } = config;
  const first = Math.max(step, refineStart + 1);
  const firstRefine = Math.ceil(first / refineEvery) * refineEvery;
  if (firstRefine >= refineStop) return 0;
  return Math.floor((refineStop - 1 - firstRefine) / refineEvery) + 1;
}

/**
 * The budget a refine aims for: `budget` at full resolution, scaled by 1 / `resolutionFactor`
 * while the coarse-to-fine schedule trains on images that many times smaller per side (the
 * detail a splat can fit grows with the image's side, not its area: 1 / factor^2 starved the
 * first level in the schedule's test runs; docs/training.md).
 */
export function effectiveBudget(budget: number, resolutionFactor: number): number {
  return Math.round(budget / Math.max(1, resolutionFactor));
}

/** How many splats this refine grows: 2 / (refines left + 1) of the gap to the budget, within the cap. */
export function budgetGrowth(options: { budget: number; count: number; refinesLeft: number; maxSplats: number }): number {
  const { budget, count, refinesLeft, maxSplats } = options;
  if (refinesLeft <= 0 || count >= budget) return 0;
  const want = Math.round(((budget - count) * 2) / (refinesLeft + 1));
  return Math.max(0, Math.min(want, maxSplats - count));
}
