/**
 * Block jobs on a real redis-server (started per file, append-only, fsync always): worker
 * processes (the built CLI, CPU adapter) train a two-block partition; one is killed -9 mid-block
 * and the other continues from the block's checkpoint; Redis restarted mid-run loses no job and a
 * restarted coordinator re-attaches; two workers never share one job; bad queues, passwords and
 * manifest versions are refused by name.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { blockDir, type PartitionedProjectRun } from '../../../../main/engine/partition/block-status.js';
import { BLOCK_QUEUE_NAME, blockJobId } from '../../../../main/engine/partition/block-jobs.js';
import { checkQueueReachable, redisOptionsFromUrl } from '../../../../main/engine/partition/queue-connection.js';
import { partitionedRun, trainPartitioned } from '../../../../main/engine/partition/run-blocks.js';
import { Project } from '../../../../main/engine/project/project.js';
import type { TrainEvent } from '../../../../shared/contract/train-events.js';
import { PROJECT_VERSION } from '../../../../shared/project/manifest.js';
import { cliJson } from '../../../helpers/cli-json.js';
import { cleanedTempDirs } from '../../../helpers/datasets.js';
import { testGpu } from '../../../helpers/gpu.js';
import { partitionedProject } from '../../../helpers/partitions.js';
import { freePort, redisSkipReason, startRedis, type RedisServer } from '../../../helpers/redis-server.js';
import { spawnCli, type CliProcess } from '../../../helpers/spawn-cli.js';
import { waitFor } from '../../../helpers/wait.js';

const temp = cleanedTempDirs(afterAll);
const skip = redisSkipReason();

const workers: CliProcess[] = [];
afterEach(async () => {
  for (const w of workers.splice(0)) {
    if (w.child.exitCode === null && w.child.signalCode === null) {
      w.child.kill('SIGKILL');
      await w.exited;
    }
  }
});

/** A worker process with test timings: a lock of 2 s, stalled jobs looked for every second. */
async function startWorker(url: string, extra: string[] = []): Promise<CliProcess & { id: string }> {
  const w = spawnCli(['worker', '--queue', url, '--lock-duration-ms', '2000', '--stalled-interval-ms', '1000', ...extra]);
  workers.push(w);
  const ready = await w.waitForLine((l) => l.type === 'worker', 30_000);
  return Object.assign(w, { id: ready.worker as string });
}

function coordinate(project: Project, url: string, options: { signal?: AbortSignal; events?: TrainEvent[] } = {}) {
  return testGpu().then((ctx) => trainPartitioned(ctx, project, {
    partition: 'partition-001', queue: url, signal: options.signal, onEvent: (e) => void options.events?.push(e),
  }));
}

const steps = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((n) => /^step-\d+\.ckpt$/.test(n)).map((n) => Number(/\d+/.exec(n)![0])) : []);

