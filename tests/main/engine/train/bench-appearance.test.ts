import { describe, expect, it } from 'vitest';
import { APPEARANCE_GRIDS, BILAGRID_TV_WEIGHT } from '../../../../main/engine/train/appearance.js';
import { APPEARANCE_BENCH_IMAGES, APPEARANCE_BENCH_SLOT, appearanceBenchLoad, appearanceChecks, benchAppearance } from '../../../../main/engine/train/bench-appearance.js';
import { testGpu } from '../../../helpers/gpu.js';
import { appearanceBackwardReference, appearanceForwardReference, luminance, tvReference } from '../../../reference/appearance.js';

/** The rgb of vec4 pixels, as float64. */
const rgbOf = (v: Float32Array) => Float64Array.from({ length: (v.length / 4) * 3 }, (_, i) => v[4 * Math.floor(i / 3) + (i % 3)]);

/** The check values of the float64 reference on the load. */
function referenceChecks(width: number, height: number) {
  const load = appearanceBenchLoad(width, height);
  const shape = APPEARANCE_GRIDS.bilagrid;
  const image = rgbOf(load.image);
  const vOut = rgbOf(load.vOut);
  const out = appearanceForwardReference(image, width, height, load.grids, shape, APPEARANCE_BENCH_SLOT);
  const back = appearanceBackwardReference(image, vOut, width, height, load.grids, shape, APPEARANCE_BENCH_SLOT);
  const tv = tvReference(load.grids, shape, APPEARANCE_BENCH_IMAGES, BILAGRID_TV_WEIGHT);
  const grad = back.vGrids.map((g, i) => g + tv.grad[i]);
  return appearanceChecks(out, back.vImage, grad, width * height, 3, APPEARANCE_BENCH_SLOT, APPEARANCE_BENCH_IMAGES);
}

describe('bench appearance', () => {
  it('is a fixed load: the same bytes every time, luminance over every layer and past both clamps', () => {
    const a = appearanceBenchLoad(60, 40);
    const b = appearanceBenchLoad(60, 40);
    for (const key of ['image', 'vOut', 'grids'] as const) expect(Buffer.from(a[key].buffer).equals(Buffer.from(b[key].buffer)), key).toBe(true);
    const image = rgbOf(appearanceBenchLoad(200, 150).image);
    const layers = new Set<number>();
    let outside = 0;
    for (let q = 0; q < 200 * 150; q++) {
      const lum = luminance(image, q);
      if (lum <= 0 || lum >= 1) outside++;
      else layers.add(Math.floor(lum * (APPEARANCE_GRIDS.bilagrid.l - 1)));
    }
    expect(layers.size).toBe(APPEARANCE_GRIDS.bilagrid.l - 1);
    expect(outside).toBeGreaterThan(0);
  });

  it('times the step and reports the check values of the float64 reference', async () => {
    const ctx = await testGpu();
    const [width, height] = [70, 45];
    const r = await benchAppearance(ctx, { width, height, warmup: 1, iterations: 3, profileIterations: 1 });
    const want = referenceChecks(width, height);
    for (const key of Object.keys(want) as (keyof typeof want)[]) {
      expect(Math.abs(r.checks[key] - want[key]), `${key}: ${r.checks[key]} against ${want[key]}`).toBeLessThan(1e-4 * Math.abs(want[key]));
    }
    expect(r.appearance_samples_ms).toHaveLength(3);
    expect(r.appearance_ms).toBeGreaterThan(0);
    const kernels = ['appearance-grad.grid_grad_partials', 'appearance-grad.grid_grad_reduce', 'appearance.apply_backward', 'appearance.apply_forward', 'appearance.grid_tv'];
    expect(r.kernels.map((k) => k.kernel).sort()).toEqual(kernels);
    expect(Object.keys(r.workgroup_memory_bytes)).toContain(`grid_grad_partials (${r.variant})`);
  });
});
