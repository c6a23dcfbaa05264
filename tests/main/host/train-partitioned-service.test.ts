/**
 * `train.partitioned` through the real contract runtime with a real engine: a tiny two-block
 * project trained as a job in the engine (no queue), its block and merge events reaching the
 * client as a renderer gets them, stopped (resumable) and resumed to a finished merge; an unknown
 * partition, an unreachable queue and a wrong password refused by name with the password never
 * shown; on a password queue, resumed with the password the engine kept in memory, coordinating
 * an in-process worker to a finished merge; no pause; after an engine restart, a job whose queue needs the password it does not keep
 * waits to be started again, one without continues by itself.
 */
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { Events } from '../../../shared/contract/index.js';
import { Engine } from '../../../main/engine/engine.js';
import { engineOptionsFrom } from '../../../main/engine/options.js';
import type { PartitionedProjectRun } from '../../../main/engine/partition/block-status.js';
import { openGpu } from '../../../main/engine/gpu/context.js';
import { startBlockWorker } from '../../../main/engine/partition/worker.js';
import { Project } from '../../../main/engine/project/project.js';
import { cleanedTempDirs } from '../../helpers/datasets.js';
import { testBackend, testLimits } from '../../helpers/gpu.js';
import { hostSession } from '../../helpers/host-client.js';
import { partitionedProject } from '../../helpers/partitions.js';
import { freePort, redisSkipReason, startRedis } from '../../helpers/redis-server.js';
import { waitFor } from '../../helpers/wait.js';

const temp = cleanedTempDirs(afterAll);
const engine = new Engine(engineOptionsFrom({}));
afterAll(() => engine.dispose());

type Seen = { [N in keyof Events]?: z.infer<Events[N]>[] };
function recorder(client: ReturnType<typeof hostSession>['client']) {
  const seen: Seen = {};
  const on = client.on.bind(client) as (name: string, handler: (e: unknown) => void) => void;
  for (const name of ['job', 'block', 'merge', 'progress', 'error', 'log'] as const) on(name, (e) => void ((seen[name] ??= []) as unknown[]).push(e));
  return seen;
}

