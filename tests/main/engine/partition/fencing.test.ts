/**
 * Fencing a block's writes (block-status.ts): a writer whose block was taken over by a newer
 * attempt (a zombie worker: stalled past its lock, the job handed to another) stops without
 * writing its status file, checkpoints or splats again, and the coordinator ignores a status file
 * of an older attempt than it knows. With a real Redis: a worker whose job lock is gone stops
 * training the block at once.
 */
import { existsSync, readdirSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { blockDir, BlockOwnershipLost, blockStatusFile, checkBlockOwner, mergeBlockStatuses, readBlockStatus, writeBlockStatus } from '../../../../main/engine/partition/block-status.js';
import { BLOCK_QUEUE_NAME, blockJobId } from '../../../../main/engine/partition/block-jobs.js';
import { trainBlock } from '../../../../main/engine/partition/block-train.js';
import { redisOptionsFromUrl } from '../../../../main/engine/partition/queue-connection.js';
import { partitionedRun } from '../../../../main/engine/partition/run-blocks.js';
import { startBlockWorker } from '../../../../main/engine/partition/worker.js';
import { PROJECT_VERSION } from '../../../../shared/project/manifest.js';
import type { TrainEvent } from '../../../../shared/contract/train-events.js';
import { cleanedTempDirs } from '../../../helpers/datasets.js';
import { testGpu } from '../../../helpers/gpu.js';
import { partitionedProject } from '../../../helpers/partitions.js';
import { redisSkipReason, startRedis } from '../../../helpers/redis-server.js';
import { waitFor } from '../../../helpers/wait.js';

const temp = cleanedTempDirs(afterAll);
const checkpointSteps = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((n) => /^step-\d+\.ckpt$/.test(n)).map((n) => Number(/\d+/.exec(n)![0])) : []);

describe('fenced block writes', () => {
  it('two attempts: the older is refused before every write once the newer took the block over, and its file is ignored', async () => {
    const project = await partitionedProject(await temp('fence'), { 'train.iterations': 60, 'train.checkpointEvery': 10 });
    const { run } = await partitionedRun(project, { partition: 'partition-001' });
    const ctx = await testGpu();
    let newer: Awaited<ReturnType<typeof readBlockStatus>>;
    const older = trainBlock(ctx, project, run, 'block-00', {
      worker: 'older:1',
      between: async ({ step }) => {
        if (step !== 25) return;
        // attempt 2 takes the block over, as a second worker does after the first one's lock lapsed
        const current = (await readBlockStatus(project, run.id, 'block-00'))!;
        newer = { ...current, attempts: current.attempts + 1, worker: 'newer:2', status: 'running' };
        await writeBlockStatus(project, run.id, newer);
      },
    });
    const refused = await older.then(() => undefined, (error: unknown) => error);
    expect(refused).toBeInstanceOf(BlockOwnershipLost);
    expect((refused as Error).message).toContain('attempt 2 (newer:2) took the block over from attempt 1 (older:1)');
    // nothing written after the takeover: the newer's record stands, no checkpoint past step 20, no splats
    expect(await readBlockStatus(project, run.id, 'block-00')).toEqual(newer);
    expect(Math.max(...checkpointSteps(`${blockDir(project, run.id, 'block-00')}/checkpoints`))).toBe(20);
    expect(existsSync(`${blockDir(project, run.id, 'block-00')}/splats.ply`)).toBe(false);
    await expect(checkBlockOwner(project, run.id, { ...newer!, attempts: 1 })).rejects.toBeInstanceOf(BlockOwnershipLost);
    await expect(checkBlockOwner(project, run.id, newer!)).resolves.toBeUndefined();

    // the coordinator: the newer attempt's record merged; an older one's write after it ignored
    expect(await mergeBlockStatuses(project, run)).toBe(true);
    expect(run.partition.blocks[0]).toMatchObject({ attempts: 2, worker: 'newer:2' });
    await writeBlockStatus(project, run.id, { ...newer!, attempts: 1, worker: 'older:1', status: 'failed', step: 59 });
    expect(await mergeBlockStatuses(project, run)).toBe(false);
    expect(run.partition.blocks[0]).toMatchObject({ attempts: 2, worker: 'newer:2', status: 'running' });

    // the next attempt (3) starts above every earlier one, and above the queue's attempt when that is higher
    const next = await trainBlock(ctx, project, run, 'block-00', { worker: 'third:3', attempt: 5 });
    expect(next.record).toMatchObject({ attempts: 5, status: 'finished', worker: 'third:3', step: 60 });
    expect(next.resumedFrom).toBe(20);
  }, 120_000);

  describe.skipIf(redisSkipReason())('with a real Redis', () => {
    it('a worker whose job lock is gone (stalled, the job free for another) stops training the block without writing again', async () => {
      const redis = await startRedis();
      const project = await partitionedProject(await temp('fence-lock'), { 'train.iterations': 2000, 'train.checkpointEvery': 50 }, 1);
      const { run } = await partitionedRun(project, { partition: 'partition-001', queue: redis.url });
      const events: TrainEvent[] = [];
      // no stalled check here: nobody takes the job over, the test only takes the lock away
      const worker = await startBlockWorker({ queue: redis.url, openGpu: testGpu, lockDurationMs: 2000, stalledIntervalMs: 600_000, onEvent: (e) => void events.push(e) });
      const queue = new Queue(BLOCK_QUEUE_NAME, { connection: redisOptionsFromUrl(redis.url) });
      try {
        const payload = { version: PROJECT_VERSION, project: project.file, projectId: project.manifest.id, run: run.id, block: 'block-00' };
        const jobId = blockJobId(payload);
        await queue.add('block', payload, { jobId, attempts: 1 });
        await waitFor(() => events.find((e) => e.type === 'progress' && e.stage === 'train' && e.step >= 5), { timeoutMs: 60_000, what: 'training under way' });
        // what a lapsed lock looks like to Redis: the job's lock key gone
        const client = new Redis(redisOptionsFromUrl(redis.url));
        try {
          expect(await client.del(`bull:${BLOCK_QUEUE_NAME}:${jobId}:lock`)).toBe(1);
        } finally {
          client.disconnect();
        }
        const lost = await waitFor(() => events.find((e) => e.type === 'log' && e.message.includes('lost its lock')), { timeoutMs: 30_000, what: 'the worker stopping' });
        expect(lost).toMatchObject({ level: 'warn' });
        const file = blockStatusFile(project, run.id, 'block-00');
        const written = (await readBlockStatus(project, run.id, 'block-00'))!;
        const lastStep = Math.max(...events.filter((e) => e.type === 'progress' && e.stage === 'train').map((e) => (e as { step: number }).step));
        await new Promise((resolve) => setTimeout(resolve, 1500));
        // stopped: no step, status write or checkpoint after the loss
        expect(Math.max(...events.filter((e) => e.type === 'progress' && e.stage === 'train').map((e) => (e as { step: number }).step))).toBe(lastStep);
        expect(lastStep).toBeLessThan(2000);
        expect(await readBlockStatus(project, run.id, 'block-00')).toEqual(written);
        expect(written.status).toBe('running');
        expect(existsSync(file)).toBe(true);
        expect(Math.max(0, ...checkpointSteps(`${blockDir(project, run.id, 'block-00')}/checkpoints`))).toBeLessThanOrEqual(lastStep);
      } finally {
        await worker.close();
        await queue.close();
        await redis.dispose();
      }
    }, 120_000);
  });
});
