import { defineStore } from 'pinia';
import { computed, markRaw, ref, shallowRef } from 'vue';
import type { z } from 'zod';
import type { ProgressEvent } from '../../../shared/contract/events.js';
import type { ProfileReport } from '../../../shared/contract/profile.js';
import { paramsForCommand, type ParamValue } from '../../../shared/params/index.js';
import type { StudioClient } from '../api/client.js';
import { callDeclared, declares } from '../api/services.js';
import { defaultValues } from '../params/form.js';
import { MetricSeriesSet } from './metric-series.js';
import { useNoticeStore } from './notices.js';

export type JobState = 'starting' | 'running' | 'paused' | 'stopping' | 'finished' | 'failed';

/** What a job trains on; the engine's job runner takes the same shape (main/engine/train/job.ts). */
export type TrainingSource = { kind: 'sample' } | { kind: 'dataset'; path: string };

export function describeSource(source: TrainingSource | undefined): string {
  if (!source) return 'Nothing chosen yet';
  return source.kind === 'sample' ? 'Sample scene (procedural torus knot)' : source.path;
}
export type Progress = z.infer<typeof ProgressEvent>;

/**
 * Training: the parameter values (registry-driven, `paramsForCommand('train')`), the job the
 * studio follows, its progress, metrics and GPU profile. Progress and metrics come from the
 * contract's `progress` / `metrics` events for whichever job emits them; starting and controlling
 * a job needs the engine's `train` service, which views check with `serviceReady`.
 */
export const useTrainingStore = defineStore('training', () => {
  /** Parameters the train command takes, in registry order. */
  const params = paramsForCommand('train');
  /** Current values, every parameter present. */
  const values = ref<Record<string, ParamValue>>(defaultValues(params));
  /** Fields holding invalid input (key -> message); a job cannot start while any exist. */
  const fieldErrors = ref<Record<string, string>>({});
  /** The job followed: the one started here, else the first one whose events arrive. */
  const job = ref<{ id: string; state: JobState }>();
  const progress = ref<Progress>();
  /** Metric columns (loss, PSNR, splat count, ...), outside reactivity; watch `metricsVersion`. */
  const metrics = markRaw(new MetricSeriesSet());
  const metricsVersion = ref(0);
  /** Per-kernel GPU profile of the job, when the engine reports one. */
  const profile = shallowRef<ProfileReport>();
  /** What the next job trains on: chosen on Home (the sample scene now; projects later). */
  const source = ref<TrainingSource>();
  /** Whether this engine serves training at all. */
  const serviceReady = declares('train', 'start');
  let client: StudioClient | undefined;

  const invalid = computed(() => Object.keys(fieldErrors.value).length > 0);
  const active = computed(() => job.value !== undefined && ['starting', 'running', 'paused', 'stopping'].includes(job.value.state));
  const canStart = computed(() => serviceReady && source.value !== undefined && !invalid.value && !active.value);

  function follows(jobId: string): boolean {
    if (!job.value) job.value = { id: jobId, state: 'running' };
    return job.value.id === jobId;
  }

  /** Follows the engine's progress and metrics events. */
  function attach(c: StudioClient) {
    client = c;
    c.on('progress', (e) => {
      if (!follows(e.job)) return;
      progress.value = e;
      if (e.stage === 'done' && job.value) job.value = { ...job.value, state: 'finished' };
    });
    c.on('metrics', (e) => {
      if (!follows(e.job)) return;
      metrics.append(e.step, e.values);
      metricsVersion.value++;
    });
    c.on('error', (e) => {
      if (e.job && job.value?.id === e.job) job.value = { id: e.job, state: 'failed' };
    });
  }

  async function control(method: 'start' | 'pause' | 'resume' | 'stop', next: JobState, args: Record<string, unknown>) {
    const notices = useNoticeStore();
    const before = job.value;
    try {
      if (before) job.value = { ...before, state: next };
      const result = await callDeclared<{ job: string }>(client, 'train', method, args);
      if (method === 'start') {
        metrics.clear();
        metricsVersion.value++;
        progress.value = undefined;
        profile.value = undefined;
        job.value = { id: result.job, state: 'running' };
      } else if (before) {
        job.value = { ...before, state: method === 'pause' ? 'paused' : method === 'stop' ? 'finished' : 'running' };
      }
    } catch (error) {
      job.value = before;
      notices.report(error, 'train', before?.id);
    }
  }

  /** Chooses what the next job trains on. */
  function useSource(next: TrainingSource) {
    source.value = next;
  }

  /** Starts training the chosen source with the current values (needs the engine's train service). */
  const start = () => control('start', 'starting', { source: source.value, params: { ...values.value } });
  const pause = () => job.value && control('pause', 'paused', { job: job.value.id });
  const resume = () => job.value && control('resume', 'running', { job: job.value.id });
  const stop = () => job.value && control('stop', 'stopping', { job: job.value.id });

  return { params, values, fieldErrors, source, job, progress, metrics, metricsVersion, profile, serviceReady, invalid, active, canStart, attach, useSource, start, pause, resume, stop };
});
