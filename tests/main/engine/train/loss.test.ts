import { describe, expect, it } from 'vitest';
import { testGpu, variantsOf, WEBGPU_DEFAULT_TEST_LIMITS } from '../../../helpers/gpu.js';
import { freshSeed, rng } from '../../../helpers/random.js';
import { lossParity, randomMask } from '../../../parity/loss.parity.js';
import { lossReference } from '../../../reference/loss.js';

describe('loss reference (float64)', () => {
  it('is 0 with SSIM 1 for identical images', () => {
    const img = Float64Array.from({ length: 12 * 9 * 3 }, (_, i) => (i % 7) / 7);
    const r = lossReference(img, img, 12, 9);
    expect(r.loss).toBeCloseTo(0, 12);
    expect(r.ssim).toBeCloseTo(1, 12);
  });

  it.each(['same', 'valid'] as const)('has the gradient finite differences give (%s padding)', (padding) => {
    const seed = freshSeed();
    const random = rng(seed);
    const W = 17;
    const H = 14;
    const target = Float64Array.from({ length: W * H * 3 }, () => random());
    const image = Float64Array.from(target, (t) => t + (random() - 0.5) * 0.3);
    const ref = lossReference(image, target, W, H, padding);
    const eps = 1e-6;
    let num = 0;
    let den = 0;
    for (let probe = 0; probe < 40; probe++) {
      const i = Math.floor(random() * image.length);
      if (Math.abs(image[i] - target[i]) < 1e-3) continue; // |.| kink
      const plus = Float64Array.from(image);
      const minus = Float64Array.from(image);
      plus[i] += eps;
      minus[i] -= eps;
      const fd = (lossReference(plus, target, W, H, padding).loss - lossReference(minus, target, W, H, padding).loss) / (2 * eps);
      num += (fd - ref.grad[i]) ** 2;
      den += fd * fd;
    }
    expect(Math.sqrt(num / den), `seed ${seed}`).toBeLessThan(1e-6);
  });

  it.each(['same', 'valid'] as const)('with a mask, has the gradient finite differences give, and none at masked pixels (%s padding)', (padding) => {
    const seed = freshSeed();
    const random = rng(seed);
    const W = 23;
    const H = 19;
    const target = Float64Array.from({ length: W * H * 3 }, () => random());
    const image = Float64Array.from(target, (t) => t + (random() - 0.5) * 0.3);
    const mask = randomMask(W, H, random);
    const ref = lossReference(image, target, W, H, padding, mask);
    const eps = 1e-6;
    let num = 0;
    let den = 0;
    let probes = 0;
    for (let probe = 0; probe < 60; probe++) {
      const i = Math.floor(random() * image.length);
      if (Math.abs(image[i] - target[i]) < 1e-3) continue; // |.| kink
      const plus = Float64Array.from(image);
      const minus = Float64Array.from(image);
      plus[i] += eps;
      minus[i] -= eps;
      const fd = (lossReference(plus, target, W, H, padding, mask).loss - lossReference(minus, target, W, H, padding, mask).loss) / (2 * eps);
      if (mask[Math.floor(i / 3)] === 0) expect(fd, `masked value ${i}, seed ${seed}`).toBe(0);
      num += (fd - ref.grad[i]) ** 2;
      den += fd * fd;
      probes++;
    }
    expect(probes).toBeGreaterThan(30);
    expect(Math.sqrt(num / den), `seed ${seed}`).toBeLessThan(1e-6);
    for (let p = 0; p < W * H; p++) if (mask[p] === 0) expect([0, 1, 2].map((c) => ref.grad[3 * p + c])).toEqual([0, 0, 0]);
  });

  it('a masked pixel is a zero in every window: what it holds changes nothing, and the means are over the rest', () => {
    const seed = freshSeed();
    const random = rng(seed);
    const W = 20;
    const H = 17;
    const target = Float64Array.from({ length: W * H * 3 }, () => random());
    const image = Float64Array.from(target, (t) => t + (random() - 0.5) * 0.3);
    const mask = randomMask(W, H, random);
    const ref = lossReference(image, target, W, H, 'same', mask);
    // anything under the mask: same loss, same gradient
    const other = Float64Array.from(image, (v, i) => (mask[Math.floor(i / 3)] === 0 ? random() : v));
    const otherTarget = Float64Array.from(target, (v, i) => (mask[Math.floor(i / 3)] === 0 ? random() : v));
    const again = lossReference(other, otherTarget, W, H, 'same', mask);
    expect(again.loss).toBe(ref.loss);
    expect(again.grad).toEqual(ref.grad);
    // zeros under the mask without a mask give the same windows: the L1 mean differs only by its count
    const zeroed = (a: Float64Array) => Float64Array.from(a, (v, i) => (mask[Math.floor(i / 3)] === 0 ? 0 : v));
    const unmasked = lossReference(zeroed(image), zeroed(target), W, H, 'same');
    const kept = mask.reduce((s, m) => s + (m === 0 ? 0 : 1), 0);
    expect(ref.l1).toBeCloseTo((unmasked.l1 * W * H) / kept, 12);
  });

  it("'valid' counts only windows inside the image: a corner pixel is in one window's 1e-6 tail", () => {
    const seed = freshSeed();
    const random = rng(seed);
    const W = 23;
    const H = 16;
    const target = Float64Array.from({ length: W * H * 3 }, () => random());
    const image = Float64Array.from(target, (t) => t + (random() - 0.5) * 0.3);
    // the SSIM part of dL/dI (the L1 part is 0.8 sign / n everywhere)
    const ssimGrad = (padding: 'same' | 'valid', pixel: number) => {
      const r = lossReference(image, target, W, H, padding);
      return Math.hypot(...[0, 1, 2].map((c) => r.grad[3 * pixel + c] - (0.8 * Math.sign(image[3 * pixel + c] - target[3 * pixel + c])) / (W * H * 3)));
    };
    const corner = 0;
    const centre = 8 * W + 11;
    expect(ssimGrad('valid', corner) / ssimGrad('valid', centre), `seed ${seed}`).toBeLessThan(1e-3);
    expect(ssimGrad('same', corner) / ssimGrad('same', centre), `seed ${seed}`).toBeGreaterThan(1e-2);
    expect(lossReference(image, target, W, H, 'valid').ssim).not.toBeCloseTo(lossReference(image, target, W, H, 'same').ssim, 4);
    // images of 10 px or less on a side fall back to the padded mean
    expect(lossReference(image.subarray(0, 10 * 10 * 3), target.subarray(0, 10 * 10 * 3), 10, 10, 'valid').ssim).toBe(lossReference(image.subarray(0, 10 * 10 * 3), target.subarray(0, 10 * 10 * 3), 10, 10, 'same').ssim);
  });
});

