/**
 * Adam on the host in float64, for the handful of numbers per view that camera refinement
 * (camera-refine.ts) and test-time pose alignment (pose-alignment.ts) optimise, with the GPU
 * Adam's hyperparameters (adam.ts: one source for both).
 */
import { ADAM_DEFAULTS } from './adam.js';

const { beta1: BETA1, beta2: BETA2, epsilon: EPSILON } = ADAM_DEFAULTS;

/** Adam state of one parameter block. */
export interface AdamBlock {
  value: number[];
  m: number[];
  v: number[];
  steps: number;
}

/** A block of `n` parameters at zero, no step taken. */
export const block = (n: number): AdamBlock => ({ value: new Array<number>(n).fill(0), m: new Array<number>(n).fill(0), v: new Array<number>(n).fill(0), steps: 0 });

/** One Adam step with a learning rate per parameter and decoupled weight decay `decay` (x the rate). */
export function adamStep(b: AdamBlock, grad: readonly number[], rates: readonly number[], decay: number): void {
  b.steps += 1;
  const c1 = 1 - BETA1 ** b.steps;
  const c2 = 1 - BETA2 ** b.steps;
  for (let i = 0; i < b.value.length; i++) {
    b.m[i] = BETA1 * b.m[i] + (1 - BETA1) * grad[i];
    b.v[i] = BETA2 * b.v[i] + (1 - BETA2) * grad[i] * grad[i];
    b.value[i] -= rates[i] * (b.m[i] / c1 / (Math.sqrt(b.v[i] / c2) + EPSILON) + decay * b.value[i]);
  }
}
