import { describe, expect, it } from 'vitest';
import { EvaluationEvent, JobEvent, MetricsEvent, ProgressEvent } from '../../../shared/contract/events.js';
import { ACTIVE_JOB_STATES, isActiveJobState, JOB_STATES } from '../../../shared/contract/projects.js';
import { metricValuesOf, TrainEventSchema } from '../../../shared/contract/train-events.js';
import { TrainMetricsSchema } from '../../../shared/contract/train-metrics.js';
import { MetricsPointSchema } from '../../../shared/project/manifest.js';

describe('the training event stream', () => {
  it('declares the metric tuple once: the manifest point, the progress event and the metric values carry its keys', () => {
    const tuple = Object.keys(TrainMetricsSchema.shape).sort();
    expect(tuple).toEqual(['itPerS', 'loss', 'psnr', 'splats']);
    expect(Object.keys(MetricsPointSchema.shape).sort()).toEqual(['step', ...tuple].sort());
    for (const key of tuple) expect(Object.keys(ProgressEvent.shape)).toContain(key);
    expect(MetricsEvent.safeParse({ job: 'j', step: 1, values: { loss: 0.1, testPsnr: 20 } }).success).toBe(true);
    expect(MetricsEvent.safeParse({ job: 'j', step: 1, values: { lossy: 0.1 } }).success).toBe(false); // typed: unknown metrics are refused
  });

  it('turns a training step and an evaluation into metric values, and nothing else', () => {
    expect(metricValuesOf({ type: 'progress', stage: 'train', step: 7, total: 10, loss: 0.5, psnr: 21, splats: 9, itPerS: 3, etaS: 1 })).toEqual({ step: 7, values: { loss: 0.5, psnr: 21, splats: 9, itPerS: 3 } });
    expect(metricValuesOf({ type: 'evaluation', step: 10, psnr: 25, ssim: 0.8, views: [] })).toEqual({ step: 10, values: { testPsnr: 25, testSsim: 0.8 } });
    expect(metricValuesOf({ type: 'evaluation', step: 10, psnr: 25, ssim: 0.8, ccPsnr: 26.5, views: [{ name: 'a', psnr: 25, ssim: 0.8, ccPsnr: 26.5 }] })).toEqual({ step: 10, values: { testPsnr: 25, testSsim: 0.8, testCcPsnr: 26.5 } });
    expect(metricValuesOf({ type: 'progress', stage: 'load', step: 0, total: 1 })).toBeUndefined();
    expect(metricValuesOf({ type: 'checkpoint', step: 10, file: '/p/step-0000010.ckpt' })).toBeUndefined();
  });

  it('parses each kind by its type and refuses an unknown one', () => {
    expect(TrainEventSchema.parse({ type: 'state', state: 'running', step: 0, total: 5, run: 'run-001' })).toMatchObject({ type: 'state', run: 'run-001' });
    expect(TrainEventSchema.safeParse({ type: 'snapshot', step: 1, count: 1, data: new ArrayBuffer(32) }).success).toBe(true);
    expect(TrainEventSchema.safeParse({ type: 'metrics', step: 1 }).success).toBe(false);
    // The contract's job event is the state event with the job and project added.
    expect(JobEvent.safeParse({ job: 'j', project: '/p.argo', state: 'paused', step: 3, total: 5 }).success).toBe(true);
  });

  it('carries an evaluation to the studio with every test view by name (the Train view\'s table), and refuses a view without its name', () => {
    const evaluation = { job: 'j', step: 30, psnr: 21, ssim: 0.7, ccPsnr: 22, views: [{ name: 'img_0.png', psnr: 20, ssim: 0.68, ccPsnr: 21 }, { name: 'img_8.png', psnr: 22, ssim: 0.72, ccPsnr: 23 }] };
    expect(EvaluationEvent.parse(evaluation)).toEqual(evaluation);
    expect(EvaluationEvent.safeParse({ ...evaluation, views: [{ psnr: 20, ssim: 0.68 }] }).success).toBe(false);
    expect(EvaluationEvent.safeParse({ ...evaluation, job: undefined }).success).toBe(false);
  });

  it('has one list of active job states, drawn from the job states', () => {
    expect(ACTIVE_JOB_STATES).toEqual(['starting', 'running', 'paused', 'stopping']);
    expect(JOB_STATES.filter(isActiveJobState)).toEqual([...ACTIVE_JOB_STATES]);
  });
});
