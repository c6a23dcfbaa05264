/**
 * Random bundle-adjustment problems for the GPU parity tests: images on a ring around the origin
 * looking at points in a unit ball, mixed camera models, some images held, observations with
 * noise, and the parameters perturbed from the truth so that the first iterations have work to do.
 */
import { BA_DEFAULTS, type BaOptions, type BaProblem } from '../../../../../main/engine/sfm/bundle/problem.js';
import type { BaCameraModel } from '../../../../../main/engine/sfm/bundle/camera-models.js';
import { projectWorldPoint } from '../../../../../main/engine/sfm/bundle/camera-models.js';
import { rotationFromVector } from '../../../../../main/engine/sfm/verify/rotation.js';
import { multiply3 } from '../../../../../main/engine/sfm/verify/dense.js';
import { Random } from '../../../../../shared/random.js';
import { lookAt } from '../global/global-scenes.js';

export const MIXED_MODELS: BaCameraModel[] = ['SIMPLE_RADIAL', 'OPENCV', 'PINHOLE', 'RADIAL', 'SIMPLE_PINHOLE'];

const PARAMS: Record<BaCameraModel, (r: Random) => number[]> = {
  SIMPLE_PINHOLE: (r) => [750 + 100 * r.next(), 400 + 5 * r.normal(), 300 + 5 * r.normal()],
  PINHOLE: (r) => [750 + 100 * r.next(), 760 + 100 * r.next(), 400 + 5 * r.normal(), 300 + 5 * r.normal()],
  SIMPLE_RADIAL: (r) => [750 + 100 * r.next(), 400 + 5 * r.normal(), 300 + 5 * r.normal(), 0.05 * r.normal()],
  RADIAL: (r) => [750 + 100 * r.next(), 400 + 5 * r.normal(), 300 + 5 * r.normal(), 0.05 * r.normal(), 0.01 * r.normal()],
  OPENCV: (r) => [750 + 100 * r.next(), 760 + 100 * r.next(), 400 + 5 * r.normal(), 300 + 5 * r.normal(), 0.05 * r.normal(), 0.01 * r.normal(), 0.002 * r.normal(), 0.002 * r.normal()],
};

export interface GpuProblemOptions {
  images: number;
  points: number;
  models: BaCameraModel[];
  /** Images held (the first ones). */
  fixed: number;
  noisePx: number;
  /** Perturbation of the solver's start: rotation (radians), translation and point (scene units). */
  rotationNoise: number;
  positionNoise: number;
}

export const SMALL_PROBLEM: GpuProblemOptions = { images: 10, points: 400, models: MIXED_MODELS, fixed: 2, noisePx: 0.5, rotationNoise: 0.01, positionNoise: 0.02 };

/** The truth and the perturbed start (the same observations). */
export function randomProblem(seed: number, o: GpuProblemOptions = SMALL_PROBLEM): { truth: BaProblem; start: BaProblem } {
  const random = new Random(seed);
  const cameras = o.models.map((model) => ({ model, params: Float64Array.from(PARAMS[model](random)) }));
  const imageCamera = Uint32Array.from({ length: o.images }, (_, i) => i % cameras.length);
  const rotations = new Float64Array(9 * o.images);
  const translations = new Float64Array(3 * o.images);
  for (let i = 0; i < o.images; i++) {
    const azimuth = (1.5 * Math.PI * i) / o.images + 0.05 * random.normal();
    const centre: [number, number, number] = [4 * Math.cos(azimuth), 0.5 * random.normal(), 4 * Math.sin(azimuth)];
    const pose = lookAt(centre, [0.1 * random.normal(), 0.1 * random.normal(), 0.1 * random.normal()], 0.1 * random.normal());
    rotations.set(pose.rotation, 9 * i);
    translations.set(pose.translation, 3 * i);
  }
  const points = new Float64Array(3 * o.points);
  for (let k = 0; k < points.length; k++) points[k] = random.normal() * 0.6;
  const obsImage: number[] = [];
  const obsPoint: number[] = [];
  const obsXY: number[] = [];
  for (let j = 0; j < o.points; j++) {
    // each point in 2-5 images, distinct, spread over the ring
    const views = 2 + Math.floor(4 * random.next());
    const seen = new Set<number>();
    while (seen.size < Math.min(views, o.images)) seen.add(Math.floor(random.next() * o.images));
    for (const i of [...seen].sort((a, b) => a - b)) {
      const [u, v] = projectWorldPoint(cameras[imageCamera[i]].model, cameras[imageCamera[i]].params, rotations.subarray(9 * i, 9 * i + 9), translations.subarray(3 * i, 3 * i + 3), points.subarray(3 * j, 3 * j + 3));
      obsImage.push(i);
      obsPoint.push(j);
      obsXY.push(u + o.noisePx * random.normal(), v + o.noisePx * random.normal());
    }
  }
  const fixedImages = Uint8Array.from({ length: o.images }, (_, i) => (i < o.fixed ? 1 : 0));
  const truth: BaProblem = { cameras, imageCamera, rotations, translations, points, obsImage: Uint32Array.from(obsImage), obsPoint: Uint32Array.from(obsPoint), obsXY: Float64Array.from(obsXY), fixedImages };
  const start: BaProblem = {
    ...truth,
    cameras: cameras.map((c) => ({ model: c.model, params: Float64Array.from(c.params, (v, k) => (k === 0 ? v * (1 + 0.01 * random.normal()) : v)) })),
    rotations: rotations.slice(),
    translations: Float64Array.from(translations, (v, k) => (fixedImages[Math.floor(k / 3)] ? v : v + o.positionNoise * random.normal())),
    points: Float64Array.from(points, (v) => v + o.positionNoise * random.normal()),
  };
  for (let i = o.fixed; i < o.images; i++) {
    const turn = rotationFromVector([o.rotationNoise * random.normal(), o.rotationNoise * random.normal(), o.rotationNoise * random.normal()]);
    start.rotations.set(multiply3(turn, rotations.subarray(9 * i, 9 * i + 9)), 9 * i);
  }
  return { truth, start };
}

/** BA options for the parity tests: every intrinsic refined (the largest blocks), Cauchy. */
export const PARITY_OPTIONS: BaOptions = { ...BA_DEFAULTS, refinePrincipalPoint: true };

/** max |a - b| / max(max |b|, floor): a relative difference over a whole array. */
export function relativeDifference(a: ArrayLike<number>, b: ArrayLike<number>, floor = 1e-30): number {
  let diff = 0;
  let scale = floor;
  for (let k = 0; k < b.length; k++) {
    diff = Math.max(diff, Math.abs(a[k] - b[k]));
    scale = Math.max(scale, Math.abs(b[k]));
  }
  return a.length === b.length ? diff / scale : Infinity;
}

/** Per-block relative difference: max over blocks of max |a - b| / max |b| within the block (size `n` each, `count` blocks at strides). */
export function blockwiseDifference(count: number, get: (block: number) => [ArrayLike<number>, ArrayLike<number>]): number {
  let worst = 0;
  for (let k = 0; k < count; k++) {
    const [a, b] = get(k);
    worst = Math.max(worst, relativeDifference(a, b));
  }
  return worst;
}
