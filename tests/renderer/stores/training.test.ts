import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import { isReactive } from 'vue';
import { contract } from '../../../shared/contract/index.js';
import { paramsForCommand } from '../../../shared/params/index.js';
import { MetricSeriesSet } from '../../../renderer/src/stores/metric-series.js';
import { useNoticeStore } from '../../../renderer/src/stores/notices.js';
import { useTrainingStore } from '../../../renderer/src/stores/training.js';
import { estimateEtaS, StepRate } from '../../../renderer/src/stores/eta.js';
import type { ProjectSummary } from '../../../shared/contract/index.js';
import { fakeEngine, settle } from '../helpers/engine.js';

const PROFILE = { source: 'host' as const, rows: [{ kernel: 'rasterizeForward', totalMs: 12, calls: 10, avgMs: 1.2, percent: 60 }], gpuMs: 20, wallMs: 40 };

/** A fake engine whose train.* and projects.create record their calls and answer like the real one. */
function trainingEngine(options: { failStart?: boolean; status?: { job: string; state: 'running'; step: number; total: number }[] } = {}) {
  const calls: { method: string; args: unknown }[] = [];
  const summary = (path: string): ProjectSummary => ({ id: 'p1', path, name: 'Sample scene', source: { kind: 'sample' }, createdMs: 1, modifiedMs: 1, runs: [] });
  let jobs = 0;
  const engine = fakeEngine({}, {
    projects: {
      create: async (args) => (calls.push({ method: 'projects.create', args }), summary('/projects/Sample scene.argo')),
      open: async ({ path }) => summary(path),
      recent: async () => ({ projects: [] }),
      scene: async () => ({ cameras: [], views: [], points: { positions: new Float32Array(0), colors: new Uint8Array(0), count: 0 } }),
      image: async () => ({ mime: 'image/png' as const, width: 1, height: 1, data: new ArrayBuffer(8) }),
      splats: async () => ({ count: 0, run: 'run-1', step: 0, data: new ArrayBuffer(0) }),
      partition: async () => { throw new Error('not used'); },
      partitions: async () => ({ partitions: [], runs: [] }),
      blockSplats: async () => ({ count: 0, run: 'run-1', step: 0, data: new ArrayBuffer(0) }),
    },
    train: {
      start: async (args) => {
        calls.push({ method: 'train.start', args });
        if (options.failStart) throw Object.assign(new Error('/projects/x.argo: already being trained by job-0; stop it first'), { code: 'busy' });
        return { job: `job-${++jobs}` };
      },
      pause: async ({ job }) => (calls.push({ method: 'train.pause', args: { job } }), { job, state: 'running' as const }),
      resume: async ({ job }) => (calls.push({ method: 'train.resume', args: { job } }), { job, state: 'paused' as const }),
      stop: async ({ job }) => (calls.push({ method: 'train.stop', args: { job } }), { job, state: 'stopping' as const }),
      partitioned: async () => { throw new Error('not used'); },
      status: async () => ({ jobs: (options.status ?? []).map((j) => ({ ...j, source: { kind: 'sample' as const }, project: '/p.argo', run: 'run-1' })) }),
    },
  });
  const job = (id: string, state: 'starting' | 'running' | 'paused' | 'stopping' | 'stopped' | 'finished' | 'failed', step = 0, reason?: string) =>
    engine.server.emit('job', { job: id, state, project: '/projects/Sample scene.argo', step, total: 300, ...(reason ? { reason } : {}) });
  return { ...engine, calls, job };
}

beforeEach(() => setActivePinia(createPinia()));

