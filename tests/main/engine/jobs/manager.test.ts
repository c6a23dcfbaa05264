import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForEvent } from '../../../helpers/wait.js';
import { EvaluationEvent } from '../../../../shared/contract/events.js';
import { Engine } from '../../../../main/engine/engine.js';
import { JobManager } from '../../../../main/engine/jobs/manager.js';
import { importDataset } from '../../../../main/engine/project/import.js';
import { parsePly } from '../../../../main/engine/formats/ply.js';
import { engineOptionsFrom } from '../../../../main/engine/options.js';
import { tempDir } from '../../../helpers/datasets.js';
import { tinyDataset } from '../../../helpers/projects.js';

const engine = new Engine(engineOptionsFrom({}));
afterAll(() => engine.dispose());

interface Event {
  name: string;
  payload: Record<string, unknown>;
  at: number;
}

async function manager() {
  const dir = await tempDir('jobs');
  const events: Event[] = [];
  const jobs = new JobManager({ engine, stateDir: path.join(dir, 'state'), emit: (name, payload) => events.push({ name, payload: payload as Record<string, unknown>, at: Date.now() }) });
  await jobs.recover(false);
  const waitFor = (match: (e: Event) => boolean, timeoutMs = 120_000) => waitForEvent(events, match, { timeoutMs });
  const stateOf = (job: string, state: string) => (e: Event) => e.name === 'job' && e.payload.job === job && e.payload.state === state;
  return { dir, jobs, events, waitFor, stateOf };
}

async function project(dir: string, params: Record<string, number>) {
  const ds = await tinyDataset();
  return (await importDataset(ds.root, path.join(dir, 'p.argo'), { params })).project.file;
}

describe('a project job that runs to the end', () => {
  // One job, trained once; each test reads what it left behind.
  let run: Awaited<ReturnType<typeof manager>> & { job: string; file: string };
  beforeAll(async () => {
    const m = await manager();
    const file = await project(m.dir, { 'train.iterations': 150, 'train.checkpointEvery': 50 });
    const { job } = await m.jobs.start({ kind: 'project', path: file }, { 'train.iterations': 150, 'system.backend': 'auto' });
    await m.waitFor(m.stateOf(job, 'finished'));
    run = { ...m, job, file };
  }, 180_000);

  it('goes starting, running, finished, and nothing else', () => {
    expect(run.events.filter((e) => e.name === 'job' && e.payload.job === run.job).map((e) => e.payload.state)).toEqual(['starting', 'running', 'finished']);
  });

  it('reports every training step with the metric tuple and its ETA, then done', () => {
    const progress = run.events.filter((e) => e.name === 'progress' && e.payload.stage === 'train');
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)!.payload).toMatchObject({ job: run.job, step: 150, total: 150, fraction: 1, splats: 5, loss: expect.any(Number), psnr: expect.any(Number), itPerS: expect.any(Number), etaS: expect.any(Number) });
    expect(run.events.find((e) => e.name === 'progress' && e.payload.stage === 'done')!.payload).toMatchObject({ job: run.job, step: 150, fraction: 1 });
  });

  it('sends metrics events with the loss, PSNR and splat count of training steps', () => {
    expect(run.events.find((e) => e.name === 'metrics' && e.payload.job === run.job)!.payload.values).toMatchObject({ loss: expect.any(Number), psnr: expect.any(Number), splats: 5 });
  });

  it('sends the final evaluation with every test view by name (as the contract declares it), and the project keeps those views', () => {
    const evaluations = run.events.filter((e) => e.name === 'evaluation' && e.payload.job === run.job);
    expect(evaluations.length).toBeGreaterThan(0);
    const last = evaluations.at(-1)!.payload;
    expect(EvaluationEvent.safeParse(last).error).toBeUndefined();
    const views = last.views as { name: string; psnr: number }[];
    expect(views.length).toBeGreaterThan(0);
    for (const v of views) expect(Number.isFinite(v.psnr), v.name).toBe(true);
    const saved = JSON.parse(readFileSync(run.file, 'utf8')).runs[0];
    expect(saved.evaluations.at(-1)).toMatchObject({ step: 150, views });
  });

  it('sends live snapshots as binary splats (32 bytes each), never JSON', () => {
    const snapshots = run.events.filter((e) => e.name === 'snapshot');
    expect(snapshots.length).toBeGreaterThan(0);
    for (const s of snapshots) {
      expect(s.payload.data).toBeInstanceOf(ArrayBuffer);
      expect((s.payload.data as ArrayBuffer).byteLength).toBe((s.payload.count as number) * 32);
    }
    // How often they may come is the throttle's (tests/main/engine/jobs/throttle.test.ts), not timed here.
    expect(run.jobs.snapshotStats.get(run.job)!.count).toBe(snapshots.length);
  });

  it('shows the finished job in status and the finished run in its project', () => {
    expect(run.jobs.status()[0]).toMatchObject({ job: run.job, state: 'finished', step: 150, total: 150, run: 'run-001', project: run.file, source: { kind: 'project', path: run.file } });
    expect(JSON.parse(readFileSync(run.file, 'utf8')).runs[0]).toMatchObject({ status: 'finished', step: 150 });
  });

  it("exports the job's result through its project, which records the export", async () => {
    const out = path.join(run.dir, 'job.ply');
    expect(await run.jobs.exportJob(run.job, 'ply', out)).toMatchObject({ path: out, splats: 5, format: 'ply' });
    expect(parsePly(readFileSync(out), out).count).toBe(5);
    expect(JSON.parse(readFileSync(run.file, 'utf8')).exports).toHaveLength(1);
  });
});

