import { defineStore } from 'pinia';
import { computed, markRaw, ref, shallowRef } from 'vue';
import type { z } from 'zod';
import type { EvaluationEvent, JobEvent, ProgressEvent } from '../../../shared/contract/events.js';
import type { JobState, TrainSource } from '../../../shared/contract/index.js';
import { ACTIVE_JOB_STATES } from '../../../shared/contract/projects.js';
import type { ProfileReport } from '../../../shared/contract/profile.js';
import { paramsForCommand, type ParamValue } from '../../../shared/params/index.js';
import type { StudioClient } from '../api/client.js';
import { declares } from '../api/services.js';
import { defaultValues } from '../params/form.js';
import { StepRate } from './eta.js';
import { METRIC_KEYS, MetricSeriesSet } from './metric-series.js';
import { useNoticeStore } from './notices.js';

export type { JobState };

/** The train command's parameters that a job started from the studio honours (no `system.*`). */
export function trainJobParams() {
  return paramsForCommand('train').filter((def) => !def.key.startsWith('system.'));
}

/**
 * What the next job trains on. The sample scene becomes a project (`projects.create`) the first
 * time it is trained, so it has cameras, photos, checkpoints and an export like any other project.
 */
export type TrainingSource = { kind: 'sample' } | { kind: 'dataset'; path: string } | { kind: 'project'; path: string; name?: string };

export function describeSource(source: TrainingSource | undefined): string {
  if (!source) return 'Nothing chosen yet';
  if (source.kind === 'sample') return 'Sample scene (procedural torus knot)';
  if (source.kind === 'project') return source.name ? `${source.name} (${source.path})` : source.path;
  return source.path;
}
export type Progress = z.infer<typeof ProgressEvent>;
/** An evaluation's step and its test views' scores. */
export type TestViewsResult = Pick<z.infer<typeof EvaluationEvent>, 'step' | 'views'>;

/** The job the studio follows. */
export interface FollowedJob {
  id: string;
  state: JobState;
  /** The .argo project it trains (scratch projects for bare datasets live in the engine's state folder). */
  project?: string;
  /** Why it is in this state, when the engine says (the error of a failed job, a resume after a restart). */
  reason?: string;
  /** It trains a partition's blocks (train.partitioned): it can stop, not pause. */
  partitioned?: boolean;
}

/** States in which a job holds the engine: no second Start, parameters locked (the contract's list). */
export const ACTIVE_STATES: readonly JobState[] = ACTIVE_JOB_STATES;
/** States from which `train.resume` continues a job from its newest checkpoint. */
export const RESUMABLE_STATES: readonly JobState[] = ['paused', 'stopped', 'interrupted'];

/**
 * Training: the parameter values (registry-driven, `paramsForCommand('train')`), the job the
 * studio follows, its progress, ETA, metrics and GPU profile. The engine's `job` events are the
 * truth about a job's state; `progress`, `metrics` and `profile` events feed the rest. Calls go
 * through the typed client (`client.api.train.*`); a failed call becomes a banner in Train.
 */