describe.skipIf(skip)('block jobs on a real Redis', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => redis?.dispose());

  it('two workers train two blocks; one killed -9 mid-block, the other finishes it from its newest checkpoint (lost steps <= the checkpoint interval)', async () => {
    const every = 20;
    const project = await partitionedProject(await temp('kill'), { 'train.iterations': 80, 'train.checkpointEvery': every });
    const [a, b] = await Promise.all([startWorker(redis.url), startWorker(redis.url)]);
    const events: TrainEvent[] = [];
    const coordinator = coordinate(project, redis.url, { events });
    // The first worker past its second checkpoint is the victim.
    const victim = await waitFor(() => [a, b].find((w) => w.lines.some((l) => l.type === 'log' && String(l.message).includes(`checkpoint at step ${2 * every}`))), { timeoutMs: 60_000, what: 'a worker at its second checkpoint' });
    const survivor = victim === a ? b : a;
    const victimBlock = victim.lines.find((l) => l.type === 'block')!.block as string;
    victim.child.kill('SIGKILL');
    await victim.exited;
    const lastSeen = Math.max(...victim.lines.filter((l) => l.type === 'progress' && l.stage === 'train').map((l) => l.step as number));
    const run = project.latestRun() as PartitionedProjectRun;
    const newest = Math.max(...steps(`${blockDir(project, run.id, victimBlock)}/checkpoints`));
    expect(newest).toBeGreaterThanOrEqual(lastSeen - every);

    const result = await coordinator;
    expect(result.run.status).toBe('finished');
    const blocks = Object.fromEntries(result.run.partition.blocks.map((r) => [r.block, r]));
    expect(blocks[victimBlock]).toMatchObject({ status: 'finished', step: 80, worker: survivor.id });
    // the block's attempt is the queue's (BullMQ's attemptsStarted): the victim's and the survivor's at least (a lock lapsed under load adds one)
    const queue = new Queue(BLOCK_QUEUE_NAME, { connection: redisOptionsFromUrl(redis.url) });
    const victimJob = await queue.getJob(blockJobId({ projectId: project.manifest.id, run: result.run.id, block: victimBlock }));
    await queue.close();
    expect(blocks[victimBlock]!.attempts).toBe(victimJob!.attemptsStarted);
    expect(blocks[victimBlock]!.attempts).toBeGreaterThanOrEqual(2);
    expect(Object.values(blocks).every((r) => r.status === 'finished' && r.worker === survivor.id)).toBe(true);
    // The survivor continued the victim's block from the newest checkpoint there was.
    expect(survivor.lines.some((l) => l.type === 'log' && String(l.message).includes(`${victimBlock} continues from step ${newest}`))).toBe(true);
    expect(survivor.lines.find((l) => l.type === 'job' && l.block === victimBlock)).toMatchObject({ resumedFrom: newest, steps: 80, worker: survivor.id });
    // Merged (merge.ts) from both blocks' splats into the run's.
    expect(result.run.partition.merge.status).toBe('finished');
    expect(existsSync(project.resolve(result.run.outputs.splats!))).toBe(true);
    expect(result.run.outputs.splatCount).toBe(result.run.partition.merge.splatCount);
    // The coordinator showed each block's progress and who trained it.
    expect(events.some((e) => e.type === 'block' && e.status === 'running' && e.worker === victim.lines.find((l) => l.type === 'worker')!.worker)).toBe(true);
    // Both workers' records are in the one manifest (no update lost to the other).
    const saved = (await Project.open(project.file)).manifest.runs.at(-1) as PartitionedProjectRun;
    expect(saved.partition.blocks.map((r) => r.status)).toEqual(['finished', 'finished']);
    expect(saved.partition.merge.status).toBe('finished');
  }, 120_000);

  it('Redis restarted mid-run (SIGTERM, started again on its folder) and the coordinator restarted: no job lost, the jobs found again, none queued twice', async () => {
    const project = await partitionedProject(await temp('restart'), { 'train.iterations': 40, 'train.checkpointEvery': 10 });
    const stop = new AbortController();
    const first = coordinate(project, redis.url, { signal: stop.signal });
    const run = await waitFor(() => (project.latestRun()?.partition ? (project.latestRun() as PartitionedProjectRun) : undefined), { what: 'the partitioned run' });
    const queue = new Queue(BLOCK_QUEUE_NAME, { connection: redisOptionsFromUrl(redis.url) });
    try {
      const ids = run.partition.blocks.map((r) => blockJobId({ projectId: project.manifest.id, run: run.id, block: r.block }));
      await waitFor(async () => ((await Promise.all(ids.map((id) => queue.getJob(id)))).every(Boolean) ? true : undefined), { what: 'both jobs queued' });
      stop.abort();
      expect((await first).run.status).toBe('interrupted');
      const worker = await startWorker(redis.url);
      await worker.waitForLine((l) => l.type === 'progress' && l.stage === 'train' && (l.step as number) > 10, 60_000);
      await redis.restart();
      const logs: string[] = [];
      const again = await testGpu().then((ctx) => trainPartitioned(ctx, project, {
        partition: 'partition-001', queue: redis.url,
        onEvent: (e) => void (e.type === 'log' && logs.push(e.message)),
      }));
      expect(again.run.id).toBe(run.id);
      expect(again.run.status).toBe('finished');
      expect(again.run.partition.blocks.map((r) => [r.status, r.step])).toEqual([['finished', 40], ['finished', 40]]);
      expect(logs.filter((m) => m.includes('re-attached to job')).length + again.alreadyFinished.length).toBe(2);
      const states = await Promise.all(ids.map(async (id) => (await queue.getJob(id))!.getState()));
      expect(states).toEqual(['completed', 'completed']);
      const ours = (await queue.getJobs(['completed', 'failed', 'wait', 'active', 'delayed'])).filter((j) => j.data.projectId === project.manifest.id);
      expect(ours.map((j) => j.id).sort()).toEqual([...ids].sort());
    } finally {
      await queue.close();
    }
  }, 120_000);

  it('two workers, one job: one trains it; a job of a manifest version the worker does not know fails by name, unretried', async () => {
    const project = await partitionedProject(await temp('one-job'), { 'train.iterations': 30, 'train.checkpointEvery': 10 }, 1);
    const [a, b] = await Promise.all([startWorker(redis.url), startWorker(redis.url)]);
    const result = await coordinate(project, redis.url);
    expect(result.run.partition.blocks).toMatchObject([{ status: 'finished', attempts: 1 }]);
    const trainers = [a, b].filter((w) => w.lines.some((l) => l.type === 'block' && l.status === 'running'));
    expect(trainers.map((w) => w.id)).toEqual([result.run.partition.blocks[0]!.worker]);

    const queue = new Queue(BLOCK_QUEUE_NAME, { connection: redisOptionsFromUrl(redis.url) });
    try {
      const job = await queue.add('block', { version: 99, project: project.file, projectId: project.manifest.id, run: result.run.id, block: 'block-00' }, { jobId: 'future.run-001.block-00', attempts: 3 });
      await waitFor(async () => ((await job.getState()) === 'failed' ? true : undefined), { timeoutMs: 20_000, what: 'the job refused' });
      const failed = (await queue.getJob(job.id!))!;
      expect(failed.failedReason).toContain('its project manifest version 99 is not one this worker knows (it reads version 3)');
      expect(failed.attemptsMade).toBe(1);
    } finally {
      await queue.close();
    }
  }, 120_000);

  it('worker --path-map: a job naming the coordinator\'s path is trained from where this worker mounts it; a mapped project that is not there fails by name, unretried', async () => {
    const dir = await temp('path-map');
    const project = await partitionedProject(dir, { 'train.iterations': 10, 'train.checkpointEvery': 5 }, 1);
    const { run } = await partitionedRun(project, { partition: 'partition-001', queue: redis.url });
    const coordinatorDir = '/coordinator/share';
    const worker = await startWorker(redis.url, ['--path-map', `${coordinatorDir}=${dir}`, '--path-map', `/elsewhere=${path.join(dir, 'missing')}`]);
    const queue = new Queue(BLOCK_QUEUE_NAME, { connection: redisOptionsFromUrl(redis.url) });
    try {
      const payload = { version: PROJECT_VERSION, projectId: project.manifest.id, run: run.id, block: 'block-00' };
      const mapped = await queue.add('block', { ...payload, project: `${coordinatorDir}/city.argo` }, { jobId: blockJobId(payload), attempts: 3 });
      await waitFor(async () => ((await mapped.getState()) === 'completed' ? true : undefined), { timeoutMs: 60_000, what: 'the mapped job trained' });
      expect(worker.lines.find((l) => l.type === 'job')).toMatchObject({ project: project.file, block: 'block-00', steps: 10 });
      expect((await Project.open(project.file)).manifest.runs.length).toBe(1); // the worker wrote its block's folder, not the manifest
      expect(existsSync(path.join(blockDir(project, run.id, 'block-00'), 'splats.ply'))).toBe(true);

      const missing = await queue.add('block', { ...payload, project: '/elsewhere/city.argo' }, { jobId: 'missing.run-001.block-00', attempts: 3 });
      await waitFor(async () => ((await missing.getState()) === 'failed' ? true : undefined), { timeoutMs: 20_000, what: 'the unmapped job refused' });
      const failed = (await queue.getJob(missing.id!))!;
      expect(failed.failedReason).toContain(`project file ${path.join(dir, 'missing', 'city.argo')} not found on this worker (the coordinator's /elsewhere/city.argo, mapped by --path-map)`);
      expect(failed.attemptsMade).toBe(1);
    } finally {
      await queue.close();
    }
  }, 120_000);

  it('an unreachable Redis, a wrong password and a missing one are refused by name within seconds (CLI exit 3), the password never shown', async () => {
    const dead = `redis://127.0.0.1:${await freePort()}`;
    const started = performance.now();
    const cli = await cliJson(['worker', '--queue', dead]);
    expect(cli.code).toBe(3);
    expect(cli.error!.message).toContain(`${dead}: cannot reach Redis (ECONNREFUSED)`);
    expect(performance.now() - started).toBeLessThan(5000);

    const project = await partitionedProject(await temp('refused'), { 'train.iterations': 10 });
    const train = await cliJson(['train', project.file, '--partition', 'partition-001', '--queue', dead]);
    expect(train.code).toBe(3);
    expect(train.error!.message).toContain('cannot reach Redis');

    const guarded = await startRedis({ password: 'sesame' });
    try {
      await checkQueueReachable(guarded.url);
      const wrong = `redis://:not-sesame@127.0.0.1:${guarded.port}`;
      const refused = await checkQueueReachable(wrong).then(() => undefined, (e: Error) => e.message);
      expect(refused).toBe(`redis://:***@127.0.0.1:${guarded.port}: Redis refused the password (WRONGPASS): check the user and password in the queue URL`);
      const none = await checkQueueReachable(`redis://127.0.0.1:${guarded.port}`).then(() => undefined, (e: Error) => e.message);
      expect(none).toContain(`redis://127.0.0.1:${guarded.port}: Redis needs a password (NOAUTH)`);
      const viaCli = await cliJson(['worker', '--queue', wrong]);
      expect(viaCli.code).toBe(3);
      expect(JSON.stringify(viaCli.lines) + viaCli.err).not.toContain('not-sesame');
    } finally {
      await guarded.dispose();
    }
  }, 60_000);
});
