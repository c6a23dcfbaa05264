import { describe, expect, it } from 'vitest';
import { createStorage, uploadStorage } from '../../../../main/engine/gpu/buffers.js';
import { colourCorrectedPsnr, colourCorrectedPsnrOnGpu, fitAffineColour } from '../../../../main/engine/train/colour-correct.js';
import { packRgba8 } from '../../../../main/engine/train/loss.js';
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

  it('on the GPU reads the clamped render and its RGBA8 target and gives the host value', async () => {
    const ctx = await testGpu();
    const seed = freshSeed();
    const pixels = 37 * 29;
    const { random, target } = randomPair(seed, pixels);
    const quantized = Float64Array.from(target, (t) => Math.round(t * 255) / 255);
    const rgba = new Float32Array(pixels * 4);
    for (let p = 0; p < pixels; p++) for (let c = 0; c < 4; c++) rgba[4 * p + c] = c === 3 ? 1 : Math.min(1, Math.max(0, 0.8 * quantized[3 * p + c] + 0.1 + (random() - 0.5) * 0.1));
    const render = uploadStorage(ctx.device, 'cc.test.render', rgba);
    // the target after 5 pixels of another image
    const targets = createStorage(ctx.device, 'cc.test.targets', (pixels + 5) * 4);
    ctx.device.queue.writeBuffer(targets, 20, packRgba8(quantized, pixels));
    const got = await colourCorrectedPsnrOnGpu(ctx.device, render, targets, 5, pixels);
    render.destroy();
    targets.destroy();
    expect(got, `seed ${seed}`).toBeCloseTo(colourCorrectedPsnr(rgba, 4, quantized, 3, pixels), 6);
  });
});
