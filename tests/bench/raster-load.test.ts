/**
 * The fixed raster load reproduces the check values of ../shared/bench/RASTER_LOAD.md, to the
 * printed precision (widened by float32 rounding where the SplatSet stores the value).
 * The cases that need ../shared/data run only where it exists, and say so when it does not.
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  buildRasterLoad,
  lowbias32,
  RASTER_LOAD_COUNT,
  RASTER_LOAD_SOURCE,
  rasterLoadSplat,
  rasterLoadUniform,
  readRasterLoadSource,
  type RasterLoadSource,
} from '../../bench/raster-load.js';
import { freshSeed, rng } from '../helpers/random.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dataDir = resolve(repoRoot, '../shared/data');
const sourceFile = resolve(dataDir, RASTER_LOAD_SOURCE);
const hasData = existsSync(sourceFile);
if (!hasData) console.log(`raster-load.test: skipping the cases that read ${sourceFile}: it is absent (test data lives outside the repository)`);

/** |actual - printed| within half a unit of the printed last digit, plus `slack`. */
function expectPrinted(actual: number, printed: string, what: string, slack = 0): void {
  const decimals = printed.split('.')[1]?.length ?? 0;
  const tolerance = 0.5 * 10 ** -decimals * (1 + 1e-9) + slack;
  expect(Math.abs(actual - Number(printed)), `${what}: ${actual} vs printed ${printed} (tolerance ${tolerance})`).toBeLessThanOrEqual(tolerance);
}
const f32Slack = (x: number): number => Math.abs(x) * 2 ** -24;

describe('raster load random numbers', () => {
  it('lowbias32 and u(i, k) match the document', () => {
    expect(lowbias32(1)).toBe(1753845952);
    expectPrinted(rasterLoadUniform(0, 0), '0.0077651', 'u(0,0)');
  });

  it('lowbias32 is the documented sequence of 32-bit steps for any input', () => {
    const seed = freshSeed();
    const rand = rng(seed);
    for (let t = 0; t < 1000; t++) {
      const x = Math.floor(rand() * 2 ** 32);
      // The same steps in BigInt arithmetic mod 2^32.
      let b = BigInt(x);
      const M = 0xffffffffn;
      b ^= b >> 16n;
      b = (b * 0x7feb352dn) & M;
      b ^= b >> 15n;
      b = (b * 0x846ca68bn) & M;
      b ^= b >> 16n;
      expect(lowbias32(x), `seed ${seed} x=${x}`).toBe(Number(b));
    }
  });
});