describe('training store', () => {
  it('starts from the registry: every train parameter at its default', () => {
    const training = useTrainingStore();
    // The GPU options are the engine host's (Settings); train.start ignores them.
    expect(training.params).toEqual(paramsForCommand('train').filter((def) => !def.key.startsWith('system.')));
    expect(training.params.length).toBeGreaterThan(10);
    for (const def of training.params) expect(training.values[def.key]).toBe(def.default);
  });

  it('says whether the engine serves training, from the contract', () => {
    expect(useTrainingStore().serviceReady).toBe(Object.hasOwn(contract.services, 'train'));
  });

  // Once the contract has the train service, starting is covered end to end instead.
  it.skipIf(Object.hasOwn(contract.services, 'train'))('refuses to start where the contract has no train service, and shows why in Train', async () => {
    const engine = fakeEngine();
    const training = useTrainingStore();
    training.attach(engine.client);
    expect(training.canStart).toBe(false);
    await training.start();
    expect(training.job).toBeUndefined();
    expect(useNoticeStore().forScope('train')).toMatchObject([{ code: 'unavailable', message: expect.stringContaining("training service") }]);
  });

  it('follows progress and metrics events of one job, appending metrics outside reactivity', async () => {
    const engine = fakeEngine();
    const training = useTrainingStore();
    training.attach(engine.client);
    engine.server.emit('progress', { job: 'j1', stage: 'train', step: 100, total: 1000, etaS: 90 });
    engine.server.emit('metrics', { job: 'j1', step: 100, values: { loss: 0.2, psnr: 18.5, splats: 50000 } });
    engine.server.emit('metrics', { job: 'j1', step: 200, values: { loss: 0.15, psnr: 20.1, splats: 61000 } });
    engine.server.emit('metrics', { job: 'other', step: 300, values: { loss: 9 } });
    engine.server.emit('metrics', { job: 'j1', step: 150, values: { loss: 7 } });
    await settle();
    expect(training.job).toEqual({ id: 'j1', state: 'running' });
    expect(training.active).toBe(true);
    expect(training.progress).toMatchObject({ step: 100, total: 1000, etaS: 90 });
    expect(training.metrics.get('loss')).toEqual({ key: 'loss', steps: [100, 200], values: [0.2, 0.15] });
    expect(training.metrics.latest('psnr')).toBe(20.1);
    // One bump for following the new job (its columns start empty), one per append.
    expect(training.metricsVersion).toBe(4);
    expect(isReactive(training.metrics)).toBe(false);
    engine.server.emit('progress', { job: 'j1', stage: 'done', fraction: 1 });
    await settle();
    expect(training.job?.state).toBe('finished');
  });

  it('keeps the GPU memory cap a job reports on its progress (the Train view\'s banner) until a new job is followed', async () => {
    const engine = fakeEngine();
    const training = useTrainingStore();
    training.attach(engine.client);
    engine.server.emit('progress', { job: 'j1', stage: 'train', step: 10, total: 100 });
    await settle();
    expect(training.memoryCap).toBeUndefined();
    const cap = { step: 40, splats: 1034, wantedCapacity: 2304, capacity: 1034, neededBytes: 10_565_380, budgetBytes: 7_485_936, message: 'GPU memory: splat growth stopped at step 40, the splat count held at or under 1,034' };
    engine.server.emit('progress', { job: 'j1', stage: 'train', step: 50, total: 100, memoryCap: cap });
    engine.server.emit('progress', { job: 'j1', stage: 'train', step: 60, total: 100, memoryCap: cap });
    await settle();
    expect(training.memoryCap).toEqual(cap);
    engine.server.emit('job', { job: 'j1', state: 'finished', project: '/p.argo', step: 100, total: 100 });
    engine.server.emit('progress', { job: 'j2', stage: 'train', step: 1, total: 100 });
    await settle();
    expect(training.job?.id).toBe('j2');
    expect(training.memoryCap).toBeUndefined();
  });

  it("shows the newest evaluation's test scores, colour-corrected PSNR included, once there is one", async () => {
    const engine = fakeEngine();
    const training = useTrainingStore();
    training.attach(engine.client);
    engine.server.emit('metrics', { job: 'j1', step: 100, values: { loss: 0.2, psnr: 18.5 } });
    await settle();
    expect(training.testScores).toBeUndefined();
    engine.server.emit('metrics', { job: 'j1', step: 500, values: { testPsnr: 21.25, testCcPsnr: 23.5, testSsim: 0.8 } });
    engine.server.emit('metrics', { job: 'j1', step: 1000, values: { testPsnr: 22.75, testCcPsnr: 24.125, testSsim: 0.85 } });
    await settle();
    expect(training.testScores).toEqual({ psnr: 22.75, ccPsnr: 24.125, ssim: 0.85 });
  });

  it("keeps the followed job's newest evaluation with every test view, never an older one arriving late, and forgets it for a new job", async () => {
    const engine = fakeEngine();
    const training = useTrainingStore();
    training.attach(engine.client);
    const views = [{ name: 'img_0.png', psnr: 19.5, ssim: 0.7, ccPsnr: 21 }, { name: 'img_8.png', psnr: 23.25, ssim: 0.8, ccPsnr: 24 }];
    engine.server.emit('evaluation', { job: 'j1', step: 2000, psnr: 21.375, ssim: 0.75, ccPsnr: 22.5, views });
    engine.server.emit('evaluation', { job: 'j1', step: 1000, psnr: 18, ssim: 0.6, views: [{ name: 'img_0.png', psnr: 18, ssim: 0.6 }] });
    engine.server.emit('evaluation', { job: 'other', step: 3000, psnr: 30, ssim: 0.9, views: [] });
    await settle();
    expect(training.testViews).toEqual({ step: 2000, views });
    engine.server.emit('job', { job: 'j1', state: 'finished', project: '/p.argo', step: 2000, total: 2000 });
    engine.server.emit('job', { job: 'j2', state: 'running', project: '/p.argo', step: 0, total: 2000 });
    await settle();
    expect(training.job?.id).toBe('j2');
    expect(training.testViews).toBeUndefined();
  });

  it('needs a source to start, and the sample scene is one', () => {
    const training = useTrainingStore();
    expect(training.source).toBeUndefined();
    training.useSource({ kind: 'sample' });
    expect(training.source).toEqual({ kind: 'sample' });
    expect(training.canStart).toBe(training.serviceReady);
  });

  it('blocks starting while a field is invalid', () => {
    const training = useTrainingStore();
    training.useSource({ kind: 'sample' });
    training.fieldErrors = { 'system.adapter': 'expected a value' };
    expect(training.invalid).toBe(true);
    expect(training.canStart).toBe(false);
  });
});

