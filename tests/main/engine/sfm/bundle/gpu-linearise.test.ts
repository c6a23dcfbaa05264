import { describe, expect, it } from 'vitest';
import { testGpu, variantsOf } from '../../../../helpers/gpu.js';
import { freshSeed } from '../../../../helpers/random.js';
import { generalIntrinsics, linearizeObservation, observationJacobiansScratch } from '../../../../../main/engine/sfm/bundle/camera-models.js';
import { normalisingSimilarity, toNormalisedFrame } from '../../../../../main/engine/sfm/bundle/normalisation.js';
import { GpuBundleStages } from '../../../../../main/engine/sfm/bundle/gpu/gpu-bundle-stages.js';
import { LIN_STRIDE } from '../../../../../main/engine/sfm/bundle/gpu/gpu-layout.js';
import { PARITY_OPTIONS, randomProblem, relativeDifference } from './gpu-problems.js';

describe('bundle-linearise matches the float64 camera models', async () => {
  const ctx = await testGpu();
  for (const variant of variantsOf(ctx))
    it(`residuals, weights and the pose, intrinsic and point Jacobians of every observation (mixed models), ${variant}`, async () => {
      const seed = freshSeed();
      const { start } = randomProblem(seed);
      const problem = toNormalisedFrame(start, normalisingSimilarity(start.points));
      const stages = await GpuBundleStages.create(ctx, variant);
      const layout = stages.load(problem, PARITY_OPTIONS, true);
      const commands = ctx.commands('test');
      stages.linearise(commands);
      await commands.submit();
      const lin = await stages.readLinearisation();
      const out = observationJacobiansScratch();
      let worstResidual = 0;
      const worst = { pose: 0, point: 0, intrinsics: 0, weight: 0 };
      layout.observationOrder.forEach((o, k) => {
        const i = problem.obsImage[o];
        const c = problem.imageCamera[i];
        const camera = problem.cameras[c];
        const refined = layout.reduced.refined[c];
        linearizeObservation(camera.model, generalIntrinsics(camera.model, camera.params), refined, problem.rotations, 9 * i, problem.translations, 3 * i, problem.points, 3 * problem.obsPoint[o], problem.obsXY[2 * o], problem.obsXY[2 * o + 1], out);
        const rec = lin.subarray(LIN_STRIDE * k, LIN_STRIDE * (k + 1));
        worstResidual = Math.max(worstResidual, Math.abs(rec[0] - out.residual[0]), Math.abs(rec[1] - out.residual[1]));
        const s = out.residual[0] ** 2 + out.residual[1] ** 2;
        const c2 = PARITY_OPTIONS.lossScalePx ** 2;
        worst.weight = Math.max(worst.weight, Math.abs(rec[2] - 1 / (1 + s / c2)));
        worst.pose = Math.max(worst.pose, relativeDifference(rec.subarray(4, 16), out.jPose));
        worst.point = Math.max(worst.point, relativeDifference(rec.subarray(32, 38), out.jPoint));
        const n = refined.length;
        const intr = [...rec.subarray(16, 16 + n), ...rec.subarray(24, 24 + n)];
        worst.intrinsics = Math.max(worst.intrinsics, relativeDifference(intr, out.jIntrinsics.subarray(0, 2 * n)));
        for (let a = n; a < 8; a++) expect(rec[16 + a], `seed ${seed}: unused intrinsic column ${a} is zero`).toBe(0);
      });
      expect(worstResidual, `seed ${seed}: residual, px`).toBeLessThan(2e-3);
      expect(worst.weight, `seed ${seed}: Cauchy weight`).toBeLessThan(1e-4);
      expect(worst.pose, `seed ${seed}: pose Jacobian`).toBeLessThan(1e-4);
      expect(worst.point, `seed ${seed}: point Jacobian`).toBeLessThan(1e-4);
      expect(worst.intrinsics, `seed ${seed}: intrinsic Jacobian`).toBeLessThan(1e-4);
      stages.destroy();
    });
});
