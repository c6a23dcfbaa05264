import { describe, expect, it } from 'vitest';
import { testGpu, variantsOf } from '../../../helpers/gpu.js';
import { freshSeed } from '../../../helpers/random.js';
import { meshVisibilityParity } from '../../../parity/mesh-visibility.parity.js';
import { MESH_CASES, marchingCubesParity, tsdfParity } from '../../../parity/mesh.parity.js';

describe('marching-cubes kernels match the float64 reference on random SDFs', async () => {
  const ctx = await testGpu();
  for (const c of MESH_CASES) {
    it(`${c.dims.join('x')}, ${c.shapes} shapes, ${c.perDispatch} cells a dispatch`, async () => {
      const seed = freshSeed();
      const result = await marchingCubesParity(ctx, seed, c);
      expect(result.ok, `seed ${seed}: ${result.name}: error ${result.error} ${result.detail ?? ''}`).toBe(true);
    });
  }
});

describe('tsdf kernel matches the float64 reference on random views', async () => {
  const ctx = await testGpu();
  for (const c of MESH_CASES) {
    it(`${c.dims.join('x')}, ${c.perDispatch} points a dispatch, expected depth, carving`, async () => {
      const seed = freshSeed();
      const result = await tsdfParity(ctx, seed, c);
      expect(result.ok, `seed ${seed}: ${result.name}: error ${result.error} ${result.detail ?? ''}`).toBe(true);
    });
  }
  it('direct depth read with a stride of 4 (a frame\'s median depth), without carving', async () => {
    const seed = freshSeed();
    const result = await tsdfParity(ctx, seed, MESH_CASES[1], { depthMode: 'direct', carve: false, depthStride: 4 });
    expect(result.ok, `seed ${seed}: ${result.name}: error ${result.error} ${result.detail ?? ''}`).toBe(true);
  });
  // the tsdf kernels use no subgroup builtins, but each variant is its own compile of the file
  for (const variant of variantsOf(ctx)) {
    for (const c of MESH_CASES.slice(1)) {
      it(`free-space votes with image alpha, then the carve pass (${variant}, ${c.dims.join('x')}, ${c.perDispatch} points a dispatch)`, async () => {
        const seed = freshSeed();
        const result = await tsdfParity(ctx, seed, c, { views: 5, imageAlpha: true, carveVotes: 2, variant });
        expect(result.ok, `seed ${seed}: ${result.name}: error ${result.error} ${result.detail ?? ''}`).toBe(true);
      });
    }
  }
});

describe('tsdf_visibility matches the float64 reference on random views', async () => {
  const ctx = await testGpu();
  for (const variant of variantsOf(ctx)) {
    it(`expected depth, 4 views (${variant})`, async () => {
      const seed = freshSeed();
      const result = await meshVisibilityParity(ctx, seed, { views: 4, variant });
      expect(result.ok, `seed ${seed}: ${result.name}: error ${result.error} ${result.detail ?? ''}`).toBe(true);
    });
  }
  it("direct depth with a stride of 4 (a frame's median depth)", async () => {
    const seed = freshSeed();
    const result = await meshVisibilityParity(ctx, seed, { depthMode: 'direct', depthStride: 4 });
    expect(result.ok, `seed ${seed}: ${result.name}: error ${result.error} ${result.detail ?? ''}`).toBe(true);
  });
});
