/**
 * What a training run is configured with. The user-facing values default to the parameter
 * registry's (shared/params/registry.ts); the engine's own knobs (loss readback cadence, learning
 * rates, ADC's and MCMC's thresholds) have their one table beside the code that reads them.
 */
import { paramDefault, type ParamsWithPrefix, type ParamValuesOf } from '../../../shared/params/index.js';
import { adcRefineStop, ADC_DEFAULTS, type AdcConfig } from './densify-adc.js';
import { MCMC_DEFAULTS, type McmcConfig } from './densify-mcmc.js';
import type { DensifyStrategyName } from './densify-strategy.js';
import type { SsimPadding } from './loss.js';
import { DEFAULT_LEARNING_RATES, type LearningRates } from './schedule.js';

/** The registry's `train.*` values, typed (resolveParams over paramsWithPrefix('train.')). */
export type TrainParamValues = ParamValuesOf<ParamsWithPrefix<'train.'>>;

export interface TrainerConfig {
  iterations: number;
  strategy: DensifyStrategyName;
  maxSplats: number;
  shDegree: number;
  antialiased: boolean;
  /** Border handling of the SSIM term (kernels/loss.wgsl). */
  ssimPadding: SsimPadding;
  seed: number;
  initPoints: number;
  rates: LearningRates;
  adc: AdcConfig;
  /** Read the loss back every N steps (asynchronously). */
  lossEvery: number;
  mcmc: McmcConfig;
  /**
   * Geometry-aware training (2DGS-style depth distortion and normal consistency, for meshing):
   * the rasterizer renders median depth, normals and distortion, and each weight applies from its
   * start step. Undefined: plain photometric training.
   */
  geometry?: GeometryConfig;
}

export interface GeometryConfig {
  distortionWeight: number;
  distortionStart: number;
  normalWeight: number;
  normalStart: number;
}

/** Steps between loss readbacks unless a run asks otherwise (a readback is asynchronous but not free). */
const LOSS_EVERY = 10;

export function defaultTrainerConfig(overrides: Partial<TrainerConfig> = {}): TrainerConfig {
  const iterations = overrides.iterations ?? paramDefault('train.iterations');
  return {
    iterations,
    strategy: paramDefault('train.strategy'),
    maxSplats: paramDefault('train.maxSplats'),
    shDegree: paramDefault('train.shDegree'),
    antialiased: paramDefault('train.antialiased'),
    ssimPadding: paramDefault('train.ssimPadding'),
    seed: paramDefault('train.seed'),
    initPoints: paramDefault('train.initPoints'),
    rates: DEFAULT_LEARNING_RATES,
    lossEvery: LOSS_EVERY,
    ...overrides,
    // MCMC grows to the run's splat cap
    mcmc: { ...MCMC_DEFAULTS, capMax: overrides.maxSplats ?? paramDefault('train.maxSplats'), ...overrides.mcmc },
    adc: { ...ADC_DEFAULTS, refineStop: adcRefineStop(ADC_DEFAULTS.refineStop, iterations), ...overrides.adc },
  };
}
