import { describe, expect, it } from 'vitest';
import { colourCorrectedPsnr, fitAffineColour } from '../../../../main/engine/train/colour-correct.js';
import { COLOUR_CORRECT_CASES, colourCorrectParity } from '../../../parity/colour-correct.parity.js';
import { readBuffer } from '../../../../main/engine/gpu/buffers.js';
import type { GpuContext } from '../../../../main/engine/gpu/context.js';
import { GpuSplats } from '../../../../main/engine/render/gpu-splats.js';
import { Rasterizer } from '../../../../main/engine/render/rasterizer.js';
import type { PinholeCamera } from '../../../../shared/scene/camera.js';
import type { SplatSet } from '../../../../shared/scene/splats.js';
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

describe('colour-corrected PSNR in evaluation', () => {
  it('with random backgrounds scores the target composited as the loss composites it: never below the plain PSNR', async () => {
    const { orbitCameras, sampleScene } = await import('../../../../main/engine/train/sample-scene.js');
    const { sceneScaleOf } = await import('../../../../main/engine/train/data.js');
    const { defaultTrainerConfig, Trainer } = await import('../../../../main/engine/train/trainer.js');
    const ctx = await testGpu();
    const [width, height] = [40, 30];
    const scene = await sampleScene(ctx, { width, height, views: 17, splats: 400 });
    // seen from further away than the sample's cameras, so the knot leaves background around it;
    // its splats over black and over white give each pixel's coverage a
    const cameras = orbitCameras(17, width, height, 8);
    const views = cameras.map((camera, i) => ({ name: `far_${i}`, camera, split: i % 8 === 0 ? ('test' as const) : ('train' as const) }));
    const overBlack = await renderViews(ctx, scene.truth, cameras, width, height, [0, 0, 0]);
    const overWhite = await renderViews(ctx, scene.truth, cameras, width, height, [1, 1, 1]);
    // premultiplied RGB + coverage byte 1 + 254 a (view-image.ts, alpha 'coverage')
    const rgba = overBlack.map((black, v) => {
      const out = new Uint8Array(width * height * 4);
      for (let p = 0; p < width * height; p++) {
        const uncovered = (overWhite[v][3 * p] - black[3 * p] + overWhite[v][3 * p + 1] - black[3 * p + 1] + overWhite[v][3 * p + 2] - black[3 * p + 2]) / 3;
        for (let c = 0; c < 3; c++) out[4 * p + c] = Math.round(black[3 * p + c] * 255);
        out[4 * p + 3] = 1 + Math.round(254 * Math.min(1, Math.max(0, 1 - uncovered)));
      }
      return out;
    });
    // evaluated over white with the scene's own splats: the render is overWhite, the score the
    // float64 fit of it to the target composited over white (not to the stored colours, black
    // where uncovered: 2.2 dB higher on this scene, the knot's colours let a fit map white to black)
    const data = { ...scene, views, sceneScale: sceneScaleOf(cameras), background: [1, 1, 1] as [number, number, number], loadImageRgb8: async (i: number) => rgba[i] };
    const config = defaultTrainerConfig({ iterations: 1, shDegree: scene.truth.shDegree, initPoints: 300, seed: 3, randomBackground: true });
    const trainer = await Trainer.create(ctx, data, config, { initial: scene.truth });
    const evaluation = await trainer.evaluate();
    trainer.destroy();
    expect(evaluation.psnr).toBeGreaterThan(30);
    const composited = (words: Uint8Array) => Float64Array.from({ length: width * height * 3 }, (_, i) => words[4 * Math.floor(i / 3) + (i % 3)] / 255 + (255 - words[4 * Math.floor(i / 3) + 3]) / 254);
    const testViews = views.flatMap((v, i) => (v.split === 'test' ? [i] : []));
    expect(evaluation.views.map((v) => v.name)).toEqual(testViews.map((i) => views[i].name));
    for (const [k, v] of evaluation.views.entries()) {
      const i = testViews[k];
      expect(v.ccPsnr, v.name).toBeCloseTo(colourCorrectedPsnr(overWhite[i], 3, composited(rgba[i]), 3, width * height), 2);
      expect(v.ccPsnr, v.name).toBeGreaterThan(v.psnr - 0.01);
    }
  }, 120_000);
});

/** RGB renders (clamped) of `splats` from each camera over `background`. */
async function renderViews(ctx: GpuContext, splats: SplatSet, cameras: PinholeCamera[], width: number, height: number, background: [number, number, number]): Promise<Float32Array[]> {
  const rasterizer = await Rasterizer.create(ctx, { passes: 'forward' });
  const gpuSplats = GpuSplats.fromHost(ctx, splats);
  const frame = await rasterizer.createFrame(gpuSplats, width, height);
  const images: Float32Array[] = [];
  for (const camera of cameras) {
    const commands = ctx.commands('cc.test.render');
    rasterizer.encodeForward(commands, frame, camera, { background, antialiased: false, shDegree: splats.shDegree });
    await commands.submit();
    const rgba4 = new Float32Array(await readBuffer(ctx.device, frame.image, width * height * 16));
    images.push(Float32Array.from({ length: width * height * 3 }, (_, i) => Math.min(1, Math.max(0, rgba4[4 * Math.floor(i / 3) + (i % 3)]))));
  }
  frame.destroy();
  gpuSplats.destroy();
  return images;
}
