/**
 * Synthetic two-view scenes for geometric verification: random 3D points seen by camera 1 at the
 * origin and camera 2 at X2 = R X1 + t, projected through a pinhole camera, with Gaussian pixel
 * noise and a share of outliers (image-2 positions drawn uniformly over the image).
 */
import { Random } from '../../../../shared/random.js';
import { applyMat3, multiply3, transpose3, type Mat3, type Vec3 } from '../../../../main/engine/sfm/verify/dense.js';
import type { PinholeIntrinsics } from '../../../../main/engine/sfm/verify/verify-options.js';

export const WIDTH = 1000;
export const HEIGHT = 800;
export const CAMERA: PinholeIntrinsics = { focalX: 800, focalY: 800, principalX: 500, principalY: 400 };

export type SceneKind = 'general' | 'planar' | 'rotation';

export interface SyntheticPair {
  points1: Float64Array;
  points2: Float64Array;
  /** 1 where the correspondence is a true (noisy) projection, 0 for an outlier. */
  isInlier: Uint8Array;
  rotation: Mat3;
  translation: Vec3;
}

export function rotationFromAxisAngle(axis: Vec3, angle: number): Mat3 {
  const n = Math.hypot(...axis);
  const [x, y, z] = axis.map((v) => v / n);
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  const C = 1 - c;
  return Float64Array.from([
    c + x * x * C, x * y * C - z * s, x * z * C + y * s,
    y * x * C + z * s, c + y * y * C, y * z * C - x * s,
    z * x * C - y * s, z * y * C + x * s, c + z * z * C,
  ]);
}

/** Angle in degrees of the rotation a b^T. */
export function rotationAngleDeg(a: Mat3, b: Mat3): number {
  const d = multiply3(a, transpose3(b));
  return (Math.acos(Math.min(1, Math.max(-1, (d[0] + d[4] + d[8] - 1) / 2))) * 180) / Math.PI;
}

export function angleBetweenDeg(a: Vec3, b: Vec3): number {
  const dot = (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) / (Math.hypot(...a) * Math.hypot(...b));
  return (Math.acos(Math.min(1, Math.max(-1, dot))) * 180) / Math.PI;
}

function project(p: Vec3): [number, number] | undefined {
  if (p[2] <= 0.1) return undefined;
  const x = CAMERA.focalX * (p[0] / p[2]) + CAMERA.principalX;
  const y = CAMERA.focalY * (p[1] / p[2]) + CAMERA.principalY;
  return x >= 0 && x < WIDTH && y >= 0 && y < HEIGHT ? [x, y] : undefined;
}

export function syntheticPair(seed: number, kind: SceneKind, count: number, outlierRatio: number, noisePx: number): SyntheticPair {
  const random = new Random(seed);
  const uniform = (lo: number, hi: number): number => lo + (hi - lo) * random.next();
  const axis: Vec3 = [random.normal(), random.normal(), random.normal()];
  const rotation = rotationFromAxisAngle(axis, ((kind === 'rotation' ? uniform(5, 20) : uniform(3, 12)) * Math.PI) / 180);
  // Camera 2's centre c2 sideways of camera 1; t = -R c2.
  const centre: Vec3 = [uniform(-1, 1), uniform(-0.5, 0.5), uniform(-0.3, 0.3)];
  const scaled = Math.hypot(...centre);
  const c2: Vec3 = kind === 'rotation' ? [0, 0, 0] : [centre[0] / scaled, centre[1] / scaled, centre[2] / scaled];
  const rc = applyMat3(rotation, c2);
  const translation: Vec3 = [-rc[0], -rc[1], -rc[2]];
  // A plane through (0, 0, 6) with a random tilt, for the planar scene.
  const normal: Vec3 = [uniform(-0.3, 0.3), uniform(-0.3, 0.3), 1];
  const points1: number[] = [];
  const points2: number[] = [];
  const isInlier: number[] = [];
  let guard = 0;
  while (isInlier.length < count && guard++ < 100 * count) {
    const u = uniform(-0.6, 0.6);
    const v = uniform(-0.5, 0.5);
    let depth = uniform(4, 8);
    if (kind === 'planar') depth = 6 / (1 - normal[0] * u - normal[1] * v) / normal[2]; // n . (d u, d v, d) = 6
    const x1: Vec3 = [u * depth, v * depth, depth];
    const x2 = applyMat3(rotation, x1);
    x2[0] += translation[0];
    x2[1] += translation[1];
    x2[2] += translation[2];
    const a = project(x1);
    const b = project(x2);
    if (!a || !b) continue;
    const outlier = random.next() < outlierRatio;
    points1.push(a[0] + noisePx * random.normal(), a[1] + noisePx * random.normal());
    if (outlier) points2.push(uniform(0, WIDTH), uniform(0, HEIGHT));
    else points2.push(b[0] + noisePx * random.normal(), b[1] + noisePx * random.normal());
    isInlier.push(outlier ? 0 : 1);
  }
  return { points1: Float64Array.from(points1), points2: Float64Array.from(points2), isInlier: Uint8Array.from(isInlier), rotation, translation: c2[0] === 0 && c2[1] === 0 ? [0, 0, 0] : normaliseVec(translation) };
}

function normaliseVec(v: Vec3): Vec3 {
  const n = Math.hypot(...v);
  return [v[0] / n, v[1] / n, v[2] / n];
}

/** Recall and precision of found inlier indices against the scene's truth. */
export function recallPrecision(found: Uint32Array, isInlier: Uint8Array): { recall: number; precision: number } {
  let truePositives = 0;
  for (const k of found) truePositives += isInlier[k];
  const trueCount = isInlier.reduce((s, v) => s + v, 0);
  return { recall: truePositives / trueCount, precision: found.length ? truePositives / found.length : 0 };
}