describe('training store against the train service', () => {
  it('turns the sample scene into a project once, then starts jobs on that project with every parameter', async () => {
    const engine = trainingEngine();
    const training = useTrainingStore();
    training.attach(engine.client);
    training.useSource({ kind: 'sample' });
    training.values['train.iterations'] = 300;
    expect(await training.start()).toBe('job-1');
    expect(training.job).toEqual({ id: 'job-1', state: 'starting', project: '/projects/Sample scene.argo' });
    expect(engine.calls.map((c) => c.method)).toEqual(['projects.create', 'train.start']);
    expect(engine.calls[0].args).toEqual({ source: { kind: 'sample' } });
    const startArgs = engine.calls[1].args as { source: unknown; params: Record<string, unknown> };
    expect(startArgs.source).toEqual({ kind: 'project', path: '/projects/Sample scene.argo' });
    expect(Object.keys(startArgs.params).sort()).toEqual(training.params.map((p) => p.key).sort());
    expect(startArgs.params['train.iterations']).toBe(300);

    engine.job('job-1', 'finished', 300);
    await settle();
    expect(await training.start()).toBe('job-2');
    expect(engine.calls.map((c) => c.method)).toEqual(['projects.create', 'train.start', 'train.start']);
  });

  it('follows the job through its states from job events, and offers only the controls that apply', async () => {
    const engine = trainingEngine();
    const training = useTrainingStore();
    training.attach(engine.client);
    training.useSource({ kind: 'project', path: '/projects/Sample scene.argo' });
    await training.start();
    expect([training.active, training.canStart, training.canPause, training.canStop]).toEqual([true, false, false, true]);

    engine.job('job-1', 'running');
    await settle();
    expect(training.job?.state).toBe('running');
    expect([training.canPause, training.canResume, training.canStop]).toEqual([true, false, true]);

    // The engine accepts the pause and pauses after its checkpoint: "Pausing…" until then.
    await training.pause();
    expect(engine.calls.at(-1)).toEqual({ method: 'train.pause', args: { job: 'job-1' } });
    expect(training.requested).toBe('pause');
    expect(training.canPause).toBe(false);
    engine.job('job-1', 'paused', 120);
    await settle();
    expect(training.job?.state).toBe('paused');
    expect(training.requested).toBeUndefined();
    expect([training.canPause, training.canResume, training.canStop, training.canStart]).toEqual([false, true, true, false]);

    await training.resume();
    expect(training.requested).toBe('resume');
    engine.job('job-1', 'running', 120);
    await settle();
    expect(training.job?.state).toBe('running');

    await training.stop();
    expect(training.job?.state).toBe('stopping');
    engine.job('job-1', 'stopped', 180);
    await settle();
    expect(training.job?.state).toBe('stopped');
    expect([training.active, training.canStart, training.canResume, training.canStop]).toEqual([false, true, true, false]);
  });

  it('marks the job failed with the reason from the engine, and shows a failed call as a banner in Train', async () => {
    const engine = trainingEngine({ failStart: true });
    const training = useTrainingStore();
    training.attach(engine.client);
    training.useSource({ kind: 'project', path: '/projects/x.argo' });
    expect(await training.start()).toBeUndefined();
    expect(training.job).toBeUndefined();
    expect(training.busy).toBe(false);
    expect(useNoticeStore().forScope('train')).toMatchObject([{ code: 'busy', message: expect.stringContaining('already being trained') }]);

    engine.job('job-9', 'running');
    engine.job('job-9', 'failed', 40, 'out of GPU memory');
    await settle();
    expect(training.job).toMatchObject({ id: 'job-9', state: 'failed', reason: 'out of GPU memory' });
    expect(training.canResume).toBe(false);
  });

  it('follows a job another window started only while it follows none that runs', async () => {
    const engine = trainingEngine();
    const training = useTrainingStore();
    training.attach(engine.client);
    engine.job('job-a', 'running');
    engine.server.emit('metrics', { job: 'job-a', step: 10, values: { loss: 0.5 } });
    engine.job('job-b', 'starting');
    await settle();
    expect(training.job?.id).toBe('job-a');
    engine.job('job-a', 'finished', 300);
    engine.job('job-b', 'running');
    await settle();
    expect(training.job?.id).toBe('job-b');
    // A new job starts with empty charts.
    expect(training.metrics.keys()).toEqual([]);
  });

  it('finds a running job after a reload through train.status', async () => {
    const engine = trainingEngine({ status: [{ job: 'job-r', state: 'running', step: 50, total: 200 }] });
    const training = useTrainingStore();
    training.attach(engine.client);
    await training.refresh();
    expect(training.job).toEqual({ id: 'job-r', state: 'running', project: '/p.argo' });
    expect(training.progress).toMatchObject({ step: 50, total: 200, fraction: 0.25 });
  });

  it('keeps the profile of the followed job only', async () => {
    const engine = trainingEngine();
    const training = useTrainingStore();
    training.attach(engine.client);
    engine.job('job-1', 'running');
    engine.server.emit('profile', { job: 'other', step: 10, report: { ...PROFILE, gpuMs: 99 } });
    engine.server.emit('profile', { job: 'job-1', step: 10, report: PROFILE });
    await settle();
    expect(training.profile).toEqual(PROFILE);
    expect(isReactive(training.profile)).toBe(false);
  });

  it("shows the engine's ETA while running, its own estimate when the engine sends none, and none while paused", async () => {
    const engine = trainingEngine();
    const training = useTrainingStore();
    training.attach(engine.client);
    engine.job('job-1', 'running');
    engine.server.emit('progress', { job: 'job-1', stage: 'train', step: 100, total: 1000, etaS: 90 });
    await settle();
    expect(training.etaS).toBe(90);

    engine.server.emit('progress', { job: 'job-1', stage: 'train', step: 110, total: 1000 });
    await settle();
    await new Promise((resolve) => setTimeout(resolve, 50));
    engine.server.emit('progress', { job: 'job-1', stage: 'train', step: 120, total: 1000 });
    await settle();
    // Steps 100 -> 120 in at least 50 ms, 880 left: at least 2.2 s, and not absurdly long.
    expect(training.etaS).toBeGreaterThanOrEqual(2.2);
    expect(training.etaS).toBeLessThan(200);

    engine.job('job-1', 'paused', 120);
    await settle();
    expect(training.etaS).toBeUndefined();
  });
});

