/**
 * Bundle adjustment test scenes, float64: cameras on a sphere cap looking at points around the
 * origin, exact or noisy observations, parameters perturbed from the truth. Small random problems
 * for the term-by-term checks, and the dense forms of J, H and g they are checked against.
 */
import { Matrix, CholeskyDecomposition } from 'ml-matrix';
import { CAMERA_MODELS, projectWorldPoint, type BaCameraModel } from '../../../../../main/engine/sfm/bundle/camera-models.js';
import type { BaProblem } from '../../../../../main/engine/sfm/bundle/problem.js';
import type { Linearisation } from '../../../../../main/engine/sfm/bundle/reference.js';
import { multiply3, type Mat3, type Vec3 } from '../../../../../main/engine/sfm/verify/dense.js';
import { rotationFromVector } from '../../../../../main/engine/sfm/verify/rotation.js';
import type { Random } from '../../../../../shared/random.js';
import { lookAt } from '../global/global-scenes.js';

/** Parameters of a model near a real 800x600 camera: focal 700-900 px, the principal point near the centre, mild distortion. */
export function cameraParams(model: BaCameraModel, random: Random): Float64Array {
  const value: Record<string, () => number> = {
    f: () => 700 + 200 * random.next(),
    fx: () => 700 + 200 * random.next(),
    fy: () => 700 + 200 * random.next(),
    cx: () => 400 + 10 * random.normal(),
    cy: () => 300 + 10 * random.normal(),
    k: () => 0.05 * random.normal(),
    k1: () => 0.05 * random.normal(),
    k2: () => 0.01 * random.normal(),
    p1: () => 0.002 * random.normal(),
    p2: () => 0.002 * random.normal(),
  };
  return Float64Array.from(CAMERA_MODELS[model].parameterNames.map((name) => value[name]()));
}

export interface SceneOptions {
  images: number;
  points: number;
  /** One model per camera; images take cameras in turn (image i -> camera i mod count). */
  models: BaCameraModel[];
  /** Each image sees a point with this probability (at least two images see each). */
  visibility: number;
  noisePx: number;
  /** Camera distance from the origin, and the points' spread (a ball of this radius). */
  radius?: number;
  spread?: number;
  /** The cameras' true parameters (COLMAP's order), instead of random ones. */
  params?: Float64Array[];
}

/** The truth with observations (noisy by noisePx); every point seen by >= 2 images, by no image twice. */
export function syntheticScene(random: Random, o: SceneOptions): BaProblem {
  const radius = o.radius ?? 4;
  const spread = o.spread ?? 1;
  const cameras = o.models.map((model, c) => ({ model, params: o.params?.[c]?.slice() ?? cameraParams(model, random) }));
  const imageCamera = Uint32Array.from({ length: o.images }, (_, i) => i % cameras.length);
  const rotations = new Float64Array(9 * o.images);
  const translations = new Float64Array(3 * o.images);
  for (let i = 0; i < o.images; i++) {
    // A cap of the sphere: azimuth around, elevation within +-35 deg.
    const azimuth = (2 * Math.PI * i) / o.images + 0.1 * random.normal();
    const elevation = 0.6 * (random.next() - 0.5) * 2;
    const centre: Vec3 = [radius * Math.cos(elevation) * Math.cos(azimuth), radius * Math.sin(elevation), radius * Math.cos(elevation) * Math.sin(azimuth)];
    const pose = lookAt(centre, [0.1 * random.normal(), 0.1 * random.normal(), 0.1 * random.normal()], 0.1 * random.normal());
    rotations.set(pose.rotation, 9 * i);
    translations.set(pose.translation, 3 * i);
  }
  const points = new Float64Array(3 * o.points);
  for (let j = 0; j < o.points; j++) {
    for (;;) {
      const p = [random.next() * 2 - 1, random.next() * 2 - 1, random.next() * 2 - 1];
      if (Math.hypot(p[0], p[1], p[2]) <= 1) {
        points.set(p.map((v) => v * spread), 3 * j);
        break;
      }
    }
  }
  const obsImage: number[] = [];
  const obsPoint: number[] = [];
  const obsXY: number[] = [];
  for (let j = 0; j < o.points; j++) {
    const seen = Array.from({ length: o.images }, () => random.next() < o.visibility);
    // At least two images, chosen at random where the draw gave fewer.
    while (seen.filter(Boolean).length < 2) seen[Math.floor(random.next() * o.images)] = true;
    seen.forEach((yes, i) => {
      if (!yes) return;
      const camera = cameras[imageCamera[i]];
      const [u, v] = projectWorldPoint(camera.model, camera.params, rotations.subarray(9 * i, 9 * i + 9), translations.subarray(3 * i, 3 * i + 3), points.subarray(3 * j, 3 * j + 3));
      obsImage.push(i);
      obsPoint.push(j);
      obsXY.push(u + o.noisePx * random.normal(), v + o.noisePx * random.normal());
    });
  }
  return { cameras, imageCamera, rotations, translations, points, obsImage: Uint32Array.from(obsImage), obsPoint: Uint32Array.from(obsPoint), obsXY: Float64Array.from(obsXY) };
}

