import { describe, expect, it } from 'vitest';
import { benchLoss, lossBenchPair } from '../../../../main/engine/train/bench-loss.js';
import { testGpu } from '../../../helpers/gpu.js';
import { lossReference } from '../../../reference/loss.js';

/** The pair as RGB floats: the image's rgb, the target's bytes / 255. */
function rgbOf(width: number, height: number) {
  const { image, target } = lossBenchPair(width, height);
  const P = width * height;
  const img = Float64Array.from({ length: P * 3 }, (_, i) => image[4 * Math.floor(i / 3) + (i % 3)]);
  const tgt = Float64Array.from({ length: P * 3 }, (_, i) => ((target[Math.floor(i / 3)] >>> (8 * (i % 3))) & 0xff) / 255);
  return { img, tgt };
}

describe('bench loss', () => {
  it('is a fixed pair: the same bytes every time, unmasked, SSIM far from 0 and 1', () => {
    const a = lossBenchPair(50, 40);
    const b = lossBenchPair(50, 40);
    expect(Buffer.from(a.image.buffer).equals(Buffer.from(b.image.buffer))).toBe(true);
    expect(Buffer.from(a.target.buffer).equals(Buffer.from(b.target.buffer))).toBe(true);
    expect(a.target.every((w) => w >>> 24 === 255)).toBe(true);
    const { img, tgt } = rgbOf(50, 40);
    const ssim = lossReference(img, tgt, 50, 40, 'valid').ssim;
    expect(ssim).toBeGreaterThan(0.2);
    expect(ssim).toBeLessThan(0.9);
  });

  it('times the loss pair and reports the loss value of the float64 reference', async () => {
    const ctx = await testGpu();
    const [width, height] = [70, 45];
    const r = await benchLoss(ctx, { width, height, padding: 'valid', warmup: 1, iterations: 3, profileIterations: 1 });
    const { img, tgt } = rgbOf(width, height);
    const ref = lossReference(img, tgt, width, height, 'valid');
    expect(r.loss).toBeCloseTo(ref.loss, 5);
    expect(r.ssim).toBeCloseTo(ref.ssim, 5);
    expect(r.loss_samples_ms).toHaveLength(3);
    expect(r.loss_ms).toBeGreaterThan(0);
    expect(r.colour_correct_ms).toBeGreaterThan(0);
    expect(r.kernels.map((k) => k.kernel).sort()).toEqual(['loss.ssim_backward', 'loss.ssim_forward']);
    expect(Object.keys(r.workgroup_memory_bytes).sort()).toEqual([`ssim_backward (${r.variant})`, `ssim_forward (${r.variant})`]);
  });
});