describe('ETA from the step rate', () => {
  it('extrapolates the newest samples, and has no answer without progress', () => {
    expect(estimateEtaS([], 100)).toBeUndefined();
    expect(estimateEtaS([{ step: 10, timeMs: 0 }], 100)).toBeUndefined();
    expect(estimateEtaS([{ step: 10, timeMs: 0 }, { step: 10, timeMs: 500 }], 100)).toBeUndefined();
    expect(estimateEtaS([{ step: 10, timeMs: 0 }, { step: 20, timeMs: 1000 }], 100)).toBeCloseTo(8);
    expect(estimateEtaS([{ step: 10, timeMs: 0 }, { step: 20, timeMs: 1000 }], undefined)).toBeUndefined();
    expect(estimateEtaS([{ step: 10, timeMs: 0 }, { step: 120, timeMs: 1000 }], 100)).toBe(0);
  });

  it('follows a change of speed (a bounded window) and restarts when the step goes back', () => {
    const rate = new StepRate();
    for (let i = 0; i <= 30; i++) rate.add(i * 10, i * 1000); // 10 steps/s
    for (let i = 1; i <= 30; i++) rate.add(300 + i * 20, 30_000 + i * 1000); // then 20 steps/s
    expect(rate.etaS(1900)).toBeCloseTo(50); // 1000 left at 20 steps/s
    rate.add(100, 100_000); // a resume from an older checkpoint
    expect(rate.etaS(1900)).toBeUndefined();
    rate.add(110, 101_000);
    expect(rate.etaS(1900)).toBeCloseTo(179);
  });
});

describe('metric series', () => {
  it('appends per metric, ignores non-finite values and steps that do not advance, and clears to a new generation', () => {
    const set = new MetricSeriesSet();
    set.append(1, { loss: 1, psnr: Number.NaN });
    set.append(2, { loss: 0.5, psnr: 12 });
    set.append(2, { loss: 0.1 });
    expect(set.get('loss')).toEqual({ key: 'loss', steps: [1, 2], values: [1, 0.5] });
    expect(set.get('psnr')).toEqual({ key: 'psnr', steps: [2], values: [12] });
    expect(set.keys()).toEqual(['loss', 'psnr']);
    const generation = set.generation;
    set.clear();
    expect(set.keys()).toEqual([]);
    expect(set.generation).toBe(generation + 1);
  });
});
