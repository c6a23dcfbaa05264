import { describe, expect, it } from 'vitest';
import { benchRaster } from '../../../../main/engine/render/bench-raster.js';
import type { SplatSet } from '../../../../shared/scene/splats.js';
import { testGpu } from '../../../helpers/gpu.js';
import { freshSeed, rng } from '../../../helpers/random.js';
import { randomScene } from '../../../reference/scenes.js';

describe('bench raster', async () => {
  const ctx = await testGpu();
  it('times forward and backward and reports every compiled kernel on a small random load', async () => {
    const random = rng(freshSeed());
    const scene = randomScene(random, { count: 300, width: 64, height: 48, setDegree: 3, shDegree: 3, options: { antialiased: false }, kinds: ['ordinary'] });
    const splats: SplatSet = {
      count: 300,
      shDegree: 3,
      means: Float32Array.from(scene.splats.means),
      logScales: Float32Array.from(scene.splats.logScales),
      quats: Float32Array.from(scene.splats.quats),
      opacityLogits: Float32Array.from(scene.splats.opacityLogits),
      sh: Float32Array.from(scene.splats.sh),
    };
    const result = await benchRaster(ctx, { splats, camera: scene.camera, near: 0.01, background: [0, 0, 0] }, { warmup: 0, iterations: 2, profileIterations: 1 });
    expect(result.forward_samples_ms).toHaveLength(2);
    expect(result.backward_samples_ms).toHaveLength(2);
    expect(result.forward_ms).toBeGreaterThan(0);
    expect(result.visible).toBeGreaterThan(0);
    expect(result.intersections).toBeGreaterThanOrEqual(result.visible);
    expect(result.kernels.length).toBeGreaterThan(0);
    // every pipeline the rasterizer compiled has a workgroup-memory entry; the optional ones it did not compile are absent
    expect(Object.keys(result.workgroup_memory_bytes).some((k) => k.startsWith('rasterForward'))).toBe(true);
    expect(Object.keys(result.workgroup_memory_bytes).some((k) => k.startsWith('gatherWeights'))).toBe(false);
  });
});
