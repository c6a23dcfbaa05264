/**
 * LO-RANSAC with MSAC scoring (Torr and Zisserman 2000: each correspondence costs min(e^2, t^2), so
 * among models with equal inlier counts the tighter one wins) and local optimisation (Chum, Matas
 * and Kittler 2003: each new best minimal model is refitted on its inliers, repeatedly while the
 * score improves). The iteration count adapts to the best inlier ratio w: the draws needed to see
 * one all-inlier sample of size s with the given confidence, log(1 - confidence) / log(1 - w^s),
 * capped by maxIterations and by the count that an inlier ratio of minInlierRatio would need
 * (COLMAP's RANSAC caps its trials the same way: a model that needs more draws than a 25% inlier
 * ratio does is not worth them). Deterministic for a seed (the project's mulberry32).
 */
import { Random } from '../../../../shared/random.js';

export interface ModelEstimator<Model> {
  /** Correspondences of a minimal sample. */
  sampleSize: number;
  /** Models fitted to the chosen correspondences (minimal: all solutions; more: least squares). */
  fit(points1: Float64Array, points2: Float64Array, indices: ArrayLike<number>): Model[];
  /** out[k]: the squared error of correspondence k under the model, for k in [first, end) (default: all). */
  squaredErrors(model: Model, points1: Float64Array, points2: Float64Array, out: Float64Array, first?: number, end?: number): void;
  /** Optional final polish on the best model's inliers (kept only where it lowers the MSAC cost). */
  refine?(model: Model, points1: Float64Array, points2: Float64Array, inliers: Uint32Array): Model[];
}

export interface RansacOptions {
  /** Inlier threshold on the error (same units as the estimator's, not squared). */
  maxError: number;
  confidence: number;
  maxIterations: number;
  minIterations: number;
  /** The lowest inlier ratio worth drawing for: it caps the iterations (see above). */
  minInlierRatio: number;
  /** Refits on the inliers after each new best model; 0 turns local optimisation off. */
  localOptimisationSteps: number;
  seed: number;
}

export interface RansacReport<Model> {
  model: Model;
  /** 1 where the correspondence's error is within maxError. */
  inlierMask: Uint8Array;
  inlierCount: number;
  /** MSAC cost: the sum of min(e^2, maxError^2), lower is better. */
  cost: number;
  iterations: number;
}

/** The best model, or undefined when there are too few correspondences or no sample gave a model. */
export function ransac<Model>(
  estimator: ModelEstimator<Model>,
  points1: Float64Array,
  points2: Float64Array,
  options: RansacOptions,
): RansacReport<Model> | undefined {
  const n = points1.length / 2;
  const s = estimator.sampleSize;
  if (n < s) return undefined;
  const threshold2 = options.maxError * options.maxError;
  const random = new Random(options.seed);
  const errors = new Float64Array(n);
  const sample = new Uint32Array(s);
  let best: { model: Model; cost: number; inlierCount: number } | undefined;
  const maxIterations = Math.min(options.maxIterations, iterationsForConfidence(options.minInlierRatio, s, options.confidence));
  let requiredIterations = maxIterations;
  let iteration = 0;

  // The MSAC cost in chunks, stopping once it reaches `bound`: every term is >= 0, so the rest can
  // only add to it, and a model that cannot beat the best is rejected without the rest of its
  // errors (most random samples' models are). Below the bound the sum is the same, in the same order.
  const evaluate = (model: Model, bound: number): { cost: number; inlierCount: number } | undefined => {
    let cost = 0;
    let inlierCount = 0;
    for (let first = 0; first < n; first += SCORE_CHUNK) {
      const end = Math.min(n, first + SCORE_CHUNK);
      estimator.squaredErrors(model, points1, points2, errors, first, end);
      for (let k = first; k < end; k++) {
        const e = errors[k];
        if (e <= threshold2) {
          cost += e;
          inlierCount++;
        } else cost += threshold2;
      }
      if (cost >= bound) return undefined;
    }
    return { cost, inlierCount };
  };
  const consider = (model: Model): boolean => {
    const scored = evaluate(model, best ? best.cost : Infinity);
    if (!scored) return false;
    best = { model, ...scored };
    return true;
  };

  while (iteration < Math.max(options.minIterations, Math.min(requiredIterations, maxIterations))) {
    iteration++;
    drawSample(random, n, sample);
    let improved = false;
    for (const model of estimator.fit(points1, points2, sample)) improved = consider(model) || improved;
    if (!improved || !best) continue;
    for (let step = 0; step < options.localOptimisationSteps; step++) {
      const inliers = inlierIndices(estimator, best.model, points1, points2, errors, threshold2);
      if (inliers.length <= s) break;
      let refined = false;
      for (const model of estimator.fit(points1, points2, inliers)) refined = consider(model) || refined;
      if (!refined) break;
    }
    requiredIterations = iterationsForConfidence(best.inlierCount / n, s, options.confidence);
  }
  if (!best) return undefined;
  // the polish repeated on the inliers of its own result while it lowers the cost: a refit can
  // trade a point just off the model for one just on it, and the new set has its own minimum
  for (let round = 0; estimator.refine && round < REFINE_ROUNDS; round++) {
    const inliers = inlierIndices(estimator, best.model, points1, points2, errors, threshold2);
    if (inliers.length <= s) break;
    let refined = false;
    for (const model of estimator.refine(best.model, points1, points2, inliers)) refined = consider(model) || refined;
    if (!refined) break;
  }
  const finalBest: { model: Model; cost: number; inlierCount: number } = best;
  const inlierMask = new Uint8Array(n);
  estimator.squaredErrors(finalBest.model, points1, points2, errors);
  for (let k = 0; k < n; k++) inlierMask[k] = errors[k] <= threshold2 ? 1 : 0;
  return { model: finalBest.model, inlierMask, inlierCount: finalBest.inlierCount, cost: finalBest.cost, iterations: iteration };
}

/** Polishes of the final model at most (each on the inliers of the one before). */
const REFINE_ROUNDS = 4;

/** Correspondences scored between checks against the best cost (small enough to stop early, large enough to keep the loop tight). */
const SCORE_CHUNK = 128;

/** log(1 - confidence) / log(1 - w^s), rounded up; Infinity when w^s underflows. */
export function iterationsForConfidence(inlierRatio: number, sampleSize: number, confidence: number): number {
  if (inlierRatio >= 1) return 1;
  const allInlier = Math.pow(inlierRatio, sampleSize);
  if (allInlier <= 0) return Infinity;
  return Math.ceil(Math.log(1 - confidence) / Math.log1p(-allInlier));
}

function inlierIndices<Model>(
  estimator: ModelEstimator<Model>,
  model: Model,
  points1: Float64Array,
  points2: Float64Array,
  errors: Float64Array,
  threshold2: number,
): Uint32Array {
  estimator.squaredErrors(model, points1, points2, errors);
  let count = 0;
  for (let k = 0; k < errors.length; k++) if (errors[k] <= threshold2) count++;
  const out = new Uint32Array(count);
  let next = 0;
  for (let k = 0; k < errors.length; k++) if (errors[k] <= threshold2) out[next++] = k;
  return out;
}

/** s distinct indices in [0, n), uniformly (rejection: s is at most 8 and n at least s). */
function drawSample(random: Random, n: number, out: Uint32Array): void {
  for (let i = 0; i < out.length; i++) {
    let candidate: number;
    do candidate = Math.floor(random.next() * n);
    while (out.subarray(0, i).includes(candidate));
    out[i] = candidate;
  }
}
