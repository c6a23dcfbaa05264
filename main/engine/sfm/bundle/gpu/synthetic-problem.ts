/**
 * A synthetic bundle-adjustment problem of a chosen size (the GPU parity tests' random problems
 * and `bench ba`'s fixed load): images on three quarters of a ring of radius 4 around the origin,
 * looking at it, points in a ball (normal, sigma 0.6), each point seen by `obsPerPoint` distinct
 * images (or 2-5 at random), observations with Gaussian pixel noise; the start perturbed from the
 * truth (free images' rotations and translations, points, focals) so that LM has work to do.
 * Cameras of the given models in turn, with intrinsics near an 800x600 camera's.
 */
import { applyMat3, multiply3, normalise3, type Vec3 } from '../../verify/dense.js';
import { rotationFromVector } from '../../verify/rotation.js';
import { Random } from '../../../../../shared/random.js';
import { projectWorldPoint, type BaCameraModel } from '../camera-models.js';
import type { BaProblem } from '../problem.js';

export const MIXED_MODELS: BaCameraModel[] = ['SIMPLE_RADIAL', 'OPENCV', 'PINHOLE', 'RADIAL', 'SIMPLE_PINHOLE'];

const PARAMS: Record<BaCameraModel, (r: Random) => number[]> = {
  SIMPLE_PINHOLE: (r) => [750 + 100 * r.next(), 400 + 5 * r.normal(), 300 + 5 * r.normal()],
  PINHOLE: (r) => [750 + 100 * r.next(), 760 + 100 * r.next(), 400 + 5 * r.normal(), 300 + 5 * r.normal()],
  SIMPLE_RADIAL: (r) => [750 + 100 * r.next(), 400 + 5 * r.normal(), 300 + 5 * r.normal(), 0.05 * r.normal()],
  RADIAL: (r) => [750 + 100 * r.next(), 400 + 5 * r.normal(), 300 + 5 * r.normal(), 0.05 * r.normal(), 0.01 * r.normal()],
  OPENCV: (r) => [750 + 100 * r.next(), 760 + 100 * r.next(), 400 + 5 * r.normal(), 300 + 5 * r.normal(), 0.05 * r.normal(), 0.01 * r.normal(), 0.002 * r.normal(), 0.002 * r.normal()],
};

export interface SyntheticProblemOptions {
  images: number;
  points: number;
  /** Images per point, exactly (at most `images`); undefined: 2-5 at random. */
  obsPerPoint?: number;
  models: readonly BaCameraModel[];
  /** Images held (the first ones). */
  fixed: number;
  noisePx: number;
  /** Perturbation of the start: rotation (radians), translation and point (scene units). */
  rotationNoise: number;
  positionNoise: number;
}

const cross = (a: Vec3, b: Vec3): Vec3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];

/** World-to-camera pose of a camera at `centre` looking at `target` (+z forward, +y down), turned by `roll` about its axis. */
function lookAt(centre: Vec3, target: Vec3, roll: number): { rotation: Float64Array; translation: Vec3 } {
  const forward = normalise3([target[0] - centre[0], target[1] - centre[1], target[2] - centre[2]]);
  const right = normalise3(cross(Math.abs(forward[1]) > 0.95 ? [1, 0, 0] : [0, 1, 0], forward));
  const rotation = multiply3(rotationFromVector([0, 0, roll]), Float64Array.from([...right, ...cross(forward, right), ...forward]));
  const rc = applyMat3(rotation, centre);
  return { rotation, translation: [-rc[0], -rc[1], -rc[2]] };
}

/** The truth and the perturbed start (the same observations). */
export function syntheticBaProblem(seed: number, o: SyntheticProblemOptions): { truth: BaProblem; start: BaProblem } {
  const random = new Random(seed);
  const cameras = o.models.map((model) => ({ model, params: Float64Array.from(PARAMS[model](random)) }));
  const imageCamera = Uint32Array.from({ length: o.images }, (_, i) => i % cameras.length);
  const rotations = new Float64Array(9 * o.images);
  const translations = new Float64Array(3 * o.images);
  for (let i = 0; i < o.images; i++) {
    const azimuth = (1.5 * Math.PI * i) / o.images + 0.05 * random.normal();
    const pose = lookAt([4 * Math.cos(azimuth), 0.5 * random.normal(), 4 * Math.sin(azimuth)], [0.1 * random.normal(), 0.1 * random.normal(), 0.1 * random.normal()], 0.1 * random.normal());
    rotations.set(pose.rotation, 9 * i);
    translations.set(pose.translation, 3 * i);
  }
  const points = new Float64Array(3 * o.points);
  for (let k = 0; k < points.length; k++) points[k] = random.normal() * 0.6;
  const views = Math.min(o.images, o.obsPerPoint ?? 5);
  const observations = o.points * views;
  const obsImage = new Uint32Array(observations);
  const obsPoint = new Uint32Array(observations);
  const obsXY = new Float64Array(2 * observations);
  let count = 0;
  const seen = new Set<number>();
  for (let j = 0; j < o.points; j++) {
    const wanted = o.obsPerPoint ? views : 2 + Math.floor(4 * random.next());
    seen.clear();
    // a window of the ring (neighbouring images see the same points), images distinct
    const first = Math.floor(random.next() * o.images);
    while (seen.size < Math.min(wanted, o.images)) seen.add((first + Math.floor(random.next() * Math.min(o.images, 3 * wanted))) % o.images);
    for (const i of [...seen].sort((a, b) => a - b)) {
      const camera = cameras[imageCamera[i]];
      const [u, v] = projectWorldPoint(camera.model, camera.params, rotations.subarray(9 * i, 9 * i + 9), translations.subarray(3 * i, 3 * i + 3), points.subarray(3 * j, 3 * j + 3));
      obsImage[count] = i;
      obsPoint[count] = j;
      obsXY[2 * count] = u + o.noisePx * random.normal();
      obsXY[2 * count + 1] = v + o.noisePx * random.normal();
      count++;
    }
  }
  const fixedImages = Uint8Array.from({ length: o.images }, (_, i) => (i < o.fixed ? 1 : 0));
  const truth: BaProblem = { cameras, imageCamera, rotations, translations, points, obsImage: obsImage.slice(0, count), obsPoint: obsPoint.slice(0, count), obsXY: obsXY.slice(0, 2 * count), fixedImages };
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
