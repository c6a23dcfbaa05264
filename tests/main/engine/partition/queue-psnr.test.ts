/**
 * The scale-out criterion (issue 19, docs/scale.md): a small rendered scene partitioned into two
 * blocks trains through the queue (a real redis-server, two worker processes of the built CLI on
 * the CPU adapter), merges, and scores on the project's held-out views within MERGED_WITHIN_DB of
 * the same scene trained whole with the same steps and parameters (the same evaluation code for both).
 */
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addPartition } from '../../../../main/engine/partition/partitions.js';
import { trainPartitioned } from '../../../../main/engine/partition/run-blocks.js';
import { measureSeams } from '../../../../main/engine/partition/seams.js';
import { trainingDataFromPath } from '../../../../main/engine/train/dataset-data.js';
import { importDataset } from '../../../../main/engine/project/import.js';
import { trainProject } from '../../../../main/engine/project/train-run.js';
import { cleanedTempDirs } from '../../../helpers/datasets.js';
import { testGpu } from '../../../helpers/gpu.js';
import { freshSeed, rng } from '../../../helpers/random.js';
import { redisSkipReason, startRedis, type RedisServer } from '../../../helpers/redis-server.js';
import { spawnCli, type CliProcess } from '../../../helpers/spawn-cli.js';
import { writeRenderedCity } from './city-dataset.js';
import { syntheticCity } from './synthetic-city.js';

const temp = cleanedTempDirs(afterAll);
const skip = redisSkipReason();
const STEPS = 300;
/**
 * Merged minus whole is two effects of opposite sign (docs/scale.md): with the same steps a block's
 * views each get about 1.6 times the steps of the whole run's (13 of 21 training views per block),
 * 0 to +0.5 dB away from the borders, while the seam costs near them (up to -2.3 dB on those
 * pixels). Over 9 seeds it ran from -0.41 to +0.52 dB (seed 3129338732: +0.52, past the 0.5 this
 * file held, failing a loaded full run). That sum cannot tell a broken merge: one that keeps each
 * block's splats uncropped (the overlap drawn twice) scored -0.49 on that seed, 1.02 dB under the
 * right merge, within even the old 0.5. AWAY_BELOW_WHOLE_DB does.
 */
const MERGED_WITHIN_DB = 1;
/**
 * Away from the borders the seam plays no part and the blocks trained their views more often: the
 * merged scene scored +0.01 to +0.51 dB over the whole run's same pixels in 7 seeds, the uncropped
 * merge -0.62 (a neighbour's overlap splats drawn over the core). At most this far below.
 */
const AWAY_BELOW_WHOLE_DB = 0.3;
/**
 * Not a speed bound (no test asserts a time): 118-237 s measured on the shared 2-core machine,
 * 160-254 s here, and over 240 s in 3 of 9 runs at load 5-6 (two timed out at the old 240 s).
 */
const TIMEOUT_MS = 480_000;

const workers: CliProcess[] = [];
afterEach(async () => {
  for (const w of workers.splice(0)) {
    if (w.child.exitCode === null && w.child.signalCode === null) {
      w.child.kill('SIGINT');
      await w.exited;
    }
  }
});

describe.skipIf(skip)('a partitioned run against the scene trained whole', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => redis?.dispose());

  it(`two blocks through the queue on two workers merge to a test PSNR within ${MERGED_WITHIN_DB} dB of the whole scene's (${STEPS} steps each)`, async () => {
    const ctx = await testGpu();
    const seed = freshSeed();
    const random = rng(seed);
    const dir = await temp('queue-psnr');
    const city = syntheticCity(random, { cols: 4, rows: 1, camerasPerObject: 6 });
    await writeRenderedCity(ctx, city, path.join(dir, 'city'), random);
    const { project } = await importDataset(path.join(dir, 'city'), path.join(dir, 'city.argo'), { params: { 'train.iterations': STEPS, 'train.checkpointEvery': 100 } });
    const partition = await addPartition(project, { blocks: 2, method: 'kd', overlap: 0.2 });
    const started = Promise.all([0, 1].map(async () => {
      const w = spawnCli(['worker', '--queue', redis.url]);
      workers.push(w);
      return (await w.waitForLine((l) => l.type === 'worker', 30_000)).worker as string;
    }));

    const whole = await trainProject(ctx, project, { newRun: true });
    expect(whole.run.status).toBe('finished');
    const wholePsnr = whole.evaluation.psnr;

    const ids = await started;
    const blocks = await trainPartitioned(ctx, project, { partition: partition.id, queue: redis.url });
    expect(blocks.run.status).toBe('finished');
    expect(blocks.run.params).toEqual(whole.run.params);
    expect(blocks.run.partition.blocks.map((b) => [b.status, b.step])).toEqual([['finished', STEPS], ['finished', STEPS]]);
    expect(blocks.run.partition.blocks.every((b) => ids.includes(b.worker!))).toBe(true);
    const merged = blocks.run.partition.merge;
    expect(merged.status).toBe('finished');
    const evaluation = merged.evaluation!;
    // the whole run's pixels split by the same borders: what near and away score without any seam
    const testViews = await trainingDataFromPath(path.join(dir, 'city'), { filter: (v) => v.split === 'test' });
    const wholeSeams = await measureSeams(ctx, whole.splats, testViews, partition, { borderPx: merged.seams!.borderPx, antialiased: whole.run.params['train.antialiased'] === true });
    const pair = (s: { nearPsnr: number; awayPsnr: number }) => `${s.nearPsnr.toFixed(2)} / ${s.awayPsnr.toFixed(2)}`;
    const message = `seed ${seed}: whole ${wholePsnr.toFixed(2)} dB, merged ${evaluation.psnr.toFixed(2)} dB (SSIM ${whole.evaluation.ssim.toFixed(4)} / ${evaluation.ssim.toFixed(4)}); near / away the borders: merged ${pair(merged.seams!)}, whole ${pair(wholeSeams!)} dB`;
    console.info(message);
    // both the same held-out views, both non-trivial (the untrained initialisation scores far lower)
    expect(evaluation.views, message).toBe(whole.evaluation.views.length);
    expect(Number.isFinite(evaluation.psnr) && Number.isFinite(evaluation.ssim), message).toBe(true);
    expect(wholePsnr, message).toBeGreaterThan(18);
    expect(evaluation.psnr, message).toBeGreaterThan(18);
    expect(Math.abs(evaluation.psnr - wholePsnr), message).toBeLessThanOrEqual(MERGED_WITHIN_DB);
    expect(merged.seams!.awayPsnr - wholeSeams!.awayPsnr, message).toBeGreaterThanOrEqual(-AWAY_BELOW_WHOLE_DB);
    expect(blocks.run.evaluations.at(-1)).toMatchObject({ psnr: evaluation.psnr, ssim: evaluation.ssim });
  }, TIMEOUT_MS);
});
