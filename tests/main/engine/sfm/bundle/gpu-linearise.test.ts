import { describe, it } from 'vitest';
import { testGpu, variantsOf } from '../../../../helpers/gpu.js';
import { freshSeed } from '../../../../helpers/random.js';
import { bundleLineariseParity } from '../../../../parity/bundle-stages.parity.js';
import { expectParity } from './gpu-setup.js';

describe('bundle-linearise matches the float64 camera models', async () => {
  const ctx = await testGpu();
  for (const variant of variantsOf(ctx))
    it(`residuals, weights and the pose, intrinsic and point Jacobians of every observation (mixed models), ${variant}`, async () => {
      expectParity(await bundleLineariseParity(ctx, variant, freshSeed()));
    });
});
