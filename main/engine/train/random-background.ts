/**
 * train.alpha 'random': each step draws the background the render and the target (the loss
 * composites it, kernels/loss.wgsl RANDOM_BACKGROUND) share, so splats where the photo's alpha is
 * 0 can only match every colour by being transparent. A pure function of the seed and the step,
 * so a resumed run draws the same colours as an uninterrupted one.
 */

import { lowbias32 as hash32 } from '../../../shared/random.js';

/** The background of `step` in a run seeded `seed`: each channel uniform in [0, 1]. */
export function randomBackgroundColour(seed: number, step: number): [number, number, number] {
  const base = hash32((seed >>> 0) ^ hash32(step >>> 0));
  return [0, 1, 2].map((k) => hash32(base + k * 0x9e3779b9) / 0xffffffff) as [number, number, number];
}
