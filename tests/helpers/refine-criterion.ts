/**
 * Issue 14 item 2's criterion, one source for the training test and bench/camera-refine.ts: the
 * refine scene's training cameras perturbed (per camera: 1 to 2 degrees about a random axis, the
 * centre moved by 2% of the scene scale, each physical camera's focal +5% or -5%), and how much of
 * that perturbation a run leaves, per camera as a fraction of what was applied to it.
 *
 * Pose errors are measured after removing the best similarity of the whole rig (the gauge no image
 * sees: rig-alignment.ts). The focal error is per intrinsics group (a physical camera), relative.
 */
import type { PinholeCamera } from '../../shared/scene/camera.js';
import { Random } from '../../shared/random.js';
import type { TrainingData } from '../../main/engine/train/data.js';
import { CAMERA_REFINE_DEFAULTS } from '../../main/engine/train/camera-refine.js';
import { defaultTrainerConfig, type TrainerConfig } from '../../main/engine/train/trainer-config.js';
import { perturbCamera } from './perturb-cameras.js';
import { rigErrors } from './rig-alignment.js';

export const CRITERION = { minDegrees: 1, maxDegrees: 2, shift: 0.02, focal: 0.05, fraction: 0.1 } as const;

/**
 * The criterion's run (the test's and the bench's): the scene's size, the steps, and the training
 * configuration of the refined run and of the run on the exact cameras (the same but refinement).
 */
export const CRITERION_RUN = {
  scene: { width: 128, height: 96, views: 12, points: 2000 },
  steps: 1200,
  /** Test-time pose alignment's steps per held-out view. */
  alignSteps: 50,
  config(steps: number, refine: boolean): Partial<TrainerConfig> {
    return {
      iterations: steps, shDegree: 0, seed: 3,
      cameraRefine: { ...CAMERA_REFINE_DEFAULTS, mode: refine ? 'poses+intrinsics' : 'off', start: 100, ramp: 100, rates: { rotation: 5e-3, translation: 5e-3, logFocal: 1e-3, principal: 3e-4 } },
      adc: { ...defaultTrainerConfig().adc, refineStart: 100, refineEvery: 100, refineStop: Math.round(steps * 0.6) },
    };
  },
} as const;

export interface Perturbation {
  /** The data as given to training: its training views' cameras perturbed. */
  given: TrainingData;
  /** Per training view (index into views): the angle (radians) and centre shift (world units) applied. */
  applied: Map<number, { angle: number; shift: number }>;
}

/** `truth`'s training cameras perturbed as CRITERION says (even views' focal x1.05, odd x0.95: the two physical cameras). */
export function perturbTraining(truth: TrainingData, seed = 11, focal: number = CRITERION.focal): Perturbation {
  const random = new Random(seed);
  const applied = new Map<number, { angle: number; shift: number }>();
  const shift = CRITERION.shift * truth.sceneScale;
  const views = truth.views.map((v, i) => {
    if (v.split !== 'train') return v;
    const angle = ((CRITERION.minDegrees + (CRITERION.maxDegrees - CRITERION.minDegrees) * random.next()) * Math.PI) / 180;
    applied.set(i, { angle, shift });
    return { ...v, camera: perturbCamera(v.camera, random, { angle, shift, focal: 1 + (i % 2 === 0 ? 1 : -1) * focal }) };
  });
  return { given: { ...truth, views, posesEstimated: true }, applied };
}

const dot = (a: readonly number[], b: readonly number[]) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];

const median = (v: number[]) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export interface Recovery {
  /** Per training camera: error left / perturbation applied. */
  rotation: number[];
  centre: number[];
  /** Per physical camera (view parity): |focal error| / the 5% applied. */
  focal: number[];
  median: { rotation: number; centre: number; focal: number };
  max: { rotation: number; centre: number; focal: number };
  /** Per training camera: the centre error's component along the camera's optical axis / the shift applied. */
  centreAlongAxis: number[];
  /** The rig's gauge scale removed (refined against true), - 1. */
  gaugeScale: number;
}

/** What `cameras` (every view's, as training used them) leave of the perturbation. */
export function recovery(truth: TrainingData, { applied }: Perturbation, cameras: readonly PinholeCamera[]): Recovery {
  const train = [...applied.keys()];
  const e = rigErrors(train.map((i) => cameras[i]), train.map((i) => truth.views[i].camera), truth.sceneScale);
  const rotation = train.map((i, k) => e.rotation[k] / applied.get(i)!.angle);
  const centre = train.map((i, k) => e.centre[k] / applied.get(i)!.shift);
  const centreAlongAxis = train.map((i, k) => Math.abs(dot(e.centreResidual[k], cameras[i].worldToCamera.slice(8, 11))) / applied.get(i)!.shift);
  const focal = [0, 1].map((parity) => {
    const group = train.filter((i) => i % 2 === parity);
    return Math.abs(median(group.map((i) => cameras[i].fx / truth.views[i].camera.fx - 1))) / CRITERION.focal;
  });
  return {
    rotation,
    centre,
    centreAlongAxis,
    focal,
    median: { rotation: median(rotation), centre: median(centre), focal: median(focal) },
    max: { rotation: Math.max(...rotation), centre: Math.max(...centre), focal: Math.max(...focal) },
    gaugeScale: e.gauge.scale,
  };
}

/** One line: median and max fractions left. */
export function describeRecovery(r: Recovery): string {
  const f = (x: number) => x.toFixed(3);
  return `left of the perturbation (median / max over cameras): rotation ${f(r.median.rotation)} / ${f(r.max.rotation)}, centre ${f(r.median.centre)} / ${f(r.max.centre)}, focal ${f(r.median.focal)} / ${f(r.max.focal)}; centre along the optical axis ${f(median(r.centreAlongAxis))} (median); rig scale ${(r.gaugeScale * 100).toFixed(2)}%`;
}
