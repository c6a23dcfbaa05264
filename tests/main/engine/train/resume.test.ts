import { writeFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCheckpoint, writeCheckpoint } from '../../../../main/engine/train/checkpoint.js';
import { sampleScene } from '../../../../main/engine/train/sample-scene.js';
import { defaultTrainerConfig, Trainer } from '../../../../main/engine/train/trainer.js';
import { testGpu } from '../../../helpers/gpu.js';
import { cleanedTempDirs } from '../../../helpers/datasets.js';

const temp = cleanedTempDirs(afterAll);

describe('checkpoints and exact resume', () => {
  // the fast preset's techniques too: the budget's curve from the count alone, the coarse levels by step
  it.each([
    ['densification included', {}, {}],
    ['with a splat budget and coarse-to-fine images', { budget: 900 }, { coarseToFine: { factor: 2, until: 0.5 } }],
    // the fused SH Adam's sparse steps and every group's bf16 moments (checkpoints hold them as f32)
    ['every group\'s moments bf16, sparse Adam', {}, { momentsPrecision: 'bf16-all', sparseAdam: true }],
    // checkpointed after the refine stop: the densifier's state is freed there (a checkpoint holds none)
    ['checkpointed after the refine stop', { refineStop: 20 }, {}],
  ] as const)('a run resumed from a checkpoint ends bit-identical to the uninterrupted run (%s)', async (_, adc, overrides) => {
    const ctx = await testGpu();
    const data = await sampleScene(ctx, { width: 48, height: 36, views: 16, splats: 600 });
    const config = defaultTrainerConfig({ iterations: 60, shDegree: 1, initPoints: 400, seed: 11, ...overrides, adc: { ...defaultTrainerConfig().adc, refineStart: 10, refineEvery: 15, refineStop: 50, resetEvery: 40, ...adc } });
    const straight = await Trainer.create(ctx, data, config);
    for (let i = 0; i < 60; i++) await straight.trainStep();
    const want = await straight.download();
    // the frame's visible capacity (sized by the views' counts, grown after refines) held every view
    expect(straight.visibleOverflows, 'no view overflowed the visible capacity').toBe(0);
    straight.destroy();

    const first = await Trainer.create(ctx, data, config);
    for (let i = 0; i < 26; i++) await first.trainStep();
    const state = await first.checkpointState();
    first.destroy();
    const file = path.join(await temp('ckpt'), 'step-26.ckpt');
    await writeCheckpoint(file, state.header, state.blobs);
    const resumed = await Trainer.resume(ctx, data, config, await readCheckpoint(file), file);
    expect(resumed.step).toBe(26);
    for (let i = 26; i < 60; i++) await resumed.trainStep();
    const got = await resumed.download();
    expect(resumed.visibleOverflows, 'no view overflowed the visible capacity').toBe(0);
    resumed.destroy();
    expect(got.count).toBe(want.count);
    expect(want.count).not.toBe(400); // densification happened on both sides of the checkpoint
    for (const key of ['means', 'logScales', 'quats', 'opacityLogits', 'sh'] as const) {
      expect(Buffer.from(got[key].buffer).equals(Buffer.from(want[key].buffer)), key).toBe(true);
    }
  }, 300_000);

  it('refuses truncated, corrupt and foreign checkpoints with the file named', async () => {
    const dir = await temp('ckpt-bad');
    const good = path.join(dir, 'good.ckpt');
    await writeCheckpoint(good, { step: 1, splatCount: 1, shDegree: 0, random: 1, order: [], orderPosition: 0, nonFiniteSkipped: 0, data: { name: 'x', views: 1, train: 1 }, config: {} }, [{ name: 'means.param', data: new Uint8Array(12) }]);
    const bytes = readFileSync(good);
    const truncated = path.join(dir, 'truncated.ckpt');
    writeFileSync(truncated, bytes.subarray(0, bytes.length - 8));
    await expect(readCheckpoint(truncated)).rejects.toMatchObject({ code: 'bad_input', message: expect.stringContaining('truncated.ckpt: truncated') });
    const foreign = path.join(dir, 'foreign.ckpt');
    writeFileSync(foreign, 'PK\u0003\u0004 not a checkpoint at all');
    await expect(readCheckpoint(foreign)).rejects.toMatchObject({ code: 'bad_input', message: expect.stringContaining('wrong magic') });
    const corrupt = Buffer.from(bytes);
    corrupt.write('{{{{', 16, 'latin1');
    const corruptFile = path.join(dir, 'corrupt.ckpt');
    writeFileSync(corruptFile, corrupt);
    await expect(readCheckpoint(corruptFile)).rejects.toMatchObject({ code: 'bad_input', message: expect.stringContaining('corrupt.ckpt') });
    const newer = Buffer.from(bytes);
    newer.writeUInt32LE(99, 8);
    const newerFile = path.join(dir, 'newer.ckpt');
    writeFileSync(newerFile, newer);
    await expect(readCheckpoint(newerFile)).rejects.toMatchObject({ message: expect.stringContaining('newer than this build') });
  });
});
