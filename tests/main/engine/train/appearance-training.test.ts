import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { APPEARANCE_GRIDS, gridFloats } from '../../../../main/engine/train/appearance.js';
import { readCheckpoint, writeCheckpoint } from '../../../../main/engine/train/checkpoint.js';
import type { TrainingData } from '../../../../main/engine/train/data.js';
import { sampleScene } from '../../../../main/engine/train/sample-scene.js';
import { defaultTrainerConfig, Trainer, type TrainerConfig } from '../../../../main/engine/train/trainer.js';
import { testGpu } from '../../../helpers/gpu.js';
import { cleanedTempDirs } from '../../../helpers/datasets.js';

const temp = cleanedTempDirs(afterAll);

/** The sample scene as if photographed: each training image darkened or brightened by its own exposure. */
async function exposedScene(exposures: (view: number) => number): Promise<TrainingData> {
  const ctx = await testGpu();
  const data = await sampleScene(ctx, { width: 48, height: 36, views: 16, splats: 600 });
  return {
    ...data,
    photographed: true,
    loadImage: async (i) => (await data.loadImage(i)).map((v) => Math.min(1, v * exposures(i))),
  };
}

const config = (overrides: Partial<TrainerConfig>) =>
  defaultTrainerConfig({ iterations: 60, shDegree: 1, initPoints: 400, seed: 5, adc: { ...defaultTrainerConfig().adc, refineStart: 10, refineEvery: 15, refineStop: 50, resetEvery: 40 }, ...overrides });

async function gridOf(trainer: Trainer): Promise<Float32Array> {
  const blob = (await trainer.checkpointState()).blobs.find((b) => b.name === 'appearance.grid');
  if (!blob) throw new Error('no appearance.grid blob');
  return new Float32Array(blob.data.buffer, blob.data.byteOffset, blob.data.byteLength / 4);
}

describe('training with appearance compensation', () => {
  it("'auto' trains no colour model on synthetic data and the bilateral grid on photographs", async () => {
    const ctx = await testGpu();
    const synthetic = await sampleScene(ctx, { width: 32, height: 24, views: 9, splats: 200 });
    const plain = await Trainer.create(ctx, synthetic, config({ iterations: 2 }));
    expect((await plain.checkpointState()).blobs.some((b) => b.name.startsWith('appearance.'))).toBe(false);
    plain.destroy();
    const photographed = await Trainer.create(ctx, { ...synthetic, photographed: true }, config({ iterations: 2 }));
    const trainViews = synthetic.views.filter((v) => v.split === 'train').length;
    expect((await gridOf(photographed)).length).toBe(gridFloats(APPEARANCE_GRIDS.bilagrid, trainViews));
    photographed.destroy();
  }, 120_000);

  it('a resumed bilagrid run ends bit-identical to the uninterrupted run, grids and moments included', async () => {
    const ctx = await testGpu();
    const data = await exposedScene((i) => 0.7 + 0.05 * (i % 5));
    const cfg = config({ appearance: 'bilagrid', appearanceLr: 0.02 });
    const straight = await Trainer.create(ctx, data, cfg);
    for (let i = 0; i < 60; i++) await straight.trainStep();
    const want = await straight.checkpointState();
    straight.destroy();

    const first = await Trainer.create(ctx, data, cfg);
    for (let i = 0; i < 27; i++) await first.trainStep();
    const state = await first.checkpointState();
    first.destroy();
    const file = path.join(await temp('appearance'), 'step-27.ckpt');
    await writeCheckpoint(file, state.header, state.blobs);
    const resumed = await Trainer.resume(ctx, data, cfg, await readCheckpoint(file), file);
    for (let i = 27; i < 60; i++) await resumed.trainStep();
    const got = await resumed.checkpointState();
    resumed.destroy();
    const names = want.blobs.map((b) => b.name);
    expect(names).toEqual(expect.arrayContaining(['appearance.grid', 'appearance.m', 'appearance.v', 'means.param']));
    expect(got.blobs.map((b) => b.name)).toEqual(names);
    for (const [i, b] of want.blobs.entries()) expect(Buffer.from(got.blobs[i].data).equals(Buffer.from(b.data)), b.name).toBe(true);
  }, 300_000);

  it('refuses, by file and blob, a checkpoint without the colour models the run trains', async () => {
    const ctx = await testGpu();
    const data = await exposedScene(() => 1);
    const off = await Trainer.create(ctx, data, config({ appearance: 'off' }));
    for (let i = 0; i < 3; i++) await off.trainStep();
    const state = await off.checkpointState();
    off.destroy();
    const file = path.join(await temp('appearance'), 'step-3.ckpt');
    await writeCheckpoint(file, state.header, state.blobs);
    await expect(Trainer.resume(ctx, data, config({ appearance: 'affine' }), await readCheckpoint(file), file)).rejects.toMatchObject({
      code: 'bad_input',
      message: expect.stringMatching(/step-3\.ckpt.*appearance\.grid/),
    });
  }, 120_000);

  it("the affine model takes up each image's exposure: its gain follows the exposure the image was given", async () => {
    const ctx = await testGpu();
    const exposure = (i: number) => [0.55, 1, 0.7, 0.85][i % 4];
    const data = await exposedScene(exposure);
    const trainer = await Trainer.create(ctx, data, config({ appearance: 'affine', appearanceLr: 0.2, iterations: 300 }));
    for (let i = 0; i < 300; i++) await trainer.trainStep();
    const grids = await gridOf(trainer);
    trainer.destroy();
    const trainViews = data.views.flatMap((v, i) => (v.split === 'train' ? [i] : []));
    // the mean of the diagonal: the image's gain. The splats take up the mean exposure and the
    // offsets part of the rest, so compare images with each other (identity grids: a ratio of 1)
    const gain = trainViews.map((_, slot) => (grids[12 * slot] + grids[12 * slot + 5] + grids[12 * slot + 10]) / 3);
    const at = (e: number) => trainViews.flatMap((view, slot) => (exposure(view) === e ? [gain[slot]] : []));
    const mean = (values: number[]) => values.reduce((s, v) => s + v, 0) / values.length;
    expect(mean(at(1)) / mean(at(0.55)), `gains ${gain.map((g) => g.toFixed(3)).join(' ')}`).toBeGreaterThan(1.1);
    expect(mean(at(0.85))).toBeGreaterThan(mean(at(0.7)));
  }, 300_000);
});
