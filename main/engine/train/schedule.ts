/**
 * Learning rates and their schedules: the one module that owns the shapes every schedule of a run
 * is built from (the splats' means here, the colour models in appearance.ts, camera refinement in
 * camera-refine.ts, test-time pose alignment in pose-alignment.ts). A constant rate is a number of
 * `LearningRates` used as it is; a scheduled one is its peak times the factors below.
 */
export interface LearningRates {
  /** Positions: lr x scene scale, decaying exponentially to meansFinalRatio of it over the run. */
  means: number;
  meansFinalRatio: number;
  logScales: number;
  quats: number;
  opacityLogits: number;
  shDc: number;
  shRest: number;
}

export const DEFAULT_LEARNING_RATES: LearningRates = {
  means: 1.6e-4,
  meansFinalRatio: 0.01,
  logScales: 5e-3,
  quats: 1e-3,
  opacityLogits: 5e-2,
  shDc: 2.5e-3,
  shRest: 2.5e-3 / 20,
};

/**
 * Exponential decay from 1 at step 0 to `finalRatio` at step `steps` (and after): 3DGS's
 * `expon_lr_func` from lr0 to lr_final = lr0 x finalRatio, log-linear in between.
 */
export function exponentialDecay(step: number, steps: number, finalRatio: number): number {
  return finalRatio ** (steps > 0 ? Math.min(1, step / steps) : 0);
}

/** Linear warm-up from `from` at step 0 to 1 at step `steps` (and after); 1 throughout when `steps` is 0. */
export function linearWarmup(step: number, steps: number, from = 0): number {
  return steps > 0 ? from + (1 - from) * Math.min(1, step / steps) : 1;
}

/** A schedule frozen before step `start`: 0 there, then `factor` of the steps since `start` (0 at `start`). */
export function delayed(step: number, start: number, factor: (sinceStart: number) => number): number {
  return step < start ? 0 : factor(step - start);
}

/** Position learning rate at `step` (0-based) of `total`: exponential from lr to lr * ratio. */
export function meansLearningRate(rates: LearningRates, sceneScale: number, step: number, total: number): number {
  return rates.means * sceneScale * exponentialDecay(step, total, rates.meansFinalRatio);
}

/** Active SH degree: +1 every `every` steps up to the model's degree (0: the model's degree from the start). */
export function activeShDegree(step: number, maxDegree: number, every = 1000): number {
  if (every <= 0) return maxDegree;
  return Math.min(maxDegree, Math.floor(step / every));
}
