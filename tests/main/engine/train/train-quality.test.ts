import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readPly, writePly } from '../../../../main/engine/formats/ply.js';
import { runTrainingJob } from '../../../../main/engine/train/job.js';
import { sampleScene } from '../../../../main/engine/train/sample-scene.js';
import { defaultTrainerConfig, Trainer } from '../../../../main/engine/train/trainer.js';
import { allParams, resolveParams } from '../../../../shared/params/index.js';
import { testGpu } from '../../../helpers/gpu.js';
import { sharedDataset } from '../../../helpers/shared-data.js';
import { cleanedTempDirs } from '../../../helpers/datasets.js';

const temp = cleanedTempDirs(afterAll);

const statue = sharedDataset('colmap_statue');

function trainParams(overrides: Record<string, number | string | boolean>) {
  return { ...resolveParams(allParams().filter((p) => p.key.startsWith('train.')), {}), ...overrides };
}

describe('training reaches a real quality level', () => {
  it('learns the procedural sample scene: test PSNR rises by more than 8 dB', async () => {
    const ctx = await testGpu();
    const data = await sampleScene(ctx, { width: 64, height: 48, views: 24, splats: 1500 });
    const trainer = await Trainer.create(ctx, data, defaultTrainerConfig({ iterations: 250, shDegree: 0, initPoints: 1500, seed: 3 }));
    const before = await trainer.evaluate();
    for (let i = 0; i < 250; i++) await trainer.trainStep();
    const after = await trainer.evaluate();
    trainer.destroy();
    expect(after.psnr - before.psnr, `PSNR ${before.psnr.toFixed(2)} -> ${after.psnr.toFixed(2)}`).toBeGreaterThan(8);
  }, 300_000);

  it.runIf(statue.available)('trains on colmap_statue (downscaled) well above the initial render, and the PLY round-trips exactly', async () => {
    const ctx = await testGpu();
    const params = trainParams({ 'train.iterations': 400, 'train.downscale': 8, 'train.background': 'black', 'train.refineStart': 100, 'train.refineEvery': 50, 'train.refineStop': 300 });
    // The render after one step, from a run of one step: the same first step (seed, view, rates)
    // as the long run's, without evaluating the long run at every one of its 400 steps (which
    // cost as much as the training itself).
    const first = await runTrainingJob(ctx, { source: { kind: 'dataset', path: statue.dir }, params: { ...params, 'train.iterations': 1 } });
    const initial = first.evaluation.psnr;
    const result = await runTrainingJob(ctx, { source: { kind: 'dataset', path: statue.dir }, params });
    const final = result.evaluation.psnr;
    expect(result.steps).toBe(400);
    expect(result.evaluation.views.length).toBe(3);
    expect(final, `test PSNR ${initial.toFixed(2)} after 1 step -> ${final.toFixed(2)} after 400`).toBeGreaterThan(initial + 3);
    expect(final).toBeGreaterThan(14);
    expect(result.splatCount).not.toBe(1443); // densification changed the set
    const dir = await temp('ply');
    const file = path.join(dir, 'splats.ply');
    await writePly(file, result.splats);
    const back = await readPly(file);
    expect(back.count).toBe(result.splats.count);
    for (const key of ['means', 'logScales', 'quats', 'opacityLogits', 'sh'] as const) expect(Buffer.from(back[key].buffer).equals(Buffer.from(result.splats[key].buffer)), key).toBe(true);
  }, 600_000);
});