export interface Perturbation {
  rotationDeg: number;
  /** Of the camera distance. */
  translationFraction: number;
  /** Absolute, in the scene's units. */
  pointSigma: number;
  /** Relative focal change; distortion terms get added noise of their own size scaled by this. */
  focalFraction: number;
}

/** A copy with poses rotated by rotationDeg about random axes, translations, points and focals perturbed. */
export function perturbed(problem: BaProblem, random: Random, p: Perturbation): BaProblem {
  const images = problem.rotations.length / 9;
  const rotations = problem.rotations.slice();
  const translations = problem.translations.slice();
  const fixed = problem.fixedImages ?? Uint8Array.from({ length: images }, (_, i) => (i === 0 ? 1 : 0));
  for (let i = 0; i < images; i++) {
    if (fixed[i]) continue;
    const axis = [random.normal(), random.normal(), random.normal()];
    const scale = ((p.rotationDeg * Math.PI) / 180) / Math.hypot(axis[0], axis[1], axis[2]);
    rotations.set(multiply3(rotationFromVector([axis[0] * scale, axis[1] * scale, axis[2] * scale]), rotations.subarray(9 * i, 9 * i + 9) as Mat3), 9 * i);
    const norm = Math.hypot(translations[3 * i], translations[3 * i + 1], translations[3 * i + 2]);
    for (let k = 0; k < 3; k++) translations[3 * i + k] += p.translationFraction * norm * random.normal() / Math.sqrt(3);
  }
  const cameras = problem.cameras.map((c) => ({
    model: c.model,
    params: c.params.map((value, index) => {
      const kind = CAMERA_MODELS[c.model].kinds[index];
      if (kind === 'focal') return value * (1 + p.focalFraction * (random.next() < 0.5 ? -1 : 1));
      return value;
    }),
  }));
  return { ...problem, cameras, rotations, translations, points: problem.points.map((x) => x + p.pointSigma * random.normal()) };
}

/** The dense Jacobian [Jc | Jp] of a linearisation (columns: the reduced layout, then 3 per point), with W and r. */
export function denseJacobian(lin: Linearisation): { j: Matrix; w: Float64Array; r: Float64Array } {
  const { problem, layout } = lin;
  const observations = lin.weights.length;
  const m = problem.points.length / 3;
  const j = Matrix.zeros(2 * observations, layout.reducedSize + 3 * m);
  const w = new Float64Array(2 * observations);
  for (let o = 0; o < observations; o++) {
    const i = problem.obsImage[o];
    const c = problem.imageCamera[i];
    const k = layout.refined[c].length;
    for (let row = 0; row < 2; row++) {
      w[2 * o + row] = lin.weights[o];
      if (layout.poseOffset[i] >= 0) for (let q = 0; q < 6; q++) j.set(2 * o + row, layout.poseOffset[i] + q, lin.jPose[12 * o + 6 * row + q]);
      for (let q = 0; q < k; q++) j.set(2 * o + row, layout.intrinsicOffset[c] + q, lin.jIntrinsics[2 * layout.intrinsicStride * o + k * row + q]);
      for (let q = 0; q < 3; q++) j.set(2 * o + row, layout.reducedSize + 3 * problem.obsPoint[o] + q, lin.jPoint[6 * o + 3 * row + q]);
    }
  }
  return { j, w, r: lin.residuals.slice() };
}

/** H = J^T W J, g = J^T W r, D = clamp(diag H). */
export function denseNormalEquations(lin: Linearisation): { h: Matrix; g: Float64Array; d: Float64Array } {
  const { j, w, r } = denseJacobian(lin);
  const wj = j.clone();
  for (let row = 0; row < wj.rows; row++) for (let col = 0; col < wj.columns; col++) wj.set(row, col, wj.get(row, col) * w[row]);
  const h = j.transpose().mmul(wj);
  const g = Float64Array.from(wj.transpose().mmul(Matrix.columnVector(Array.from(r))).to1DArray());
  const d = Float64Array.from({ length: h.rows }, (_, k) => Math.min(1e32, Math.max(1e-6, h.get(k, k))));
  return { h, g, d };
}

/** Solves a x = b for a symmetric positive definite a (symmetrised first: products leave it a rounding off). */
export function denseSolve(a: Matrix, b: ArrayLike<number>): Float64Array {
  const symmetric = a.clone().add(a.transpose()).mul(0.5);
  return Float64Array.from(new CholeskyDecomposition(symmetric).solve(Matrix.columnVector(Array.from(b))).to1DArray());
}

export function maxRelativeDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let scale = 0;
  for (let k = 0; k < b.length; k++) scale = Math.max(scale, Math.abs(b[k]));
  let max = 0;
  for (let k = 0; k < b.length; k++) max = Math.max(max, Math.abs(a[k] - b[k]));
  return a.length === b.length ? max / Math.max(scale, 1e-300) : Infinity;
}
