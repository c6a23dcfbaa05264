/**
 * The reference's analytic backward against central finite differences (float64) on fresh
 * random scenes, for every parameter group and at the boundary between the stages (mean2d,
 * conic, opacity, colour, depth, normal). Entries whose +-eps perturbation changes a discrete
 * decision (1/255 cut, 0.99 clamp, T stop, depth order, J clamp, colour clamp) are skipped and
 * counted; the rest must agree to a relative L2 error below 2e-5 per group.
 * ARGONAUT_FD_VERBOSE=1 prints every group's report.
 */
import { describe, expect, it } from 'vitest';
import { shCoefficientCount } from '../../shared/scene/splats.js';
import { freshSeed, rng } from '../helpers/random.js';
import { compositeBackward } from './composite-backward.js';
import { compositeImage } from './composite.js';
import { compositeInput, projectionOptions, rasterizeBackward, rasterizeForward, type RasterizeOptions } from './rasterize.js';
import { projectSplats } from './projection.js';
import {
  finiteDifferenceCheck,
  forwardEvaluator,
  linearLoss,
  PARAM_GROUPS,
  randomLossWeights,
  randomScene,
  range,
  type FiniteDifferenceReport,
  type SplatKind,
} from './scenes.js';

const EPS = 1e-6;
const TOLERANCE = 2e-5; // observed < 3e-6 over many seeds; a wrong term gives > 1e-3
const MAX_SKIPPED_FRACTION = 0.1;

function expectReport(report: FiniteDifferenceReport, what: string, seed: number): void {
  const context = `seed ${seed}, ${what}: rel error ${report.relError.toExponential(2)} over ${report.checked} entries (${report.skipped} skipped), |fd| ${report.fdNorm.toExponential(2)}, worst #${report.worst.index} analytic ${report.worst.analytic} fd ${report.worst.fd}`;
  if (process.env.ARGONAUT_FD_VERBOSE) console.log(context);
  expect(report.checked, context).toBeGreaterThan(0);
  expect(report.skipped / (report.checked + report.skipped), context).toBeLessThan(MAX_SKIPPED_FRACTION);
  expect(report.fdNorm, `${context}: the loss does not depend on this group; the check would be vacuous`).toBeGreaterThan(1e-8);
  expect(report.relError, context).toBeLessThan(TOLERANCE);
}

const MIXED: readonly SplatKind[] = ['ordinary', 'ordinary', 'ordinary', 'ordinary', 'tiny', 'huge', 'transparent', 'opaque', 'behind', 'offscreen'];

describe('rasterizer reference: parameter gradients match finite differences', () => {
  for (const antialiased of [false, true]) {
    for (const shDegree of [0, 1, 2, 3]) {
      const mode = antialiased ? 'antialiased' : 'classic';
      it(`${mode}, SH degree ${shDegree} of a degree-3 set, rgb + alpha + depth loss`, () => {
        const seed = freshSeed();
        const rand = rng(seed);
        const options: RasterizeOptions = { antialiased };
        const input = randomScene(rand, { count: 18, width: 37, height: 29, setDegree: 3, shDegree, options, kinds: MIXED });
        const pixels = input.camera.width * input.camera.height;
        const weights = randomLossWeights(rand, pixels, options);
        const grads = rasterizeBackward(input, weights);
        const evaluate = forwardEvaluator(input, weights);
        for (const group of PARAM_GROUPS) {
          const values = input.splats[group];
          let indices = range(values.length);
          if (group === 'sh') {
            // Coefficients beyond the active degree are ignored: exactly zero gradient.
            const K = shCoefficientCount(3);
            const active = shCoefficientCount(shDegree);
            const inactive = indices.filter((j) => Math.floor(j / 3) % K >= active);
            expect(inactive.every((j) => grads.sh[j] === 0), `seed ${seed}: inactive SH coefficients must get 0`).toBe(true);
            indices = indices.filter((j) => Math.floor(j / 3) % K < active);
          }
          expectReport(finiteDifferenceCheck(values, grads[group], indices, EPS, evaluate), group, seed);
        }
      });
    }
  }

  it('median depth, normals and depth distortion losses (both modes)', () => {
    for (const antialiased of [false, true]) {
      const seed = freshSeed();
      const rand = rng(seed);
      const options: RasterizeOptions = { antialiased, medianDepth: true, normals: true, distortion: true };
      const input = randomScene(rand, { count: 16, width: 33, height: 27, setDegree: 1, options, kinds: MIXED });
      const weights = randomLossWeights(rand, input.camera.width * input.camera.height, options);
      const grads = rasterizeBackward(input, weights);
      const evaluate = forwardEvaluator(input, weights);
      for (const group of PARAM_GROUPS) {
        const values = input.splats[group];
        expectReport(finiteDifferenceCheck(values, grads[group], range(values.length), EPS, evaluate), `${group} (aa=${antialiased})`, seed);
      }
    }
  });
});

