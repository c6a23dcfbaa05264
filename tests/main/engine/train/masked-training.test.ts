import { describe, expect, it } from 'vitest';
import type { TrainingData } from '../../../../main/engine/train/data.js';
import { sampleScene } from '../../../../main/engine/train/sample-scene.js';
import { defaultTrainerConfig, Trainer } from '../../../../main/engine/train/trainer.js';
import { testGpu } from '../../../helpers/gpu.js';
import { rng } from '../../../helpers/random.js';

/**
 * The sample scene's views as 8-bit RGB + mask (what view-image.ts gives a masked view): the
 * left third of every image masked, and under it `fill` (the true pixels or noise).
 */
function maskedData(base: TrainingData, images: Float32Array[], fill: 'truth' | 'noise'): TrainingData {
  const random = rng(99);
  const rgba = images.map((rgb, v) => {
    const { width, height } = base.views[v].camera;
    const out = new Uint8Array(width * height * 4);
    for (let p = 0; p < width * height; p++) {
      const masked = p % width < width / 3;
      for (let c = 0; c < 3; c++) out[4 * p + c] = masked && fill === 'noise' ? Math.floor(random() * 256) : Math.round(rgb[3 * p + c] * 255);
      out[4 * p + 3] = masked ? 0 : 255;
    }
    return out;
  });
  return { ...base, loadImageRgb8: async (i) => rgba[i] };
}

async function train(data: TrainingData, steps: number) {
  const ctx = await testGpu();
  const config = defaultTrainerConfig({ iterations: steps, shDegree: 0, initPoints: 300, seed: 5, lossEvery: 1, adc: { ...defaultTrainerConfig().adc, refineStart: 8, refineEvery: 8, refineStop: steps } });
  const trainer = await Trainer.create(ctx, data, config);
  for (let i = 0; i < steps; i++) await trainer.trainStep();
  await trainer.settle();
  const evaluation = await trainer.evaluate();
  const splats = await trainer.download();
  const losses = trainer.losses.map((l) => [l.loss, l.psnr]);
  trainer.destroy();
  return { evaluation, splats, losses };
}

describe('training with masks', () => {
  it('what masked pixels hold changes nothing: losses, evaluation and splats bit-identical; without the mask the noise is learned', async () => {
    const ctx = await testGpu();
    const scene = await sampleScene(ctx, { width: 40, height: 30, views: 9, splats: 400 });
    const images = await Promise.all(scene.views.map((_, i) => scene.loadImage(i)));
    const clean = await train(maskedData(scene, images, 'truth'), 24);
    const noisy = await train(maskedData(scene, images, 'noise'), 24);
    expect(noisy.losses).toEqual(clean.losses);
    expect(noisy.evaluation.psnr).toBe(clean.evaluation.psnr);
    expect(noisy.evaluation.ccPsnr).toBe(clean.evaluation.ccPsnr); // the colour fit, too, is over the kept pixels only
    expect(noisy.splats.count).toBe(clean.splats.count);
    for (const key of ['means', 'logScales', 'opacityLogits', 'sh'] as const) {
      expect(Buffer.from(noisy.splats[key].buffer).equals(Buffer.from(clean.splats[key].buffer)), key).toBe(true);
    }
    // the same noise, unmasked (the mask byte 255): a different run
    const unmaskedNoise = maskedData(scene, images, 'noise');
    const load = unmaskedNoise.loadImageRgb8!;
    const visible = await train({ ...unmaskedNoise, loadImageRgb8: async (i) => (await load(i)).map((b, j) => (j % 4 === 3 ? 255 : b)) }, 24);
    expect(visible.losses).not.toEqual(clean.losses);
  }, 300_000);
});
