import { describe, it } from 'vitest';
import { testGpu, variantsOf } from '../../../../helpers/gpu.js';
import { freshSeed } from '../../../../helpers/random.js';
import { bundleLmIterationParity, bundleSolveParity } from '../../../../parity/bundle-solve.parity.js';
import { expectParity } from './gpu-setup.js';

describe('the GPU bundle adjuster against the float64 solver', async () => {
  const ctx = await testGpu();
  for (const variant of variantsOf(ctx)) {
    it(`one LM iteration: the same accepted step, its float64 cost within 1e-4 relative, ${variant}`, async () => {
      expectParity(await bundleLmIterationParity(ctx, variant, freshSeed()));
    });
    // 16-18 LM iterations of ~300 dispatches: 10-60 s on the CPU adapters (SwiftShader, loaded)
    it(`a full solve reaches the CPU solver's final cost within 1e-3 relative and recovers the truth as well, ${variant}`, async () => {
      expectParity(await bundleSolveParity(ctx, variant, freshSeed()));
    }, 240_000);
  }
});
