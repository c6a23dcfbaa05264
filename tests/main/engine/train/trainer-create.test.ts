import { describe, expect, it } from 'vitest';
import type { TrainingData } from '../../../../main/engine/train/data.js';
import { sampleScene } from '../../../../main/engine/train/sample-scene.js';
import { defaultTrainerConfig, Trainer } from '../../../../main/engine/train/trainer.js';
import { testGpu } from '../../../helpers/gpu.js';
import { freshSeed, rng } from '../../../helpers/random.js';

/** The data with every image held back until the test releases it; the loader's calls in order. */
function gated(data: TrainingData) {
  const calls: number[] = [];
  const gates = new Map<number, () => void>();
  const released = new Set<number>();
  const release = (view: number) => {
    released.add(view);
    gates.get(view)?.();
  };
  const loadImage = async (view: number) => {
    calls.push(view);
    if (!released.has(view)) await new Promise<void>((resolve) => gates.set(view, resolve));
    return data.loadImage(view);
  };
  return { data: { ...data, loadImage, loadImageRgb8: undefined }, calls, release };
}

const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Trainer.create: images load behind the first steps', () => {
  it('a step waits only for its own view, the first epoch loads first, and the run is bit-identical to one with every image loaded first', async () => {
    const ctx = await testGpu();
    const scene = await sampleScene(ctx, { width: 48, height: 36, views: 16, splats: 600 });
    const steps = 40;
    const config = defaultTrainerConfig({ iterations: steps, shDegree: 1, initPoints: 400, seed: 11, adc: { ...defaultTrainerConfig().adc, refineStart: 10, refineEvery: 10, refineStop: 35, resetEvery: 30 } });

    // every image on the GPU before the first step
    const before = gated(scene);
    scene.views.forEach((_, v) => before.release(v));
    const straight = await Trainer.create(ctx, before.data, config);
    await straight.targets.allReady();
    await straight.trainStep();
    const firstEpoch = (await straight.checkpointState()).header.order;
    for (let i = 1; i < steps; i++) await straight.trainStep();
    const want = await straight.download();
    const wantOrder = (await straight.checkpointState()).header.order;
    await straight.settle();
    const wantLosses = straight.losses.map((l) => l.loss);
    straight.destroy();

    // the images arrive while the run trains, in an order of their own
    const overlap = gated(scene);
    const trainer = await Trainer.create(ctx, overlap.data, config);
    expect(trainer.targets.loaded, 'create waited for no image').toBe(0);
    // the first epoch's order (drawn by the trainer's generator) first, then the test views (16
    // views: all requested at once, the loader's in-flight limit)
    expect(overlap.calls).toEqual([...firstEpoch, ...scene.views.flatMap((v, i) => (v.split === 'test' ? [i] : []))]);
    const first = overlap.calls[0];
    for (const v of overlap.calls.slice(1)) if (v !== overlap.calls[2]) overlap.release(v); // all but the first step's view and one more
    let stepped = false;
    const step = trainer.trainStep().then(() => (stepped = true));
    await later(50);
    expect(stepped, 'the first step waits for its view').toBe(false);
    overlap.release(first);
    await step;
    expect(trainer.targets.loaded).toBe(scene.views.length - 1);
    const seed = freshSeed();
    const r = rng(seed);
    const lastAt = 1 + Math.floor(r() * 2); // the held view arrives at step 1 or 2 (its step waits)
    for (let i = 1; i < steps; i++) {
      if (i === lastAt) setTimeout(() => overlap.release(overlap.calls[2]), 5);
      await trainer.trainStep();
    }
    const got = await trainer.download();
    expect((await trainer.checkpointState()).header.order, 'the same views in the same order').toEqual(wantOrder);
    await trainer.settle();
    expect(trainer.losses.map((l) => l.loss), `seed ${seed}`).toEqual(wantLosses);
    trainer.destroy();
    expect(got.count).toBe(want.count);
    expect(want.count).not.toBe(400); // densification ran
    for (const key of ['means', 'logScales', 'quats', 'opacityLogits', 'sh'] as const) {
      expect(Buffer.from(got[key].buffer).equals(Buffer.from(want[key].buffer)), `${key}, seed ${seed}`).toBe(true);
    }
  }, 300_000);

  it('an image that fails to load stops the run at the next step with its error, whichever view it was', async () => {
    const ctx = await testGpu();
    const scene = await sampleScene(ctx, { width: 32, height: 24, views: 9, splats: 200 });
    const trainViews = scene.views.flatMap((v, i) => (v.split === 'train' ? [i] : []));
    const broken = trainViews[trainViews.length - 1];
    const data: TrainingData = { ...scene, loadImage: async (v) => (v === broken ? Promise.reject(new Error(`r_${v}.png: truncated PNG`)) : scene.loadImage(v)) };
    const trainer = await Trainer.create(ctx, data, defaultTrainerConfig({ iterations: 10, shDegree: 0, initPoints: 100, seed: 3 }));
    await trainer.targets.allReady().catch(() => undefined);
    await expect(trainer.trainStep()).rejects.toThrow(`r_${broken}.png: truncated PNG`);
    await expect(trainer.evaluate()).rejects.toThrow(`r_${broken}.png: truncated PNG`);
    trainer.destroy();
  }, 300_000);
});