describe('train.partitioned: a partitioned run as a job of the engine host', () => {
  it('trains both blocks in the engine and merges them; stopped mid-block it is resumable, and resumed it finishes the same run', async () => {
    const dir = await temp('host-partitioned');
    const project = await partitionedProject(dir, { 'train.iterations': 40, 'train.checkpointEvery': 10 });
    const { client, close } = hostSession(engine, `${dir}/state`);
    const seen = recorder(client);
    try {
      const { job } = await client.api.train.partitioned({ project: project.file, partition: 'partition-001', mergeFineTune: 2 });
      await expect(client.api.train.pause({ job })).rejects.toMatchObject({ code: 'invalid_argument', message: expect.stringContaining('cannot pause') });
      // Stopped once block-01 has its first checkpoint (block-00 is finished by then).
      await waitFor(() => seen.log?.find((e) => e.message.includes('checkpoint at step') && e.message.includes('block-01')), { timeoutMs: 120_000, what: "block-01's first checkpoint" });
      await client.api.train.stop({ job });
      await waitFor(() => seen.job?.find((e) => e.job === job && e.state === 'stopped'), { timeoutMs: 60_000, what: 'the job stopped', lastSeen: () => JSON.stringify(seen.job?.map((e) => e.state)) });
      const stopped = (await Project.open(project.file)).latestRun() as PartitionedProjectRun;
      expect(stopped.status).toBe('interrupted');
      expect(stopped.partition.blocks.map((b) => b.status)).toEqual(['finished', 'queued']);
      expect(seen.merge ?? []).toEqual([]);
      const [status] = (await client.api.train.status({})).jobs;
      expect(status).toMatchObject({ job, state: 'stopped', project: project.file, run: stopped.id, partition: { partition: 'partition-001', mergeFineTune: 2 } });

      await client.api.train.resume({ job });
      const finished = await waitFor(() => seen.job?.find((e) => e.job === job && e.state === 'finished'), { timeoutMs: 120_000, what: 'the job finished', lastSeen: () => JSON.stringify([seen.job?.at(-1), seen.error]) });
      expect(finished.run).toBe(stopped.id);
      // Block events named each block, who trained it and its splats once finished; the merge reported its result.
      const blockDone = (seen.block ?? []).filter((e) => e.job === job && e.status === 'finished');
      expect(blockDone.map((e) => [e.block, e.worker, e.step])).toEqual([['block-00', 'in-process', 40], ['block-01', 'in-process', 40]]);
      expect(blockDone.every((e) => e.splats && existsSync(e.splats))).toBe(true);
      expect(seen.progress?.some((e) => e.job === job && e.stage === 'train')).toBe(true);
      const merged = (seen.merge ?? []).find((e) => e.job === job && e.status === 'finished');
      expect(merged?.splatCount).toBeGreaterThan(0);
      const run = (await Project.open(project.file)).latestRun() as PartitionedProjectRun;
      expect(run).toMatchObject({ id: stopped.id, status: 'finished', partition: { merge: { status: 'finished', fineTuneSteps: 2 } } });
      expect(run.partition.blocks.map((b) => [b.status, b.attempts])).toEqual([['finished', 1], ['finished', 2]]);
      expect(merged!.splats).toBe(project.resolve(run.outputs.splats!));
      // The panel's listing (through the job's open project) shows the finished run.
      const listed = await client.api.projects.partitions({ project: project.file });
      expect(listed.runs.at(-1)).toMatchObject({ run: run.id, status: 'finished' });
    } finally {
      close();
    }
  }, 300_000);

  it('an unknown partition and an unreachable queue are the call\'s errors, by name, the password never shown', async () => {
    const dir = await temp('host-partitioned-bad');
    const project = await partitionedProject(dir, { 'train.iterations': 10 });
    const { client, close } = hostSession(engine, `${dir}/state`);
    try {
      await expect(client.api.train.partitioned({ project: project.file, partition: 'partition-009' })).rejects.toMatchObject({ code: 'bad_input', message: `${project.file}: no partition partition-009 (it has partition-001)` });
      const port = await freePort();
      const refused = await client.api.train.partitioned({ project: project.file, partition: 'partition-001', queue: `redis://:sesame@127.0.0.1:${port}` }).then(() => undefined, (e: Error & { code: string }) => e);
      expect(refused).toMatchObject({ code: 'bad_input', message: expect.stringContaining(`redis://:***@127.0.0.1:${port}: cannot reach Redis (ECONNREFUSED)`) });
      expect(JSON.stringify(refused)).not.toContain('sesame');
      await expect(client.api.train.partitioned({ project: project.file, partition: 'partition-001', queue: 'http://127.0.0.1:6379' })).rejects.toMatchObject({ code: 'bad_input', message: expect.stringContaining('must start with redis:// or rediss://') });
      expect((await client.api.train.status({})).jobs).toEqual([]); // no job was made
    } finally {
      close();
    }
  }, 60_000);

  it.skipIf(redisSkipReason())('a wrong queue password is refused by name; a job on a password queue keeps the password out of train.status and the journal; resumed, it coordinates a worker to a finished merge', async () => {
    const dir = await temp('host-partitioned-redis');
    const project = await partitionedProject(dir, { 'train.iterations': 10 });
    const redis = await startRedis({ password: 'sesame' });
    const { client, close } = hostSession(engine, `${dir}/state`);
    const seen = recorder(client);
    try {
      const wrong = `redis://:not-sesame@127.0.0.1:${redis.port}`;
      const refused = await client.api.train.partitioned({ project: project.file, partition: 'partition-001', queue: wrong }).then(() => undefined, (e: Error & { code: string }) => e);
      expect(refused).toMatchObject({ code: 'bad_input', message: `redis://:***@127.0.0.1:${redis.port}: Redis refused the password (WRONGPASS): check the user and password in the queue URL` });
      expect(JSON.stringify(refused)).not.toContain('not-sesame');
      // The right password: the job waits for workers (none here); stopped, it leaves the run resumable.
      const { job } = await client.api.train.partitioned({ project: project.file, partition: 'partition-001', queue: redis.url });
      await waitFor(async () => ((await Project.open(project.file)).latestRun()?.partition?.blocks.every((b) => b.status === 'queued') ? true : undefined), { what: 'the blocks queued' });
      const [status] = (await client.api.train.status({})).jobs;
      expect(status!.partition!.queue).toBe(`redis://:***@127.0.0.1:${redis.port}`);
      await client.api.train.stop({ job });
      const { readFile } = await import('node:fs/promises');
      await waitFor(async () => ((await readFile(`${dir}/state/jobs.json`, 'utf8')).includes('"stopped"') ? true : undefined), { what: 'the journal says stopped' });
      const journal = await readFile(`${dir}/state/jobs.json`, 'utf8');
      expect(journal).toContain(`redis://:***@127.0.0.1:${redis.port}`);
      expect(journal + (await readFile(project.file, 'utf8'))).not.toContain('sesame');

      // Resumed (the password from the engine's memory), with a worker taking the jobs: block events name it, the merge finishes.
      const worker = await startBlockWorker({ queue: redis.url, openGpu: () => openGpu({ backend: testBackend(), kernelVariant: 'auto', limits: testLimits() }) });
      try {
        await client.api.train.resume({ job });
        await waitFor(() => seen.job?.find((e) => e.job === job && e.state === 'finished'), { timeoutMs: 120_000, what: 'the queued job finished', lastSeen: () => JSON.stringify([seen.job?.at(-1), seen.error]) });
      } finally {
        await worker.close();
      }
      const blockDone = (seen.block ?? []).filter((e) => e.job === job && e.status === 'finished');
      expect(blockDone.map((e) => [e.block, e.worker]).sort()).toEqual([['block-00', worker.id], ['block-01', worker.id]]);
      expect(seen.merge?.some((e) => e.job === job && e.status === 'finished')).toBe(true);
      expect(JSON.stringify(seen.log ?? []) + JSON.stringify(seen.job ?? [])).not.toContain('sesame');
    } finally {
      close();
      await redis.dispose();
    }
  }, 180_000);

  it('after an engine restart: a job on a password queue is interrupted (saying why), one in the engine continues and finishes', async () => {
    const dir = await temp('host-partitioned-restart');
    const project = await partitionedProject(dir, { 'train.iterations': 10, 'train.checkpointEvery': 5 });
    const { writeFile, mkdir } = await import('node:fs/promises');
    await mkdir(`${dir}/state`, { recursive: true });
    const now = new Date().toISOString();
    const record = (job: string, partition: Record<string, unknown>) => ({ job, source: { kind: 'project', path: project.file }, project: project.file, state: 'running', step: 0, total: 0, params: {}, newRun: false, recoveries: 0, createdAt: now, updatedAt: now, partition });
    await writeFile(`${dir}/state/jobs.json`, JSON.stringify({ version: 1, jobs: [record('job-a', { partition: 'partition-001', queue: 'redis://:***@queue:6379' }), record('job-b', { partition: 'partition-001' })] }));
    const { client, jobs, close } = hostSession(engine, `${dir}/state`);
    const seen = recorder(client);
    try {
      await jobs.recover(true);
      const finished = await waitFor(() => seen.job?.find((e) => e.job === 'job-b' && e.state === 'finished'), { timeoutMs: 120_000, what: 'job-b finished', lastSeen: () => JSON.stringify([seen.job?.at(-1), seen.error]) });
      expect(finished.run).toBe('run-001');
      const status = Object.fromEntries((await client.api.train.status({})).jobs.map((j) => [j.job, j.state]));
      expect(status).toEqual({ 'job-a': 'interrupted', 'job-b': 'finished' });
      expect(seen.log?.some((e) => e.message.includes('redis://:***@queue:6379, whose password the engine does not keep'))).toBe(true);
      await expect(client.api.train.resume({ job: 'job-a' })).rejects.toMatchObject({ code: 'invalid_argument', message: expect.stringContaining('needs a password, which the engine does not keep: train the blocks again') });
    } finally {
      close();
    }
  }, 180_000);
});
