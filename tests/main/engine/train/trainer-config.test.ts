import { describe, expect, it } from 'vitest';
import { ADC_DEFAULTS, adcRefineStop } from '../../../../main/engine/train/densify-adc.js';
import { defaultTrainerConfig, trainerConfigFromParams, trainParamValues, warmStartConfig } from '../../../../main/engine/train/trainer-config.js';
import { activeShDegree, meansLearningRate } from '../../../../main/engine/train/schedule.js';
import { allParams, getParam, resolveParams, type ParamKey } from '../../../../shared/params/index.js';

describe('trainer configuration', () => {
  it("defaults every user-facing value to the registry's default", () => {
    const config = defaultTrainerConfig();
    const fromRegistry: [unknown, ParamKey][] = [
      [config.iterations, 'train.iterations'],
      [config.strategy, 'train.strategy'],
      [config.maxSplats, 'train.maxSplats'],
      [config.shDegree, 'train.shDegree'],
      [config.antialiased, 'train.antialiased'],
      [config.ssimPadding, 'train.ssimPadding'],
      [config.seed, 'train.seed'],
      [config.initPoints, 'train.initPoints'],
      [config.appearance, 'train.appearance'],
      [config.appearanceLr, 'train.appearanceLr'],
      [config.adc.growGrad2d, 'train.growGrad2d'],
      [config.adc.refineStart, 'train.refineStart'],
      [config.adc.refineEvery, 'train.refineEvery'],
      [config.adc.absgrad, 'train.absgrad'],
      [ADC_DEFAULTS.refineStop, 'train.refineStop'],
      [config.adc.captureRefineStop, 'train.captureRefineStop'],
      [config.mcmc.capMax, 'train.maxSplats'],
    ];
    for (const [value, key] of fromRegistry) expect(value, key).toBe(getParam(key).default);
  });

  it('stops ADC refining at half a short run, and MCMC grows to the run cap', () => {
    expect(adcRefineStop(15_000, 7000)).toBe(3500);
    expect(adcRefineStop(15_000, 40_001)).toBe(15_000);
    const short = defaultTrainerConfig({ iterations: 1000, maxSplats: 20_000 });
    expect(short.adc.refineStop).toBe(500);
    expect(short.mcmc.capMax).toBe(20_000);
    expect(defaultTrainerConfig({ iterations: 1000, adc: { ...ADC_DEFAULTS, refineStop: 700 } }).adc.refineStop).toBe(700);
  });

  it("new runs take the registry's 'auto' colour model; a run recorded before train.appearance existed resumes without one", () => {
    const fresh = resolveParams(allParams().filter((p) => p.key.startsWith('train.')), {});
    expect(trainerConfigFromParams(trainParamValues(fresh)).appearance).toBe('auto');
    const { ['train.appearance']: _dropped, ...older } = fresh;
    expect(trainerConfigFromParams(trainParamValues(older)).appearance).toBe('off');
    expect(trainerConfigFromParams(trainParamValues({ ...fresh, 'train.appearance': 'affine', 'train.appearanceLr': 0.01 }))).toMatchObject({ appearance: 'affine', appearanceLr: 0.01 });
  });

  it('new runs stop densifying captures at the capture refine stop; a run recorded before it existed resumes with the refine stop on captures too', () => {
    const fresh = resolveParams(allParams().filter((p) => p.key.startsWith('train.')), {});
    expect(trainerConfigFromParams(trainParamValues(fresh)).adc.captureRefineStop).toBe(3500);
    const { ['train.captureRefineStop']: _dropped, ...older } = fresh;
    expect(trainerConfigFromParams(trainParamValues(older)).adc.captureRefineStop).toBe(0);
  });

  it('continues trained splats in a warm start: every SH band from step 0, no densification, the final position rate throughout', () => {
    const config = defaultTrainerConfig({ iterations: 200 });
    const warm = warmStartConfig(config);
    expect(activeShDegree(0, warm.shDegree, warm.shDegreeEvery)).toBe(config.shDegree);
    expect(activeShDegree(0, config.shDegree, config.shDegreeEvery)).toBe(0);
    expect(warm.adc.refineStop).toBe(0);
    expect(warm.mcmc.refineStop).toBe(0);
    const end = meansLearningRate(config.rates, 2, config.iterations, config.iterations);
    expect(meansLearningRate(warm.rates, 2, 0, warm.iterations)).toBeCloseTo(end, 15);
    expect(meansLearningRate(warm.rates, 2, 199, warm.iterations)).toBeCloseTo(end, 15);
    expect({ ...warm, shDegreeEvery: undefined, adc: config.adc, mcmc: config.mcmc, rates: config.rates }).toEqual({ ...config, shDegreeEvery: undefined });
  });
});
