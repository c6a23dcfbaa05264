import { describe, expect, it } from 'vitest';
import { testGpu } from '../../../helpers/gpu.js';
import { freshSeed } from '../../../helpers/random.js';
import { rayDepthEntryParity, rayDepthLoopParity, rayDepthPlaneParity } from '../../../parity/mesh-depth.parity.js';

describe('mesh-depth kernel (ray depth for extraction)', async () => {
  const ctx = await testGpu();
  it("composites with the rasterizer's own weights: centre depths reproduce depth / alpha", async () => {
    const seed = freshSeed();
    const r = await rayDepthLoopParity(ctx, seed);
    expect(r.ok, `seed ${seed}: ${r.name}: error ${r.error}`).toBe(true);
  });
  it('puts a slanted plane of flat splats exactly on the plane, where the centre depth does not', async () => {
    const seed = freshSeed();
    const r = await rayDepthPlaneParity(ctx, seed);
    expect(r.ok, `seed ${seed}: ${r.name}`).toBe(true);
  });
  it("'surface' depth: where the ray enters a splat's alpha-1/2 level set, against float64 on single random splats", async () => {
    const seed = freshSeed();
    const r = await rayDepthEntryParity(ctx, seed);
    expect(r.ok, `seed ${seed}: ${r.name}: error ${r.error}`).toBe(true);
  });
});
