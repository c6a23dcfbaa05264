import { describe, expect, it } from 'vitest';
import { testGpu, variantsOf } from '../../../../helpers/gpu.js';
import { freshSeed, rng } from '../../../../helpers/random.js';
import { CHUNK_OBS, VEC } from '../../../../../main/engine/sfm/bundle/gpu/gpu-layout.js';
import { backSubstitute, pcg, reducedRightHandSide, schurMatVec } from '../../../../../main/engine/sfm/bundle/reference.js';
import { PARITY_OPTIONS, relativeDifference, SMALL_PROBLEM } from './gpu-problems.js';
import { linearisedCase } from './gpu-setup.js';

/** PCG steps the fixed-count parity runs (tolerance 0: exactly this many). */
const PCG_STEPS = 6;

describe('the implicit Schur complement and PCG on the GPU match the float64 reference', async () => {
  const ctx = await testGpu();
  for (const variant of variantsOf(ctx)) {
    it(`S x for a random x, and the right-hand side b, ${variant}`, async () => {
      const seed = freshSeed();
      const c = await linearisedCase(ctx, variant, seed, 1e-2);
      const random = rng(seed ^ 0x5eed);
      const x = Float64Array.from({ length: c.layout.variables }, () => random() - 0.5);
      c.stages.writeVector(VEC.t, x);
      const commands = ctx.commands('test.schur');
      c.stages.schur(commands, 0, VEC.t, VEC.q);
      c.stages.schur(commands, 1);
      await commands.submit();
      expect(relativeDifference(await c.stages.readVector(VEC.q), schurMatVec(c.system, x)), `seed ${seed}: S x`).toBeLessThan(1e-3);
      expect(relativeDifference(await c.stages.readVector(VEC.b), reducedRightHandSide(c.system)), `seed ${seed}: b`).toBeLessThan(1e-3);
      c.stages.destroy();
    });

    it(`S x and b with one camera shared by every image: its intrinsics' sums over several chunks, ${variant}`, async () => {
      const seed = freshSeed();
      const c = await linearisedCase(ctx, variant, seed, 1e-2, PARITY_OPTIONS, { ...SMALL_PROBLEM, models: ['OPENCV'] });
      expect(c.layout.observations, 'more observations than one chunk holds').toBeGreaterThan(CHUNK_OBS);
      expect(c.layout.chunks).toBeGreaterThan(c.layout.segments);
      const random = rng(seed ^ 0x5eed);
      const x = Float64Array.from({ length: c.layout.variables }, () => random() - 0.5);
      c.stages.writeVector(VEC.t, x);
      const commands = ctx.commands('test.schur-chunks');
      c.stages.schur(commands, 0, VEC.t, VEC.q);
      c.stages.schur(commands, 1);
      await commands.submit();
      expect(relativeDifference(await c.stages.readVector(VEC.q), schurMatVec(c.system, x)), `seed ${seed}: S x`).toBeLessThan(1e-3);
      expect(relativeDifference(await c.stages.readVector(VEC.b), reducedRightHandSide(c.system)), `seed ${seed}: b`).toBeLessThan(1e-3);
      c.stages.destroy();
    });

    it(`${PCG_STEPS} PCG steps from b, then the back-substituted point steps, ${variant}`, async () => {
      const seed = freshSeed();
      const c = await linearisedCase(ctx, variant, seed, 1e-2, { ...PARITY_OPTIONS, pcgTolerance: 0 });
      const commands = ctx.commands('test.pcg');
      c.stages.schur(commands, 1);
      c.stages.pcg(commands, PCG_STEPS);
      c.stages.backSubstitute(commands);
      await commands.submit();
      const ref = pcg(c.system, reducedRightHandSide(c.system), PCG_STEPS, 0);
      expect(ref.iterations).toBe(PCG_STEPS);
      const scalars = await c.stages.readScalars();
      expect(scalars[3], `seed ${seed}: steps taken`).toBe(PCG_STEPS);
      const dc = await c.stages.readVector(VEC.x);
      expect(relativeDifference(dc, ref.x), `seed ${seed}: dc after ${PCG_STEPS} steps`).toBeLessThan(1e-2);
      expect(Math.abs(Math.sqrt(scalars[4] / scalars[1]) - ref.relativeResidual) / ref.relativeResidual, `seed ${seed}: |r| / |b|`).toBeLessThan(2e-2);
      // back-substitution of the GPU's own dc, against the reference's of the same dc
      expect(relativeDifference(await c.stages.readPointStep(), backSubstitute(c.system, Float64Array.from(dc))), `seed ${seed}: dp`).toBeLessThan(1e-3);
      c.stages.destroy();
    });

    it(`PCG stops at |r| <= tolerance |b| and later steps leave it alone, ${variant}`, async () => {
      const seed = freshSeed();
      const c = await linearisedCase(ctx, variant, seed, 1e-2, { ...PARITY_OPTIONS, pcgTolerance: 1e-2 });
      const commands = ctx.commands('test.pcg-stop');
      c.stages.schur(commands, 1);
      c.stages.pcg(commands, 200);
      await commands.submit();
      const ref = pcg(c.system, reducedRightHandSide(c.system), 200, 1e-2);
      const scalars = await c.stages.readScalars();
      expect(scalars[2], `seed ${seed}: converged`).toBe(1);
      expect(Math.abs(scalars[3] - ref.iterations), `seed ${seed}: GPU ${scalars[3]} steps, reference ${ref.iterations}`).toBeLessThanOrEqual(1);
      expect(Math.sqrt(scalars[4] / scalars[1]), `seed ${seed}`).toBeLessThanOrEqual(1e-2);
      expect(relativeDifference(await c.stages.readVector(VEC.x), ref.x), `seed ${seed}: dc`).toBeLessThan(2e-2);
      c.stages.destroy();
    });
  }
});