describe('the engine host job manager', () => {
  it('pauses with a checkpoint, resumes, stops with a checkpoint, and continues a stopped job from it', async () => {
    const { dir, jobs, events, waitFor, stateOf } = await manager();
    const file = await project(dir, { 'train.iterations': 2000, 'train.checkpointEvery': 0 });
    const { job } = await jobs.start({ kind: 'project', path: file }, {});
    await waitFor((e) => e.name === 'progress' && e.payload.job === job && (e.payload.step as number) >= 20);
    expect(jobs.pause(job)).toMatchObject({ job });
    const paused = await waitFor(stateOf(job, 'paused'));
    const pausedAt = paused.payload.step as number;
    const checkpoints = path.join(dir, 'p.argo.data', 'runs', 'run-001', 'checkpoints');
    const pauseCheckpoint = path.join(checkpoints, `step-${String(pausedAt).padStart(7, '0')}.ckpt`);
    await expect.poll(() => existsSync(pauseCheckpoint)).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8')).runs[0].status).toBe('paused');
    const before = events.length;
    await new Promise((r) => setTimeout(r, 600));
    expect(events.slice(before).filter((e) => e.name === 'progress' && e.payload.stage === 'train')).toEqual([]); // nothing trains while paused
    jobs.resume(job);
    await waitFor((e) => e.name === 'progress' && e.payload.job === job && (e.payload.step as number) > pausedAt + 10);
    expect(jobs.stop(job)).toMatchObject({ job, state: 'stopping' });
    const stopped = await waitFor(stateOf(job, 'stopped'));
    const stoppedAt = stopped.payload.step as number;
    expect(existsSync(path.join(checkpoints, `step-${String(stoppedAt).padStart(7, '0')}.ckpt`))).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8')).runs[0]).toMatchObject({ status: 'stopped', step: stoppedAt });
    // Another job may not train the project while one is active; a stopped job is not active.
    jobs.resume(job);
    const running = await waitFor((e) => stateOf(job, 'running')(e) && e.payload.reason === `continues run-001 from step ${stoppedAt}`);
    expect(running.payload.step).toBe(stoppedAt);
    await expect(jobs.start({ kind: 'project', path: file }, {})).rejects.toMatchObject({ code: 'busy' });
    jobs.stop(job);
    await waitFor((e) => stateOf(job, 'stopped')(e) && e !== stopped);
  }, 180_000);

  it('trains the sample scene and bare datasets in scratch projects of the state folder', async () => {
    const { dir, jobs, waitFor, stateOf } = await manager();
    const ds = await tinyDataset();
    const a = await jobs.start({ kind: 'dataset', path: ds.root }, { 'train.iterations': 10 });
    const b = await jobs.start({ kind: 'sample' }, { 'train.iterations': 3, 'train.initPoints': 300 });
    await waitFor(stateOf(a.job, 'finished'));
    await waitFor(stateOf(b.job, 'finished'), 180_000);
    const status = jobs.status();
    for (const { job } of [a, b]) {
      const s = status.find((j) => j.job === job)!;
      expect(s.project).toBe(path.join(dir, 'state', 'scratch', `${job}.argo`));
      expect(s.state).toBe('finished');
    }
    expect(status.find((j) => j.job === b.job)).toMatchObject({ step: 3, total: 3, source: { kind: 'sample' } });
  }, 240_000);

  it('refuses bad sources before a job exists, naming the path', async () => {
    const { dir, jobs } = await manager();
    await expect(jobs.start({ kind: 'project', path: 'relative.argo' }, {})).rejects.toMatchObject({ code: 'bad_input', message: expect.stringContaining('expected an absolute path') });
    await expect(jobs.start({ kind: 'project', path: path.join(dir, 'none.argo') }, {})).rejects.toMatchObject({ code: 'not_found', message: expect.stringContaining('none.argo: project file not found') });
    await expect(jobs.start({ kind: 'project', path: dir }, {})).rejects.toMatchObject({ code: 'bad_input', message: expect.stringContaining('expected a name ending in .argo') });
    await expect(jobs.start({ kind: 'dataset', path: path.join(dir, 'nothing') }, {})).rejects.toMatchObject({ code: 'not_found' });
    expect(() => jobs.pause('job-nope')).toThrow(expect.objectContaining({ code: 'not_found' }));
    expect(jobs.status()).toEqual([]);
  });
});