describe('loss gradient stays finite where 2 cov(x, y) + C2 = 0', () => {
  it('handles anticorrelated patches (the division-free SSIM derivative)', async () => {
    const ctx = await testGpu();
    // a checkerboard against its inverse: strongly anticorrelated windows everywhere
    const W = 24;
    const H = 24;
    const { lossReference: ref } = await import('../../../reference/loss.js');
    const image = new Float64Array(W * H * 3);
    const target = new Float64Array(W * H * 3);
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++)
        for (let c = 0; c < 3; c++) {
          const v = (x + y) % 2 ? 0.52 : 0.48;
          image[3 * (y * W + x) + c] = v;
          target[3 * (y * W + x) + c] = 1 - v;
        }
    const r = ref(image, target, W, H);
    expect(r.grad.every(Number.isFinite)).toBe(true);
    void ctx;
  });
});

describe('loss kernel matches the reference', async () => {
  const ctx = await testGpu();
  for (const [w, h, padding, masked, randomBackground] of [
    [16, 16, 'same', false, false],
    [37, 29, 'same', false, false],
    [64, 48, 'same', false, false],
    [37, 29, 'valid', false, false],
    [64, 48, 'valid', false, false],
    [9, 40, 'valid', false, false],
    [37, 29, 'same', true, false],
    [64, 48, 'same', true, false],
    [64, 48, 'valid', true, false],
    [37, 29, 'valid', false, true],
    [64, 48, 'same', true, true],
  ] as const) {
    it(`${w}x${h} (${padding} SSIM${masked ? ', masked' : ''}${randomBackground ? ', random background' : ''})`, async () => {
      const seed = freshSeed();
      const r = await lossParity(ctx, seed, w, h, padding, masked, randomBackground);
      expect(r.ok, `seed ${seed}: ${r.detail}`).toBe(true);
    });
  }
});

