/**
 * The GPU parity tests' random problems (synthetic-problem.ts, the generator `bench ba` uses too):
 * 10 images, 400 points in 2-5 images each, the five camera models mixed, two images held,
 * 0.5 px noise, the start perturbed; and the options and differences the tests compare with.
 */
import { BA_DEFAULTS, type BaOptions, type BaProblem } from '../../../../../main/engine/sfm/bundle/problem.js';
import { MIXED_MODELS, syntheticBaProblem, type SyntheticProblemOptions } from '../../../../../main/engine/sfm/bundle/gpu/synthetic-problem.js';

export const SMALL_PROBLEM: SyntheticProblemOptions = { images: 10, points: 400, models: MIXED_MODELS, fixed: 2, noisePx: 0.5, rotationNoise: 0.01, positionNoise: 0.02 };

export function randomProblem(seed: number, o: SyntheticProblemOptions = SMALL_PROBLEM): { truth: BaProblem; start: BaProblem } {
  return syntheticBaProblem(seed, o);
}

/** BA options for the parity tests: every intrinsic refined (the largest blocks), Cauchy. */
export const PARITY_OPTIONS: BaOptions = { ...BA_DEFAULTS, refinePrincipalPoint: true };

/** max |a - b| / max(max |b|, floor): a relative difference over a whole array. */
export function relativeDifference(a: ArrayLike<number>, b: ArrayLike<number>, floor = 1e-30): number {
  let diff = 0;
  let scale = floor;
  for (let k = 0; k < b.length; k++) {
    diff = Math.max(diff, Math.abs(a[k] - b[k]));
    scale = Math.max(scale, Math.abs(b[k]));
  }
  return a.length === b.length ? diff / scale : Infinity;
}

/** Per-block relative difference: max over blocks of max |a - b| / max |b| within the block (size `n` each, `count` blocks at strides). */
export function blockwiseDifference(count: number, get: (block: number) => [ArrayLike<number>, ArrayLike<number>]): number {
  let worst = 0;
  for (let k = 0; k < count; k++) {
    const [a, b] = get(k);
    worst = Math.max(worst, relativeDifference(a, b));
  }
  return worst;
}