describe('rasterizer reference: compositing-stage gradients match finite differences', () => {
  for (const antialiased of [false, true]) {
    it(`dL/d(mean2d, conic, opacity, colour, depth, normal), ${antialiased ? 'antialiased' : 'classic'} projection`, () => {
      const seed = freshSeed();
      const rand = rng(seed);
      const options: RasterizeOptions = { antialiased, medianDepth: true, normals: true, distortion: true };
      const input = randomScene(rand, { count: 30, width: 41, height: 35, setDegree: 2, options, kinds: MIXED });
      const projected = projectSplats(input.splats, input.shDegree, input.camera, projectionOptions(options));
      const stage = compositeInput(projected, input.camera, input.background);
      const weights = randomLossWeights(rand, input.camera.width * input.camera.height, options);
      const grads = compositeBackward(stage, weights);
      const evaluate = (): { loss: number; signature: number } => {
        const r = compositeImage(stage, options);
        return { loss: linearLoss(r, weights), signature: r.branchSignature };
      };
      const visible = range(projected.count).filter((i) => projected.visible[i]);
      const entries = (per: number): number[] => visible.flatMap((i) => range(per).map((c) => per * i + c));
      const groups = [
        ['mean2d', 2],
        ['conic', 3],
        ['opacity', 1],
        ['colour', 3],
        ['depth', 1],
        ['normal', 3],
      ] as const;
      for (const [group, per] of groups) {
        const values = projected[group];
        // The conic of a huge splat is ~1e-4: a step relative to the entry keeps it from sweeping pixels across the cut.
        const eps = group === 'conic' ? (j: number) => EPS * Math.max(Math.abs(values[j]), 1e-3) : EPS;
        expectReport(finiteDifferenceCheck(values, grads[group], entries(per), eps, evaluate), group, seed);
      }
    });
  }

  it('the full backward passes the stage gradients through unchanged (mean2d, absgrad)', () => {
    const seed = freshSeed();
    const rand = rng(seed);
    const options: RasterizeOptions = { antialiased: true };
    const input = randomScene(rand, { count: 20, width: 32, height: 24, setDegree: 0, options, kinds: MIXED });
    const weights = randomLossWeights(rand, 32 * 24, options);
    const full = rasterizeBackward(input, weights);
    const projected = rasterizeForward(input).projected;
    const stage = compositeBackward(compositeInput(projected, input.camera, input.background), weights);
    expect([...full.mean2d], `seed ${seed}`).toEqual([...stage.mean2d]);
    expect([...full.absMean2d], `seed ${seed}`).toEqual([...stage.absMean2d]);
  });
});

describe('rasterizer reference: absgrad', () => {
  it('is the sum over pixels of |each pixel’s dL/dmean2d|, while mean2d is the plain sum', () => {
    const seed = freshSeed();
    const rand = rng(seed);
    const options: RasterizeOptions = { antialiased: false };
    const [W, H] = [14, 11];
    const input = randomScene(rand, { count: 12, width: W, height: H, setDegree: 0, options, kinds: ['ordinary', 'huge'] });
    const stage = compositeInput(rasterizeForward(input).projected, input.camera, input.background);
    const weights = randomLossWeights(rand, W * H, options);
    const full = compositeBackward(stage, weights);
    const sumAbs = new Float64Array(2 * 12);
    const sum = new Float64Array(2 * 12);
    for (let p = 0; p < W * H; p++) {
      const one = { rgb: new Float64Array(3 * W * H), alpha: new Float64Array(W * H), depth: new Float64Array(W * H) };
      one.rgb.set(weights.rgb.subarray(3 * p, 3 * p + 3), 3 * p);
      one.alpha[p] = weights.alpha[p];
      one.depth[p] = weights.depth[p];
      const g = compositeBackward(stage, one);
      for (let k = 0; k < 24; k++) {
        sumAbs[k] += Math.abs(g.mean2d[k]);
        sum[k] += g.mean2d[k];
      }
    }
    let cancelled = 0;
    for (let k = 0; k < 24; k++) {
      expect(full.absMean2d[k], `seed ${seed} entry ${k}`).toBeCloseTo(sumAbs[k], 10);
      expect(full.mean2d[k], `seed ${seed} entry ${k}`).toBeCloseTo(sum[k], 10);
      if (full.absMean2d[k] > Math.abs(full.mean2d[k]) * (1 + 1e-6)) cancelled++;
    }
    expect(cancelled, `seed ${seed}: no splat had pixels pulling in opposite directions; the check is vacuous`).toBeGreaterThan(0);
  });
});