describe('SSIM within the workgroup storage every WebGPU device has', () => {
  it('ssim_forward and ssim_backward declare at most 16,384 B at the 16x16 tile (read from the WGSL, both variants)', async () => {
    const ctx = await testGpu();
    const { workgroupMemoryBytes } = await import('../../../../main/engine/gpu/wgsl-analysis.js');
    for (const variant of variantsOf(ctx)) {
      const source = ctx.kernels.source('loss', variant, {});
      expect(workgroupMemoryBytes(source, 'ssim_forward')).toBe(13_728);
      expect(workgroupMemoryBytes(source, 'ssim_backward')).toBe(13_104);
    }
    expect(13_728).toBeLessThanOrEqual(WEBGPU_DEFAULT_TEST_LIMITS.maxComputeWorkgroupStorageSize);
  });
});

describe('random backgrounds (train.alpha random)', () => {
  it('are a pure function of seed and step, uniform-looking in [0, 1], and differ between steps and seeds', async () => {
    const { randomBackgroundColour } = await import('../../../../main/engine/train/random-background.js');
    expect(randomBackgroundColour(3, 17)).toEqual(randomBackgroundColour(3, 17));
    expect(randomBackgroundColour(3, 17)).not.toEqual(randomBackgroundColour(3, 18));
    expect(randomBackgroundColour(3, 17)).not.toEqual(randomBackgroundColour(4, 17));
    const values = Array.from({ length: 3000 }, (_, step) => randomBackgroundColour(0, step)).flat();
    expect(values.every((v) => v >= 0 && v <= 1)).toBe(true);
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    expect(Math.abs(mean - 0.5)).toBeLessThan(0.02);
    expect(values.filter((v) => v < 0.1).length / values.length).toBeGreaterThan(0.08);
  });

  it("the trainer's config takes it from train.alpha", async () => {
    const { trainerConfigFromParams, trainParamValues } = await import('../../../../main/engine/train/trainer-config.js');
    expect(trainerConfigFromParams(trainParamValues({ 'train.alpha': 'random' })).randomBackground).toBe(true);
    expect(trainerConfigFromParams(trainParamValues({})).randomBackground).toBe(false);
    expect(trainerConfigFromParams(trainParamValues({ 'train.alpha': 'mask' })).randomBackground).toBe(false);
  });
});

describe('SSIM padding of a run', () => {
  it("new runs take the registry's 'valid'; a run recorded before the parameter existed resumes with 'same'", async () => {
    const { trainerConfigFromParams, trainParamValues } = await import('../../../../main/engine/train/trainer-config.js');
    const { allParams, resolveParams } = await import('../../../../shared/params/index.js');
    const fresh = resolveParams(allParams().filter((p) => p.key.startsWith('train.')), {});
    expect(trainerConfigFromParams(trainParamValues(fresh)).ssimPadding).toBe('valid');
    const { ['train.ssimPadding']: _dropped, ...older } = fresh;
    expect(trainerConfigFromParams(trainParamValues(older)).ssimPadding).toBe('same');
  });
});
