/**
 * How close recovered camera poses are to reference poses (issue 15: "mic's recovered poses match
 * the ground truth after a similarity alignment, rotation error < 0.5 degrees median"), in float64.
 *
 * An SfM model is known up to a similarity (scale, rotation, translation), so the recovered camera
 * centres are first mapped onto the reference ones by the least-squares similarity (Umeyama 1991,
 * with its reflection guard). Then per camera:
 * - rotation error: the angle between the reference camera-to-world rotation and the aligned
 *   recovered one, R_align R_est^T;
 * - centre error: the distance between the aligned recovered centre and the reference centre,
 *   divided by the scene size: the RMS distance of the reference centres from their centroid (the
 *   orbit's radius for an object capture), so the number reads as a fraction of the rig.
 *
 * Poses are world-to-camera in OpenCV axes, row-major 4x4 (dataset/pose.ts), whatever file they
 * came from. Cameras are paired by name; unpaired ones are reported, not aligned.
 */
import { determinant3, mat3, multiply3, svd3, transpose3, type Mat3, type Vec3 } from './verify/dense.js';
import { median } from '../../../shared/math/median.js';

export interface NamedPose {
  name: string;
  /** Row-major 4x4 world-to-camera, OpenCV axes (x right, y down, z forward). */
  worldToCamera: readonly number[];
}

export interface Similarity {
  scale: number;
  rotation: Mat3;
  translation: Vec3;
}

export interface PoseAccuracy {
  /** Cameras in both sets, by name, and those only in one. */
  paired: number;
  missing: string[];
  extra: string[];
  alignment: Similarity;
  /** Per paired camera, in the reference's order. */
  cameras: { name: string; rotationDeg: number; centreError: number }[];
  rotationDeg: { median: number; max: number; mean: number };
  /** Fractions of `sceneSize`. */
  centre: { median: number; max: number; mean: number };
  sceneSize: number;
}

const RAD_TO_DEG = 180 / Math.PI;

function rotationOf(m: readonly number[]): Mat3 {
  return mat3([m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]]);
}

/** Camera centre -R^T t. */
export function centreOf(m: readonly number[]): Vec3 {
  return [0, 1, 2].map((i) => -(m[i] * m[3] + m[4 + i] * m[7] + m[8 + i] * m[11])) as Vec3;
}

function mean3(points: readonly Vec3[]): Vec3 {
  const m: Vec3 = [0, 0, 0];
  for (const p of points) for (let k = 0; k < 3; k++) m[k] += p[k] / points.length;
  return m;
}

/** The similarity minimizing sum |target - (s R source + t)|^2 (Umeyama 1991); needs 3 points not on a line. */
export function umeyama(source: readonly Vec3[], target: readonly Vec3[]): Similarity {
  if (source.length !== target.length || source.length < 3) throw new Error(`umeyama: needs 3 or more point pairs (got ${source.length} and ${target.length})`);
  const ms = mean3(source);
  const mt = mean3(target);
  const covariance = new Float64Array(9);
  let sourceVariance = 0;
  for (let i = 0; i < source.length; i++) {
    const a = [source[i][0] - ms[0], source[i][1] - ms[1], source[i][2] - ms[2]];
    const b = [target[i][0] - mt[0], target[i][1] - mt[1], target[i][2] - mt[2]];
    sourceVariance += (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]) / source.length;
    for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) covariance[3 * r + c] += (b[r] * a[c]) / source.length;
  }
  const { u, singularValues: d, v } = svd3(covariance);
  // a reflection fits better only for degenerate or mirrored sets; the guard keeps R a rotation
  const sign = determinant3(u) * determinant3(v) < 0 ? -1 : 1;
  if (!(d[1] > 1e-12 * d[0]) || !(sourceVariance > 0)) throw new Error('umeyama: the points are (nearly) on a line or coincide: no unique similarity');
  const us = u.map((x, i) => (i % 3 === 2 ? sign * x : x));
  const rotation = multiply3(us, transpose3(v));
  const scale = (d[0] + d[1] + sign * d[2]) / sourceVariance;
  const rs: Vec3 = [0, 1, 2].map((r) => rotation[3 * r] * ms[0] + rotation[3 * r + 1] * ms[1] + rotation[3 * r + 2] * ms[2]) as Vec3;
  return { scale, rotation, translation: [mt[0] - scale * rs[0], mt[1] - scale * rs[1], mt[2] - scale * rs[2]] };
}

/** The angle (radians) of the rotation a b^T, by atan2 of its sine and cosine: acos alone loses small angles (1e-8 rad) to rounding. */
export function rotationAngle(a: Mat3, b: Mat3): number {
  const q = multiply3(a, transpose3(b));
  const sine = 0.5 * Math.hypot(q[7] - q[5], q[2] - q[6], q[3] - q[1]);
  return Math.atan2(sine, (q[0] + q[4] + q[8] - 1) / 2);
}

function summary(values: readonly number[]): { median: number; max: number; mean: number } {
  return { median: median(values), max: Math.max(...values), mean: values.reduce((a, b) => a + b, 0) / values.length };
}

/** Aligns `estimated` onto `reference` (paired by name) and measures every paired camera. */
export function poseAccuracy(estimated: readonly NamedPose[], reference: readonly NamedPose[]): PoseAccuracy {
  const byName = new Map(estimated.map((p) => [p.name, p]));
  const referenceNames = new Set(reference.map((p) => p.name));
  const pairs = reference.filter((r) => byName.has(r.name)).map((r) => ({ reference: r, estimated: byName.get(r.name)! }));
  if (pairs.length < 3) throw new Error(`pose accuracy: ${pairs.length} cameras are in both sets; a similarity needs 3 (reference names like ${reference.slice(0, 2).map((p) => p.name).join(', ')}; estimated like ${estimated.slice(0, 2).map((p) => p.name).join(', ')})`);
  const referenceCentres = pairs.map((p) => centreOf(p.reference.worldToCamera));
  const alignment = umeyama(pairs.map((p) => centreOf(p.estimated.worldToCamera)), referenceCentres);
  const centroid = mean3(referenceCentres);
  const sceneSize = Math.sqrt(referenceCentres.reduce((s, c) => s + (c[0] - centroid[0]) ** 2 + (c[1] - centroid[1]) ** 2 + (c[2] - centroid[2]) ** 2, 0) / referenceCentres.length);
  const { scale, rotation, translation } = alignment;
  const cameras = pairs.map((p, i) => {
    // camera-to-world rotations: the aligned recovered one is R_align R_est^T
    const aligned = multiply3(rotation, transpose3(rotationOf(p.estimated.worldToCamera)));
    const rotationDeg = rotationAngle(transpose3(rotationOf(p.reference.worldToCamera)), aligned) * RAD_TO_DEG;
    const c = centreOf(p.estimated.worldToCamera);
    const moved = [0, 1, 2].map((r) => scale * (rotation[3 * r] * c[0] + rotation[3 * r + 1] * c[1] + rotation[3 * r + 2] * c[2]) + translation[r]);
    const ref = referenceCentres[i];
    return { name: p.reference.name, rotationDeg, centreError: Math.hypot(moved[0] - ref[0], moved[1] - ref[1], moved[2] - ref[2]) / sceneSize };
  });
  return {
    paired: pairs.length,
    missing: reference.filter((r) => !byName.has(r.name)).map((r) => r.name),
    extra: estimated.filter((e) => !referenceNames.has(e.name)).map((e) => e.name),
    alignment,
    cameras,
    rotationDeg: summary(cameras.map((c) => c.rotationDeg)),
    centre: summary(cameras.map((c) => c.centreError)),
    sceneSize,
  };
}
