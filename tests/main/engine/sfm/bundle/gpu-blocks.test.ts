import { describe, expect, it } from 'vitest';
import { testGpu, variantsOf } from '../../../../helpers/gpu.js';
import { freshSeed } from '../../../../helpers/random.js';
import { POINT_STRIDE, SEG_STRIDE, VEC } from '../../../../../main/engine/sfm/bundle/gpu/gpu-layout.js';
import { blockwiseDifference, PARITY_OPTIONS, relativeDifference, SMALL_PROBLEM } from './gpu-problems.js';
import { linearisedCase } from './gpu-setup.js';

/**
 * Blocks summed with the IRLS weights: float32 residuals carry ~1e-4 px of rounding (X_c.z ~ 4 in
 * the normalised frame holds 7 digits, times f ~ 800 px), which moves a Cauchy weight by up to
 * ~1e-4 (measured: V 3.4e-5 to 5.3e-5, U 0.9e-5 to 1.7e-5 over 6 seeds); the Jacobians alone agree to 1e-6.
 */
const WEIGHTED_BLOCKS = 2e-4;

/** Gradients are sums of w J r with r ~ the 0.5 px noise: the residuals' 1e-4 px of float32 rounding is ~2e-4 of them. */
const GRADIENT = 1e-3;

/** A GPU symmetric 3x3 (00 01 02 11 12 22) as 9 row-major values. */
const full3 = (s: ArrayLike<number>) => [s[0], s[1], s[2], s[1], s[3], s[4], s[2], s[4], s[5]];

/** The leading n x n of a row-major 8x8. */
const leading = (m: ArrayLike<number>, n: number) => Array.from({ length: n * n }, (_, k) => m[8 * Math.floor(k / n) + (k % n)]);

describe('bundle-blocks match the float64 reference', async () => {
  const ctx = await testGpu();
  for (const variant of variantsOf(ctx)) {
    it(`point blocks: V_j, (V_j + lambda D_j)^-1 and g_p of every point, ${variant}`, async () => {
      const seed = freshSeed();
      const c = await linearisedCase(ctx, variant, seed, 1e-2);
      const got = await c.stages.readPointBlocks();
      const ref = c.system.points;
      const at = (j: number) => got.subarray(POINT_STRIDE * j, POINT_STRIDE * (j + 1));
      const n = c.layout.points;
      expect(blockwiseDifference(n, (j) => [full3(at(j)), ref.v.subarray(9 * j, 9 * j + 9)]), `seed ${seed}: V`).toBeLessThan(WEIGHTED_BLOCKS);
      expect(blockwiseDifference(n, (j) => [full3(at(j).subarray(6)), ref.vDampedInverse.subarray(9 * j, 9 * j + 9)]), `seed ${seed}: V^-1`).toBeLessThan(1e-3);
      expect(blockwiseDifference(n, (j) => [at(j).subarray(12, 15), ref.gradient.subarray(3 * j, 3 * j + 3)]), `seed ${seed}: g_p`).toBeLessThan(GRADIENT);
      c.stages.destroy();
    });

    for (const [shape, name] of [
      [SMALL_PROBLEM, 'five cameras'],
      [{ ...SMALL_PROBLEM, models: ['OPENCV'] }, 'one camera over several chunks'],
    ] as const)
    it(`camera blocks (${name}): U's pose and intrinsic blocks, D, g_c and the Schur-Jacobi preconditioner's inverse blocks, ${variant}`, async () => {
      const seed = freshSeed();
      const c = await linearisedCase(ctx, variant, seed, 1e-2, PARITY_OPTIONS, shape);
      const got = await c.stages.readCameraBlocks();
      const ref = c.system.cameras;
      const { reduced, segments, segmentKind, segmentOwner } = c.layout;
      const worst = { a: 0, inverse: 0, d: 0, g: 0 };
      for (let s = 0; s < segments; s++) {
        const block = got.subarray(SEG_STRIDE * s, SEG_STRIDE * (s + 1));
        const owner = segmentOwner[s];
        const pose = segmentKind[s] === 0;
        const n = pose ? 6 : reduced.refined[owner].length;
        const variable = pose ? reduced.poseOffset[owner] : reduced.intrinsicOffset[owner];
        const at = pose ? 6 * variable : ref.intrinsicBlockOffset[owner];
        const a = pose ? ref.poseBlocks : ref.intrinsicBlocks;
        const inverse = pose ? ref.posePreconditionerInverse : ref.intrinsicPreconditionerInverse;
        worst.a = Math.max(worst.a, relativeDifference(leading(block.subarray(80), n), a.subarray(at, at + n * n)));
        worst.inverse = Math.max(worst.inverse, relativeDifference(leading(block, n), inverse.subarray(at, at + n * n)));
        worst.d = Math.max(worst.d, relativeDifference(block.subarray(64, 64 + n), ref.diagonal.subarray(variable, variable + n)));
        worst.g = Math.max(worst.g, relativeDifference(block.subarray(72, 72 + n), ref.gradient.subarray(variable, variable + n)));
      }
      expect(worst.a, `seed ${seed}: U blocks`).toBeLessThan(WEIGHTED_BLOCKS);
      expect(worst.d, `seed ${seed}: D`).toBeLessThan(1e-4);
      expect(worst.g, `seed ${seed}: g_c`).toBeLessThan(GRADIENT);
      expect(worst.inverse, `seed ${seed}: preconditioner inverse`).toBeLessThan(2e-3);
      expect(relativeDifference(await c.stages.readVector(VEC.g), ref.gradient), `seed ${seed}: g_c in its vector slot`).toBeLessThan(GRADIENT);
      c.stages.destroy();
    });
  }
});
