import { describe, it } from 'vitest';
import { testGpu, variantsOf } from '../../../../helpers/gpu.js';
import { freshSeed } from '../../../../helpers/random.js';
import { BUNDLE_SHAPES, bundlePcgParity, bundlePcgStopParity, bundleSchurParity, PCG_STEPS } from '../../../../parity/bundle-stages.parity.js';
import { expectParity } from './gpu-setup.js';

describe('the implicit Schur complement and PCG on the GPU match the float64 reference', async () => {
  const ctx = await testGpu();
  for (const variant of variantsOf(ctx)) {
    for (const shape of BUNDLE_SHAPES)
      it(`S x for a random x, and the right-hand side b (${shape.name}), ${variant}`, async () => {
        expectParity(await bundleSchurParity(ctx, variant, freshSeed(), shape));
      });
    it(`${PCG_STEPS} PCG steps from b, then the back-substituted point steps, ${variant}`, async () => {
      expectParity(await bundlePcgParity(ctx, variant, freshSeed()));
    });
    it(`PCG stops at |r| <= tolerance |b| and later steps leave it alone, ${variant}`, async () => {
      expectParity(await bundlePcgStopParity(ctx, variant, freshSeed()));
    });
  }
});
