/**
 * What a training run is configured with. The user-facing values default to the parameter
 * registry's (shared/params/registry.ts); the engine's own knobs (loss readback cadence, learning
 * rates, ADC's and MCMC's thresholds) have their one table beside the code that reads them.
 */
import { paramDefault, paramsWithPrefix, resolveParams, type ParamsWithPrefix, type ParamValue, type ParamValuesOf } from '../../../shared/params/index.js';
import type { CoarseToFineConfig } from './coarse-to-fine.js';
import { CAMERA_REFINE_DEFAULTS, type CameraRefineConfig, type RefineCamerasMode } from './camera-refine.js';
import { adcRefineStop, ADC_DEFAULTS, type AdcConfig } from './densify-adc.js';
import { MCMC_DEFAULTS, type McmcConfig } from './densify-mcmc.js';
import type { ModelMomentsPrecision } from './model.js';
import type { DensifyStrategyName } from './densify-strategy.js';
import type { AppearanceChoice } from './appearance.js';
import type { SsimPadding } from './loss.js';
import { DEFAULT_LEARNING_RATES, type LearningRates } from './schedule.js';

/** The registry's `train.*` values, typed (resolveParams over paramsWithPrefix('train.')). */
export type TrainParamValues = ParamValuesOf<ParamsWithPrefix<'train.'>>;

export interface TrainerConfig {
  iterations: number;
  /**
   * The steps the learning-rate decays and ADC's refine stop are laid out over (the run's length
   * unless a shorter horizon is asked for: the steps after it train at the final rates).
   */
  scheduleSteps: number;
  strategy: DensifyStrategyName;
  maxSplats: number;
  shDegree: number;
  antialiased: boolean;
  /** Border handling of the SSIM term (kernels/loss.wgsl). */
  ssimPadding: SsimPadding;
  /** train.alpha 'random': a random background each step, the targets composited over it (random-background.ts). */
  randomBackground: boolean;
  seed: number;
  initPoints: number;
  /** The per-image colour model ('auto': by the kind of data, appearance.ts appearanceModelFor). */
  appearance: AppearanceChoice;
  /** Adam's base learning rate of the colour models (appearance.ts appearanceLearningRate). */
  appearanceLr: number;
  rates: LearningRates;
  /** The Adam moments: f32, the SH group's bf16, or every group's (model.ts ModelMomentsPrecision). */
  momentsPrecision: ModelMomentsPrecision;
  /** Adam only on the splats visible in the step's view. */
  sparseAdam: boolean;
  /** The SH bands above the DC are updated every this many steps (1: every step). */
  shRestEvery: number;
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
  /** Coarse-to-fine image resolution (coarse-to-fine.ts); factor 1: full resolution throughout. */
  coarseToFine: CoarseToFineConfig;
  /** Camera refinement (camera-refine.ts); mode 'auto' resolves per dataset (TrainingData.posesEstimated). */
  cameraRefine: Omit<CameraRefineConfig, 'mode'> & { mode: RefineCamerasMode | 'auto' };
  /** Steps per SH band of the warm-up (schedule.ts activeShDegree); 0: every band from the first step. Default 1000. */
  shDegreeEvery?: number;
}

/**
 * A run that continues trained splats (the partition's joint fine-tune after merging blocks):
 * every SH band from the first step, no densification, and the position rate where a full run
 * ends (its decay's final value), so the splats are refined, not shaken up again.
 */
export function warmStartConfig(config: TrainerConfig): TrainerConfig {
  const { rates } = config;
  return {
    ...config,
    shDegreeEvery: 0,
    adc: { ...config.adc, refineStop: 0 },
    mcmc: { ...config.mcmc, refineStop: 0 },
    rates: { ...rates, means: rates.means * rates.meansFinalRatio, meansFinalRatio: 1 },
  };
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
  const scheduleSteps = overrides.scheduleSteps ?? iterations;
  return {
    iterations,
    scheduleSteps,
    strategy: paramDefault('train.strategy'),
    maxSplats: paramDefault('train.maxSplats'),
    shDegree: paramDefault('train.shDegree'),
    antialiased: paramDefault('train.antialiased'),
    ssimPadding: paramDefault('train.ssimPadding'),
    randomBackground: paramDefault('train.alpha') === 'random',
    seed: paramDefault('train.seed'),
    initPoints: paramDefault('train.initPoints'),
    appearance: paramDefault('train.appearance'),
    appearanceLr: paramDefault('train.appearanceLr'),
    rates: DEFAULT_LEARNING_RATES,
    momentsPrecision: paramDefault('train.momentsPrecision'),
    sparseAdam: paramDefault('train.sparseAdam'),
    shRestEvery: paramDefault('train.shRestEvery'),
    lossEvery: LOSS_EVERY,
    cameraRefine: { ...CAMERA_REFINE_DEFAULTS, mode: paramDefault('train.refineCameras'), solve: { ...CAMERA_REFINE_DEFAULTS.solve, every: paramDefault('train.cameraSolveEvery') } },
    coarseToFine: { factor: paramDefault('train.coarseFactor'), until: paramDefault('train.coarseUntil') },
    ...overrides,
    // MCMC grows to the run's splat cap
    mcmc: { ...MCMC_DEFAULTS, capMax: overrides.maxSplats ?? paramDefault('train.maxSplats'), ...overrides.mcmc },
    adc: { ...ADC_DEFAULTS, refineStop: adcRefineStop(ADC_DEFAULTS.refineStop, scheduleSteps), ...overrides.adc },
  };
}

