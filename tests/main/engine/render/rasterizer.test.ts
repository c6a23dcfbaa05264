import { describe, expect, it } from 'vitest';
import { isSecondAdapterRun, testGpu, variantsOf } from '../../../helpers/gpu.js';
import { freshSeed } from '../../../helpers/random.js';
import { BIG_SPLAT_CASE, RASTER_CASES, rasterParity } from '../../../parity/rasterize.parity.js';

// On a second adapter (npm test's SwiftShader and WebGPU-default-limits runs) two cases reach
// every pipeline: the full SH mix of splat kinds, and all optional outputs through the
// workgroup paths (SwiftShader compiles each configuration in tens of seconds).
const SECOND_ADAPTER_CASES = [RASTER_CASES[2], RASTER_CASES[5]];
const second = isSecondAdapterRun();
const TIMEOUT_MS = second ? 240_000 : undefined;

describe('rasterizer kernels match the float64 reference (forward and backward) on fresh random scenes', async () => {
  const ctx = await testGpu();
  for (const variant of variantsOf(ctx)) {
    for (const c of second ? SECOND_ADAPTER_CASES.slice(0, 1) : RASTER_CASES) {
      it(`${variant}: ${c.count} splats ${c.width}x${c.height} SH ${c.shDegree ?? c.setDegree}/${c.setDegree}${c.antialiased ? ' antialiased' : ''}${c.kinds ? ` (${c.kinds.join(', ')})` : ''}`, async () => {
        const seed = freshSeed();
        const results = await rasterParity(ctx, variant, seed, c);
        const failures = results.filter((r) => !r.ok).map((r) => `${r.name}: ${r.detail}`);
        expect(failures, `seed ${seed}`).toEqual([]);
      }, TIMEOUT_MS);
    }
    // every splat over more than one tile through the workgroup paths of projection and emit, and
    // gather in chunks of 64 records (many splats cross a chunk border, some span several)
    for (const c of second ? SECOND_ADAPTER_CASES.slice(1) : RASTER_CASES.filter((x) => x.kinds?.includes('huge') || x.outputs?.normals)) {
      it(`${variant} (workgroup paths for splats over > 1 tile, gather chunks of 64): ${c.count} splats ${c.width}x${c.height}${c.kinds ? ` (${c.kinds.join(', ')})` : ''}${c.outputs ? ` +${Object.keys(c.outputs).join('+')}` : ''}`, async () => {
        const seed = freshSeed();
        const results = await rasterParity(ctx, variant, seed, c, { bigSplat: 1, gatherItems: 1, workgroupSize: 64 });
        const failures = results.filter((r) => !r.ok).map((r) => `${r.name}: ${r.detail}`);
        expect(failures, `seed ${seed}`).toEqual([]);
      }, TIMEOUT_MS);
    }
    // a few splats of ~6,000 intersection records each (several gather chunks) among many tiny ones
    // (not on a second adapter: SwiftShader takes over 10 minutes on its 1.5M pixels)
    for (const c of second ? [] : [BIG_SPLAT_CASE]) {
      it(`${variant} (big splats): ${c.count} splats ${c.width}x${c.height}, ${c.leading?.length} huge among tiny`, async () => {
        const seed = freshSeed();
        const results = await rasterParity(ctx, variant, seed, c);
        const failures = results.filter((r) => !r.ok).map((r) => `${r.name}: ${r.detail}`);
        expect(failures, `seed ${seed}`).toEqual([]);
        const intersections = Number(/(\d+) intersections/.exec(results[0].detail ?? '')?.[1]);
        expect(intersections, 'the huge splats reached most tiles').toBeGreaterThan(20_000);
      }, 180_000);
    }
    // a frame whose depth-ranked arrays hold exactly the visible splats, and one holding half of
    // them (the rest culled by index: their gradients zero, the image without them)
    // (on a second adapter: the first case, clamped, which reaches the subgroup variant's kernels on SwiftShader)
    for (const c of second ? SECOND_ADAPTER_CASES.slice(0, 1) : [RASTER_CASES[2], RASTER_CASES[4], RASTER_CASES[5]]) {
      for (const visibleCapacity of second ? (['half'] as const) : (['exact', 'half'] as const)) {
        it(`${variant} (visible capacity ${visibleCapacity}): ${c.count} splats ${c.width}x${c.height}${c.outputs ? ` +${Object.keys(c.outputs).join('+')}` : ''}`, async () => {
          const seed = freshSeed();
          const results = await rasterParity(ctx, variant, seed, c, { visibleCapacity });
          const failures = results.filter((r) => !r.ok).map((r) => `${r.name}: ${r.detail}`);
          expect(failures, `seed ${seed}`).toEqual([]);
          expect(results[0].detail, 'the clamp was checked').toContain('visible capacity');
        }, TIMEOUT_MS);
      }
    }
    // after ADC's refine stop: project_backward without the screen-space gradient, the rest unchanged
    for (const c of second ? SECOND_ADAPTER_CASES.slice(0, 1) : [RASTER_CASES[2], RASTER_CASES[5]]) {
      it(`${variant} (no mean2d gradient): ${c.count} splats ${c.width}x${c.height}${c.outputs ? ` +${Object.keys(c.outputs).join('+')}` : ''}`, async () => {
        const seed = freshSeed();
        const results = await rasterParity(ctx, variant, seed, c, { mean2dGrads: false });
        const failures = results.filter((r) => !r.ok).map((r) => `${r.name}: ${r.detail}`);
        expect(failures, `seed ${seed}`).toEqual([]);
        expect(results.some((r) => r.name.includes('mean2d never written'))).toBe(true);
      }, TIMEOUT_MS);
    }
    // camera refinement: the per-splat camera shares and their fixed-order sum, with and without the optional outputs
    for (const c of second ? [] : [RASTER_CASES[2], RASTER_CASES[3], RASTER_CASES[5]]) {
      it(`${variant} (camera gradients): ${c.count} splats ${c.width}x${c.height}${c.antialiased ? ' antialiased' : ''}${c.outputs ? ` +${Object.keys(c.outputs).join('+')}` : ''}`, async () => {
        const seed = freshSeed();
        const results = await rasterParity(ctx, variant, seed, c, { cameraGrads: true });
        const failures = results.filter((r) => !r.ok).map((r) => `${r.name}: ${r.detail}`);
        expect(failures, `seed ${seed}`).toEqual([]);
        expect(results.some((r) => r.name.includes('grad camera')), 'the camera gradient was compared').toBe(true);
      }, TIMEOUT_MS);
    }
  }
});
