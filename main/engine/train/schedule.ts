/** Learning rates and schedules (3DGS / gsplat defaults). */
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

/** Position learning rate at `step` (0-based) of `total`: exponential from lr to lr * ratio. */
export function meansLearningRate(rates: LearningRates, sceneScale: number, step: number, total: number): number {
  const t = total > 1 ? Math.min(1, step / total) : 0;
  return rates.means * sceneScale * rates.meansFinalRatio ** t;
}

/** Active SH degree: +1 every 1000 steps up to the model's degree. */
export function activeShDegree(step: number, maxDegree: number, every = 1000): number {
  return Math.min(maxDegree, Math.floor(step / every));
}
