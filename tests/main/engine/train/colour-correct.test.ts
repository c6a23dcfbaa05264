import { describe, expect, it } from 'vitest';
import { colourCorrectedPsnr, fitAffineColour } from '../../../../main/engine/train/colour-correct.js';
import { COLOUR_CORRECT_CASES, colourCorrectParity } from '../../../parity/colour-correct.parity.js';
import { testGpu } from '../../../helpers/gpu.js';
import { freshSeed, rng } from '../../../helpers/random.js';

const psnrOf = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let sq = 0;
  for (let i = 0; i < a.length; i++) sq += (a[i] - b[i]) ** 2;
  return -10 * Math.log10(sq / a.length);
};

/** Sum of squared errors of A [x, 1] against the target, unclamped. */
function sse(a: ArrayLike<number>, render: ArrayLike<number>, target: ArrayLike<number>, pixels: number): number {
  let s = 0;
  for (let p = 0; p < pixels; p++)
    for (let r = 0; r < 3; r++) {
      const v = a[4 * r] * render[3 * p] + a[4 * r + 1] * render[3 * p + 1] + a[4 * r + 2] * render[3 * p + 2] + a[4 * r + 3];
      s += (v - target[3 * p + r]) ** 2;
    }
  return s;
}

function randomPair(seed: number, pixels: number) {
  const random = rng(seed);
  const target = Float64Array.from({ length: pixels * 3 }, () => random());
  const render = Float64Array.from(target, (t) => Math.min(1, Math.max(0, t + (random() - 0.5) * 0.3)));
  return { random, target, render };
}

describe('colour-corrected PSNR', () => {
  it('undoes an exposure and white-balance change exactly', () => {
    const seed = freshSeed();
    const pixels = 500;
    const { target } = randomPair(seed, pixels);
    // the render: the target darkened, tinted and lifted (inside [0, 1], so nothing clips)
    const gain = [0.6, 0.7, 0.5];
    const render = Float64Array.from(target, (t, i) => 0.1 + gain[i % 3] * t + 0.05 * target[i - (i % 3)]);
    expect(psnrOf(render, target), `seed ${seed}`).toBeLessThan(20);
    expect(colourCorrectedPsnr(render, 3, target, 3, pixels), `seed ${seed}`).toBeGreaterThan(100);
  });

  it('is the least-squares fit: no coefficient can move without a larger error', () => {
    const seed = freshSeed();
    const pixels = 400;
    const { render, target } = randomPair(seed, pixels);
    const a = fitAffineColour(render, 3, target, 3, pixels);
    const best = sse(a, render, target, pixels);
    for (let k = 0; k < 12; k++)
      for (const step of [1e-3, -1e-3]) {
        const moved = Float64Array.from(a);
        moved[k] += step;
        expect(sse(moved, render, target, pixels), `seed ${seed}, coefficient ${k}`).toBeGreaterThan(best);
      }
  });

  it('is never below the plain PSNR (the identity is one of the transforms it chooses from)', () => {
    const seed = freshSeed();
    const pixels = 300;
    const { render, target } = randomPair(seed, pixels);
    expect(colourCorrectedPsnr(render, 3, target, 3, pixels), `seed ${seed}`).toBeGreaterThanOrEqual(psnrOf(render, target));
  });

  it('stays finite on a flat render: the fit is the mean colour of the target', () => {
    const seed = freshSeed();
    const pixels = 200;
    const { target } = randomPair(seed, pixels);
    const flat = new Float64Array(pixels * 3).fill(0.25);
    const mean = [0, 1, 2].map((c) => target.filter((_, i) => i % 3 === c).reduce((s, v) => s + v, 0) / pixels);
    const toMean = Float64Array.from(target, (_, i) => mean[i % 3]);
    expect(colourCorrectedPsnr(flat, 3, target, 3, pixels)).toBeCloseTo(psnrOf(toMean, target), 6);
  });

  it('with a mask, fits and scores only the kept pixels: what the masked ones hold changes nothing', () => {
    const seed = freshSeed();
    const pixels = 400;
    const { random, render, target } = randomPair(seed, pixels);
    const mask = Uint8Array.from({ length: pixels }, () => (random() < 0.3 ? 0 : 255));
    const other = Float64Array.from(render, (v, i) => (mask[Math.floor(i / 3)] === 0 ? random() : v));
    expect(colourCorrectedPsnr(other, 3, target, 3, pixels, mask)).toBe(colourCorrectedPsnr(render, 3, target, 3, pixels, mask));
    // the same as the unmasked function on the kept pixels alone
    const keep = (a: Float64Array) => Float64Array.from([...Array(pixels).keys()].filter((p) => mask[p] !== 0).flatMap((p) => [a[3 * p], a[3 * p + 1], a[3 * p + 2]]));
    const kept = mask.filter((m) => m !== 0).length;
    expect(colourCorrectedPsnr(render, 3, target, 3, pixels, mask), `seed ${seed}`).toBeCloseTo(colourCorrectedPsnr(keep(render), 3, keep(target), 3, kept), 9);
  });

  it('solves the same fit from centred moments whatever the image is shifted by (the GPU sums centred values)', () => {
    const seed = freshSeed();
    const pixels = 300;
    const { render, target } = randomPair(seed, pixels);
    const a = fitAffineColour(render, 3, target, 3, pixels);
    // the same fit found directly: the normal equations of the raw values
    const m = new Float64Array(16);
    const b = new Float64Array(12);
    for (let p = 0; p < pixels; p++) {
      const x = [render[3 * p], render[3 * p + 1], render[3 * p + 2], 1];
      for (let i = 0; i < 4; i++) {
        for (let j = 0; j < 4; j++) m[4 * i + j] += x[i] * x[j];
        for (let r = 0; r < 3; r++) b[4 * r + i] += x[i] * target[3 * p + r];
      }
    }
    // A's rows satisfy M a_r = b_r
    for (let r = 0; r < 3; r++)
      for (let i = 0; i < 4; i++) {
        const lhs = [0, 1, 2, 3].reduce((s, j) => s + m[4 * i + j] * a[4 * r + j], 0);
        expect(lhs, `seed ${seed}, row ${r}, equation ${i}`).toBeCloseTo(b[4 * r + i], 8);
      }
  });
});

describe('colour-corrected PSNR on the GPU matches the float64 reference', async () => {
  const ctx = await testGpu();
  for (const c of COLOUR_CORRECT_CASES) {
    it(`${c.width}x${c.height}${c.masked ? ', masked' : ''}${c.randomBackground ? ', random background' : ''}`, async () => {
      const seed = freshSeed();
      const r = await colourCorrectParity(ctx, seed, c);
      expect(r.ok, `seed ${seed}: ${r.detail}`).toBe(true);
    });
  }
});
