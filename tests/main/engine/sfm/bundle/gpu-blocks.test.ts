import { describe, it } from 'vitest';
import { testGpu, variantsOf } from '../../../../helpers/gpu.js';
import { freshSeed } from '../../../../helpers/random.js';
import { BUNDLE_SHAPES, bundleCameraBlocksParity, bundlePointBlocksParity } from '../../../../parity/bundle-stages.parity.js';
import { expectParity } from './gpu-setup.js';

describe('bundle-blocks match the float64 reference', async () => {
  const ctx = await testGpu();
  for (const variant of variantsOf(ctx)) {
    it(`point blocks: V_j, (V_j + lambda D_j)^-1 and g_p of every point, ${variant}`, async () => {
      expectParity(await bundlePointBlocksParity(ctx, variant, freshSeed()));
    });
    for (const shape of BUNDLE_SHAPES)
      it(`camera blocks (${shape.name}): U's pose and intrinsic blocks, D, g_c and the Schur-Jacobi preconditioner's inverse blocks, ${variant}`, async () => {
        expectParity(await bundleCameraBlocksParity(ctx, variant, freshSeed(), shape));
      });
  }
});
