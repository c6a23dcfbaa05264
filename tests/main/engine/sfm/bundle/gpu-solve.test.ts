import { describe, expect, it } from 'vitest';
import { testGpu, variantsOf } from '../../../../helpers/gpu.js';
import { freshSeed } from '../../../../helpers/random.js';
import { bundleLmIterationParity, bundleSolveParity } from '../../../../parity/bundle-solve.parity.js';
import { GpuBundleAdjuster } from '../../../../../main/engine/sfm/bundle/gpu/gpu-bundle-adjuster.js';
import { PARITY_OPTIONS, randomProblem } from './gpu-problems.js';
import { expectParity } from './gpu-setup.js';

describe('the GPU bundle adjuster against the float64 solver', async () => {
  const ctx = await testGpu();
  for (const variant of variantsOf(ctx)) {
    it(`one LM iteration: the same accepted step, its float64 cost within 3e-4 relative, ${variant}`, async () => {
      expectParity(await bundleLmIterationParity(ctx, variant, freshSeed()));
    });
    // 16-18 LM iterations of ~300 dispatches: 10-60 s on the CPU adapters (SwiftShader, loaded)
    it(`a full solve reaches the CPU solver's final cost within 1e-3 relative and recovers the truth as well, ${variant}`, async () => {
      expectParity(await bundleSolveParity(ctx, variant, freshSeed()));
    }, 240_000);
  }

  it('stops between iterations when its signal is aborted, and refuses a bad problem by name', async () => {
    const adjuster = await GpuBundleAdjuster.create(ctx);
    const { start } = randomProblem(freshSeed());
    const controller = new AbortController();
    let seen = 0;
    const onProgress = (k: number) => {
      seen = k;
      if (k === 2) controller.abort(new Error('cancelled by the test'));
    };
    const solving = adjuster.adjust(start, PARITY_OPTIONS, { signal: controller.signal, onProgress });
    await expect(solving).rejects.toThrow(/cancelled by the test/);
    expect(seen).toBe(2);
    await expect(adjuster.solve({ ...start, obsXY: start.obsXY.subarray(2) })).rejects.toThrow(/bundle\/problem.ts: observations/);
    adjuster.stages.destroy();
  });
});
