import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import { isReactive } from 'vue';
import { contract } from '../../../shared/contract/index.js';
import { paramsForCommand } from '../../../shared/params/index.js';
import { MetricSeriesSet } from '../../../renderer/src/stores/metric-series.js';
import { useNoticeStore } from '../../../renderer/src/stores/notices.js';
import { useTrainingStore } from '../../../renderer/src/stores/training.js';
import { fakeEngine, settle } from '../helpers/engine.js';

beforeEach(() => setActivePinia(createPinia()));

describe('training store', () => {
  it('starts from the registry: every train parameter at its default', () => {
    const training = useTrainingStore();
    expect(training.params).toEqual(paramsForCommand('train'));
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
    expect(training.metricsVersion).toBe(3);
    expect(isReactive(training.metrics)).toBe(false);
    engine.server.emit('progress', { job: 'j1', stage: 'done', fraction: 1 });
    await settle();
    expect(training.job?.state).toBe('finished');
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