export const useTrainingStore = defineStore('training', () => {
  /**
   * Parameters a training job takes, in registry order: the train command's, less the GPU options
   * (`system.*`), which belong to the engine host (Settings) and which `train.start` ignores.
   */
  const params = trainJobParams();
  /** Current values, every parameter present. */
  const values = ref<Record<string, ParamValue>>(defaultValues(params));
  /** Fields holding invalid input (key -> message); a job cannot start while any exist. */
  const fieldErrors = ref<Record<string, string>>({});
  /** The job followed: the one started here, else the newest one whose events arrive. */
  const job = ref<FollowedJob>();
  /** The newest training-step progress (stage 'train', or 'done'): what the bar, step count and ETA show. */
  const progress = ref<Progress>();
  /** What the job does besides stepping (loading, uploading, evaluating), while it does it. */
  const activity = ref<Progress>();
  /** Metric columns (loss, PSNR, splat count, ...), outside reactivity; watch `metricsVersion`. */
  const metrics = markRaw(new MetricSeriesSet());
  const metricsVersion = ref(0);
  /** Why the job's growth stopped at a splat cap (GPU memory), from its progress events: the Train view's banner. */
  const memoryCap = shallowRef<Progress['memoryCap']>();
  /** Per-kernel GPU profile of the job, when the engine reports one. */
  const profile = shallowRef<ProfileReport>();
  /** The newest evaluation of the job, every test view by name (the Train view's table); undefined before the first. */
  const testViews = shallowRef<TestViewsResult>();
  /** What the next job trains on: chosen on Home (the sample scene, a project). */
  const source = ref<TrainingSource>();
  /** The project made from the sample scene by the first Start (later Starts continue it). */
  const sampleProject = ref<string>();
  /** A call to the engine is under way (buttons wait for it). */
  const busy = ref(false);
  /** A pause, resume or stop the engine accepted and has not carried out yet (it checkpoints first). */
  const requested = ref<'pause' | 'resume' | 'stop'>();
  /** Whether this engine serves training at all. */
  const serviceReady = declares('train', 'start');
  /** Steps seen per wall-clock time, for an ETA when the engine sends none. */
  const rate = markRaw(new StepRate());
  /** Bumped on each progress event so `etaS` recomputes. */
  const rateVersion = ref(0);
  let client: StudioClient | undefined;

  const invalid = computed(() => Object.keys(fieldErrors.value).length > 0);
  const active = computed(() => job.value !== undefined && ACTIVE_STATES.includes(job.value.state));
  const canStart = computed(() => serviceReady && source.value !== undefined && !invalid.value && !active.value && !busy.value);
  const canPause = computed(() => job.value?.state === 'running' && !job.value.partitioned && !busy.value && requested.value === undefined);
  const canResume = computed(() => job.value !== undefined && RESUMABLE_STATES.includes(job.value.state) && !busy.value);
  const canStop = computed(() => job.value !== undefined && ['starting', 'running', 'paused'].includes(job.value.state) && !busy.value);

  /** Seconds left: the engine's estimate while running, else the studio's own from the step rate. */
  const etaS = computed<number | undefined>(() => {
    void rateVersion.value;
    if (job.value?.state !== 'running') return undefined;
    const p = progress.value;
    if (!p || p.stage !== 'train' || activity.value) return undefined;
    if (p.etaS !== undefined && Number.isFinite(p.etaS)) return p.etaS;
    return rate.etaS(p.total);
  });

  /**
   * The newest evaluation on the test views: plain PSNR (dB), the colour-corrected PSNR (after each
   * view's best affine colour fit; absent from older engines) and SSIM. Undefined before the first.
   */
  const testScores = computed(() => {
    void metricsVersion.value;
    const psnr = metrics.latest(METRIC_KEYS.testPsnr);
    if (psnr === undefined) return undefined;
    return { psnr, ccPsnr: metrics.latest(METRIC_KEYS.testCcPsnr), ssim: metrics.latest(METRIC_KEYS.testSsim) };
  });

  /** A new job to follow: forget the previous one's progress, charts and profile. */
  function followNew(next: FollowedJob) {
    job.value = next;
    requested.value = undefined;
    metrics.clear();
    metricsVersion.value++;
    progress.value = undefined;
    activity.value = undefined;
    profile.value = undefined;
    testViews.value = undefined;
    memoryCap.value = undefined;
    rate.reset();
    rateVersion.value++;
  }

  /**
   * Whether an event of `jobId` is for the followed job. A job seen for the first time is followed
   * when none is, or when the followed one no longer runs (another window started a new one).
   */
  function follows(jobId: string, state: JobState = 'running', project?: string): boolean {
    if (job.value?.id === jobId) return true;
    if (job.value && active.value) return false;
    followNew({ id: jobId, state, ...(project ? { project } : {}) });
    return true;
  }

  function onJob(e: z.infer<typeof JobEvent>) {
    if (!follows(e.job, e.state, e.project)) return;
    const previous = job.value?.state;
    if (e.state !== previous) requested.value = undefined;
    if (!ACTIVE_STATES.includes(e.state)) activity.value = undefined;
    job.value = { id: e.job, state: e.state, project: e.project, ...(e.reason ? { reason: e.reason } : {}), ...(job.value?.partitioned ? { partitioned: true } : {}) };
    if (e.state !== 'running' || previous !== 'running') {
      rate.reset(); // a pause or a restart is not slow training
      rateVersion.value++;
    }
    if (progress.value && e.total > 0 && progress.value.stage === 'train') progress.value = { ...progress.value, step: Math.max(progress.value.step ?? 0, e.step), total: e.total };
  }

  /** Follows the engine's job, progress, metrics, profile and error events. */
  function attach(c: StudioClient) {
    client = c;
    c.on('job', onJob);
    c.on('progress', (e) => {
      if (!follows(e.job)) return;
      if (e.stage !== 'train' && e.stage !== 'done') {
        activity.value = e;
        return;
      }
      activity.value = undefined;
      progress.value = e;
      if (e.memoryCap && !memoryCap.value) memoryCap.value = markRaw(e.memoryCap);
      if (e.stage === 'train' && e.step !== undefined) {
        rate.add(e.step, performance.now());
        rateVersion.value++;
      }
      // Older engines ended a job with a 'done' progress and no job event.
      if (e.stage === 'done' && job.value && job.value.state !== 'finished') job.value = { ...job.value, state: 'finished' };
    });
    c.on('metrics', (e) => {
      if (!follows(e.job)) return;
      metrics.append(e.step, e.values);
      metricsVersion.value++;
    });
    c.on('evaluation', (e) => {
      if (!follows(e.job)) return;
      // an older evaluation arriving late (intermediate ones are not awaited) never hides a newer one
      if (testViews.value && testViews.value.step > e.step) return;
      testViews.value = markRaw({ step: e.step, views: e.views });
    });
    c.on('profile', (e) => {
      if (job.value?.id !== e.job) return;
      profile.value = markRaw(e.report);
    });
    c.on('error', (e) => {
      if (e.job && job.value?.id === e.job) job.value = { ...job.value, state: 'failed', reason: e.message };
    });
  }

  /** Follows a job another part of the studio started (the Partition panel's Train blocks): the Train view shows it. */
  function follow(next: FollowedJob) {
    if (job.value?.id !== next.id) followNew(next);
    else if (next.partitioned) job.value = { ...job.value, partitioned: true }; // its events came first
  }

  /** Finds a job that runs already (a reloaded page, a second window) and follows it. */
  async function refresh(): Promise<void> {
    if (!client || !declares('train', 'status')) return;
    const { jobs } = await client.api.train.status({});
    const running = jobs.find((j) => ACTIVE_STATES.includes(j.state));
    if (!running || job.value?.id === running.job) return;
    if (job.value && active.value) return;
    followNew({ id: running.job, state: running.state, project: running.project, ...(running.partition ? { partitioned: true } : {}) });
    if (running.total > 0) progress.value = { job: running.job, stage: 'train', step: running.step, total: running.total, fraction: Math.min(1, running.step / running.total) };
  }

  /** Chooses what the next job trains on. */
  function useSource(next: TrainingSource) {
    source.value = next;
  }

  /** What `train.start` gets for the chosen source; the sample scene becomes a project first. */
  async function trainSource(c: StudioClient, chosen: TrainingSource): Promise<TrainSource> {
    if (chosen.kind === 'project') return { kind: 'project', path: chosen.path };
    if (chosen.kind === 'dataset') return { kind: 'dataset', path: chosen.path };
    if (!sampleProject.value) sampleProject.value = (await c.api.projects.create({ source: { kind: 'sample' } })).path;
    return { kind: 'project', path: sampleProject.value };
  }

  async function call<T>(action: (c: StudioClient) => Promise<T>, jobId?: string): Promise<T | undefined> {
    const notices = useNoticeStore();
    if (!client) {
      notices.report({ code: 'unavailable', message: 'Not connected to the engine.' }, 'train', jobId);
      return undefined;
    }
    busy.value = true;
    try {
      return await action(client);
    } catch (error) {
      notices.report(error, 'train', jobId);
      return undefined;
    } finally {
      busy.value = false;
    }
  }

  /**
   * Starts a new run on the chosen source with the current values (Resume, not Start, continues a
   * stopped or interrupted run: the engine would otherwise continue it with its old parameters).
   */
  async function start(): Promise<string | undefined> {
    const chosen = source.value;
    if (!chosen) {
      useNoticeStore().report({ code: 'invalid_argument', message: 'Nothing to train yet.', suggestion: 'Choose the sample scene or a project on Home first.' }, 'train');
      return undefined;
    }
    const started = await call(async (c) => {
      const from = await trainSource(c, chosen);
      const result = await c.api.train.start({ source: from, params: { ...values.value }, ...(from.kind === 'project' ? { newRun: true } : {}) });
      return { id: result.job, project: from.kind === 'project' ? from.path : undefined };
    });
    if (!started) return undefined;
    // Events of the new job may have arrived before the reply; keep what they said.
    if (job.value?.id !== started.id) followNew({ id: started.id, state: 'starting', ...(started.project ? { project: started.project } : {}) });
    return started.id;
  }

  async function control(method: 'pause' | 'resume' | 'stop') {
    const current = job.value;
    if (!current) return;
    const result = await call((c) => c.api.train[method]({ job: current.id }), current.id);
    // The reply is the state at the time of the call; `job` events bring the next ones.
    if (result && job.value?.id === result.job && job.value.state === current.state) {
      if (result.state !== current.state) job.value = { ...job.value, state: result.state };
      else requested.value = method;
    }
  }

  const pause = () => control('pause');
  const resume = () => control('resume');
  const stop = () => control('stop');

  return {
    params, values, fieldErrors, source, sampleProject, job, requested, progress, activity, etaS, metrics, metricsVersion, testScores, testViews, profile, memoryCap, serviceReady, busy,
    invalid, active, canStart, canPause, canResume, canStop, attach, refresh, follow, useSource, start, pause, resume, stop,
  };
});