/**
 * A run's recorded `train.*` values (a manifest's record, a job's, a benchmark's), typed. A run
 * recorded before `train.ssimPadding` existed trained with zero padding, one recorded before
 * `train.appearance` without a colour model, one before `train.refineCameras` without camera
 * refinement, one before `train.refineGrowth` with refines that could double the count, one before
 * `train.cameraSolveEvery` without the camera solve, one before `train.captureRefineStop` with the
 * refine stop on captures too: they
 * resume so; any other missing key takes the registry's default.
 */
export function trainParamValues(record: Readonly<Record<string, ParamValue | undefined>>): TrainParamValues {
  const given = Object.fromEntries(Object.entries(record).filter((entry): entry is [string, ParamValue] => entry[1] !== undefined));
  return resolveParams(paramsWithPrefix('train.'), { 'train.ssimPadding': 'same', 'train.appearance': 'off', 'train.refineCameras': 'off', 'train.refineGrowth': 1, 'train.cameraSolveEvery': 0, 'train.captureRefineStop': 0, ...given });
}

/** The schedule's horizon: `train.scheduleSteps` where given (at most the run), else the run's length. */
export function scheduleLength(scheduleSteps: number, iterations: number): number {
  return scheduleSteps > 0 ? Math.min(scheduleSteps, iterations) : iterations;
}

/** The trainer's configuration from a run's `train.*` values. */
export function trainerConfigFromParams(p: Readonly<TrainParamValues>): TrainerConfig {
  const iterations = p['train.iterations'];
  const scheduleSteps = scheduleLength(p['train.scheduleSteps'], iterations);
  const geometryStart = (start: number) => Math.min(start, Math.floor(iterations / 4));
  return defaultTrainerConfig({
    iterations,
    scheduleSteps,
    strategy: p['train.strategy'],
    maxSplats: p['train.maxSplats'],
    shDegree: p['train.shDegree'],
    antialiased: p['train.antialiased'],
    ssimPadding: p['train.ssimPadding'],
    randomBackground: p['train.alpha'] === 'random',
    seed: p['train.seed'],
    initPoints: p['train.initPoints'],
    appearance: p['train.appearance'],
    appearanceLr: p['train.appearanceLr'],
    momentsPrecision: p['train.momentsPrecision'],
    sparseAdam: p['train.sparseAdam'],
    shRestEvery: p['train.shRestEvery'],
    cameraRefine: { ...CAMERA_REFINE_DEFAULTS, mode: p['train.refineCameras'], solve: { ...CAMERA_REFINE_DEFAULTS.solve, every: p['train.cameraSolveEvery'] } },
    coarseToFine: { factor: p['train.coarseFactor'], until: p['train.coarseUntil'] },
    adc: {
      ...defaultTrainerConfig().adc,
      refineStart: p['train.refineStart'],
      refineEvery: p['train.refineEvery'],
      refineStop: adcRefineStop(p['train.refineStop'], scheduleSteps),
      captureRefineStop: p['train.captureRefineStop'],
      growGrad2d: p['train.growGrad2d'],
      absgrad: p['train.absgrad'],
      refineGrowth: p['train.refineGrowth'],
      budget: p['train.densifyBudget'],
    },
    geometry: p['train.geometry']
      ? {
          distortionWeight: p['train.distortionWeight'],
          distortionStart: geometryStart(p['train.distortionStart']),
          normalWeight: p['train.normalWeight'],
          normalStart: geometryStart(p['train.normalStart']),
        }
      : undefined,
  });
}