describe('raster load from test_garden.npz', () => {
  let source: RasterLoadSource;
  beforeAll(async () => {
    if (hasData) source = await readRasterLoadSource(dataDir);
  });

  it.runIf(hasData)('splat 0 and splat 1999999 have the documented activated values', () => {
    const s0 = rasterLoadSplat(source, 0);
    ['0.101019', '0.2903531', '0.2773403'].forEach((p, a) => expectPrinted(s0.mean[a], p, `splat 0 mean[${a}]`));
    ['0.0053435', '0.0024858', '0.0089305'].forEach((p, a) => expectPrinted(s0.scale[a], p, `splat 0 scale[${a}]`));
    ['0.2595676', '-0.124049', '0.4615649', '0.8391629'].forEach((p, a) => expectPrinted(s0.quat[a], p, `splat 0 quat[${a}]`));
    expectPrinted(s0.opacity, '0.2383365', 'splat 0 opacity');
    ['0.7715387', '0.3266876', '-0.104262'].forEach((p, c) => expectPrinted(s0.sh[c], p, `splat 0 DC[${c}]`));
    const last = rasterLoadSplat(source, RASTER_LOAD_COUNT - 1);
    ['-3.2200102', '-0.6475339', '0.3243345'].forEach((p, a) => expectPrinted(last.mean[a], p, `splat 1999999 mean[${a}]`));
    expectPrinted(last.opacity, '0.4897455', 'splat 1999999 opacity');
  });

  it.runIf(hasData)('the SplatSet stores log scales, opacity logits, quats and SH of the same values (first splats)', () => {
    const count = 500;
    const load = buildRasterLoad(source, { count });
    const s = load.splats;
    expect([s.count, s.shDegree, s.sh.length]).toEqual([count, 3, count * 48]);
    for (const i of [0, 1, 77, count - 1]) {
      const raw = rasterLoadSplat(source, i);
      for (let a = 0; a < 3; a++) expect(s.means[3 * i + a]).toBe(Math.fround(raw.mean[a]));
      for (let a = 0; a < 3; a++) expect(Math.exp(s.logScales[3 * i + a])).toBeCloseTo(raw.scale[a], 8);
      for (let a = 0; a < 4; a++) expect(s.quats[4 * i + a]).toBe(Math.fround(raw.quat[a]));
      expect(1 / (1 + Math.exp(-s.opacityLogits[i]))).toBeCloseTo(raw.opacity, 7);
      for (let k = 0; k < 48; k++) expect(s.sh[48 * i + k]).toBe(Math.fround(raw.sh[k]));
    }
    // Splat 0 through the stored (float32) parameters, against the printed values.
    expectPrinted(Math.exp(s.logScales[0]), '0.0053435', 'stored scale', f32Slack(0.0053435) * 4);
    expectPrinted(1 / (1 + Math.exp(-s.opacityLogits[0])), '0.2383365', 'stored opacity', 1e-7);
    expectPrinted(s.sh[0], '0.7715387', 'stored DC', f32Slack(0.7715387));
  });

  it.runIf(hasData)('the camera is viewmats[0] with Ks[0] scaled to 1237x822; near 0.01; black background', () => {
    const { camera, near, background } = buildRasterLoad(source, { count: 0 });
    expect([camera.width, camera.height, near, background]).toEqual([1237, 822, 0.01, [0, 0, 0]]);
    expect(camera.fx).toBeCloseTo((source.intrinsics[0] * 1237) / 648, 9);
    expect(camera.cx).toBeCloseTo((source.intrinsics[2] * 1237) / 648, 9);
    expect(camera.fy).toBeCloseTo((source.intrinsics[4] * 822) / 420, 9);
    expect(camera.cy).toBeCloseTo((source.intrinsics[5] * 822) / 420, 9);
    expect(camera.fx).toBeCloseTo((480.61 * 1237) / 648, 1);
    expect(camera.worldToCamera).toEqual(source.viewmat);
    expect(camera.worldToCamera.slice(12)).toEqual([0, 0, 0, 1]);
  });

  it.runIf(hasData)('the full default load has 2,000,000 splats whose means sum to the documented value', () => {
    const { splats } = buildRasterLoad(source);
    expect(splats.count).toBe(RASTER_LOAD_COUNT);
    const sum = [0, 0, 0];
    for (let i = 0; i < splats.count; i++) for (let a = 0; a < 3; a++) sum[a] += splats.means[3 * i + a];
    ['73246.19', '196994.68', '298331.92'].forEach((p, a) => expectPrinted(sum[a], p, `sum of means[${a}] (float32 storage)`));
    const raw = rasterLoadSplat(source, RASTER_LOAD_COUNT - 1);
    for (let a = 0; a < 3; a++) expect(splats.means[3 * (RASTER_LOAD_COUNT - 1) + a]).toBe(Math.fround(raw.mean[a]));
  });

  it.runIf(hasData)('count gives a prefix of the same sequence', () => {
    const seed = freshSeed();
    const count = 1 + Math.floor(rng(seed)() * 300);
    const small = buildRasterLoad(source, { count });
    const larger = buildRasterLoad(source, { count: count + 50 });
    expect([...small.splats.sh], `seed ${seed}`).toEqual([...larger.splats.sh.subarray(0, count * 48)]);
    expect([...small.splats.opacityLogits], `seed ${seed}`).toEqual([...larger.splats.opacityLogits.subarray(0, count)]);
    // past the fixed 2M the same formulas continue (the 10M-splat scale runs); the hash's domain ends at 2^26
    expect(() => buildRasterLoad(source, { count: 2 ** 26 + 1 })).toThrow(/count/);
    expect(() => buildRasterLoad(source, { count: -1 })).toThrow(/count/);
  });
});
