/**
 * Random small scenes and a finite-difference checker for the rasterizer reference tests.
 * Scenes are drawn from a seed (tests/helpers/random.ts) so a failure reproduces with
 * ARGONAUT_TEST_SEED. Parameters are float64: a central difference with eps ~1e-6 needs them.
 */
import type { PinholeCamera } from '../../shared/scene/camera.js';
import { shCoefficientCount } from '../../shared/scene/splats.js';
import { rasterizeForward, type RasterizeInput, type RasterizeOptions, type RasterizeResult } from './rasterize.js';

export interface Float64Splats {
  count: number;
  shDegree: number;
  means: Float64Array;
  logScales: Float64Array;
  quats: Float64Array;
  opacityLogits: Float64Array;
  sh: Float64Array;
}

export type ParamGroup = 'means' | 'logScales' | 'quats' | 'opacityLogits' | 'sh';
export const PARAM_GROUPS: readonly ParamGroup[] = ['means', 'logScales', 'quats', 'opacityLogits', 'sh'];

export interface SceneInput extends RasterizeInput {
  splats: Float64Splats;
}

export function uniform(rand: () => number, lo: number, hi: number): number {
  return lo + (hi - lo) * rand();
}

/** Unit quaternion (w, x, y, z) from three uniforms (Shoemake). */
export function randomUnitQuat(rand: () => number): [number, number, number, number] {
  const u1 = rand();
  const u2 = 2 * Math.PI * rand();
  const u3 = 2 * Math.PI * rand();
  const a = Math.sqrt(1 - u1);
  const b = Math.sqrt(u1);
  return [a * Math.sin(u2), a * Math.cos(u2), b * Math.sin(u3), b * Math.cos(u3)];
}

/** Row-major rotation matrix (3x3) of a unit quaternion (w, x, y, z). */
export function quatToMatrix([w, x, y, z]: readonly number[]): number[] {
  return [
    1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
    2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
    2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y),
  ];
}

/** A camera with a random orientation and position, intrinsics around a 60-70 degree field of view. */
export function randomCamera(rand: () => number, width: number, height: number): PinholeCamera {
  const R = quatToMatrix(randomUnitQuat(rand));
  const centre = [uniform(rand, -2, 2), uniform(rand, -2, 2), uniform(rand, -2, 2)];
  const t = [0, 1, 2].map((r) => -(R[3 * r] * centre[0] + R[3 * r + 1] * centre[1] + R[3 * r + 2] * centre[2]));
  const fx = width * uniform(rand, 0.8, 1.2);
  return {
    width,
    height,
    fx,
    fy: fx * uniform(rand, 0.9, 1.1),
    cx: width * uniform(rand, 0.4, 0.6),
    cy: height * uniform(rand, 0.4, 0.6),
    worldToCamera: [R[0], R[1], R[2], t[0], R[3], R[4], R[5], t[1], R[6], R[7], R[8], t[2], 0, 0, 0, 1],
  };
}

/** World point of a camera-space point: R^T (p - t). */
export function cameraToWorld(camera: PinholeCamera, p: readonly number[]): [number, number, number] {
  const m = camera.worldToCamera;
  const d = [p[0] - m[3], p[1] - m[7], p[2] - m[11]];
  return [0, 1, 2].map((c) => m[c] * d[0] + m[4 + c] * d[1] + m[8 + c] * d[2]) as [number, number, number];
}

export function emptyFloat64Splats(count: number, shDegree: number): Float64Splats {
  const K = shCoefficientCount(shDegree);
  return {
    count,
    shDegree,
    means: new Float64Array(3 * count),
    logScales: new Float64Array(3 * count),
    quats: new Float64Array(4 * count),
    opacityLogits: new Float64Array(count),
    sh: new Float64Array(count * K * 3),
  };
}

/** Least camera-z gap between two splats of a random scene (~50 float32 ulps at z = 4). */
export const MIN_DEPTH_GAP = 2e-5;

export type SplatKind = 'ordinary' | 'tiny' | 'huge' | 'transparent' | 'opaque' | 'behind' | 'offscreen';

export interface SceneSpec {
  count: number;
  width: number;
  height: number;
  /** The set's SH degree. */
  setDegree: number;
  /** Active degree to evaluate; default setDegree. */
  shDegree?: number;
  options: RasterizeOptions;
  /** Kinds of splats mixed in; default ordinary only. */
  kinds?: readonly SplatKind[];
  /** The first splats' kinds, one each (then `kinds` at random): a scene sure to hold a few of a kind. */
  leading?: readonly SplatKind[];
}

/**
 * A random scene: splats placed in camera space so most land in the image (some straddling the
 * borders and the 16x16 tile borders), then mapped to world space.
 */
export function randomScene(rand: () => number, spec: SceneSpec): SceneInput {
  const camera = randomCamera(rand, spec.width, spec.height);
  const splats = emptyFloat64Splats(spec.count, spec.setDegree);
  const K = shCoefficientCount(spec.setDegree);
  const kinds = spec.kinds ?? ['ordinary'];
  const depths: number[] = [];
  for (let i = 0; i < spec.count; i++) {
    const drawn = kinds[Math.floor(rand() * kinds.length)];
    const kind = spec.leading?.[i] ?? drawn;
    let z = uniform(rand, 1.5, 4);
    let u = uniform(rand, -0.15, 1.15) * spec.width;
    const v = uniform(rand, -0.15, 1.15) * spec.height;
    let logScale = [0, 1, 2].map(() => Math.log(uniform(rand, 0.015, 0.25)));
    let logit = uniform(rand, -2.5, 2.5);
    if (kind === 'tiny') logScale = logScale.map(() => Math.log(uniform(rand, 1e-4, 2e-3)));
    if (kind === 'huge') logScale = logScale.map(() => Math.log(uniform(rand, 1.5, 4)));
    if (kind === 'transparent') logit = uniform(rand, -6.5, -5); // opacity 0.0015..0.0067: some pixels under 1/255
    if (kind === 'opaque') {
      // Opacity > 0.99 and wide: alpha is clamped at 0.99 within ~0.14 sigma of the centre.
      logit = uniform(rand, 6, 12);
      logScale = logScale.map(() => Math.log(uniform(rand, 0.2, 0.6)));
    }
    if (kind === 'behind') z = uniform(rand, -2, 0.005);
    // Depth order is a discontinuity of the image: two overlapping splats whose depths differ by
    // a few float32 ulps may composite in either order on the GPU (its z is float32, computed from
    // the world-space mean). Keep every depth MIN_DEPTH_GAP away from the others (redraw the rare
    // collision) so float64/float32 parity compares the same order; ties are not a parity question.
    while (depths.some((d) => Math.abs(d - z) < MIN_DEPTH_GAP)) z = kind === 'behind' ? uniform(rand, -2, 0.005) : uniform(rand, 1.5, 4);
    depths.push(z);
    if (kind === 'offscreen') {
      // Far outside the widened frustum in x, so x/z is clamped in J; big enough to reach the image.
      u = (rand() < 0.5 ? -1.2 : 2.2) * spec.width;
      logScale = logScale.map(() => Math.log(uniform(rand, 1.5, 3)));
    }
    const p = [((u - camera.cx) / camera.fx) * z, ((v - camera.cy) / camera.fy) * z, z];
    splats.means.set(cameraToWorld(camera, p), 3 * i);
    splats.logScales.set(logScale, 3 * i);
    const q = randomUnitQuat(rand);
    const norm = uniform(rand, 0.5, 2); // unnormalized on purpose
    splats.quats.set(q.map((c) => c * norm), 4 * i);
    splats.opacityLogits[i] = logit;
    for (let k = 0; k < K; k++) {
      for (let c = 0; c < 3; c++) splats.sh[(i * K + k) * 3 + c] = k === 0 ? uniform(rand, -1.2, 1.2) : uniform(rand, -0.4, 0.4);
    }
  }
  const background = [rand(), rand(), rand()];
  return { splats, shDegree: spec.shDegree ?? spec.setDegree, camera, background, options: spec.options };
}

/** Weights of a random linear loss over every output a result carries. */
export interface LossWeights {
  rgb: Float64Array;
  alpha: Float64Array;
  depth: Float64Array;
  medianDepth?: Float64Array;
  normals?: Float64Array;
  distortion?: Float64Array;
}

export function randomLossWeights(rand: () => number, pixels: number, options: RasterizeOptions): LossWeights {
  const fill = (n: number): Float64Array => Float64Array.from({ length: n }, () => uniform(rand, -1, 1));
  const w: LossWeights = { rgb: fill(3 * pixels), alpha: fill(pixels), depth: fill(pixels) };
  if (options.medianDepth) w.medianDepth = fill(pixels);
  if (options.normals) w.normals = fill(3 * pixels);
  if (options.distortion) w.distortion = fill(pixels);
  return w;
}

export function linearLoss(result: RasterizeResult | Omit<RasterizeResult, 'projected'>, w: LossWeights): number {
  const dot = (a: ArrayLike<number> | undefined, b: ArrayLike<number> | undefined): number => {
    if (!a || !b) return 0;
    let s = 0;
    for (let k = 0; k < a.length; k++) s += a[k] * b[k];
    return s;
  };
  return (
    dot(result.rgb, w.rgb) +
    dot(result.alpha, w.alpha) +
    dot(result.depth, w.depth) +
    dot(result.medianDepth, w.medianDepth) +
    dot(result.normals, w.normals) +
    dot(result.distortion, w.distortion)
  );
}

export interface FiniteDifferenceReport {
  /** Relative L2 error |analytic - fd| / |fd| over the entries checked. */
  relError: number;
  checked: number;
  /** Entries skipped because +-eps changed a discrete decision (branchSignature). */
  skipped: number;
  fdNorm: number;
  worst: { index: number; analytic: number; fd: number };
}

/**
 * Central differences of `evaluate` over the entries `indices` of `values`, compared with
 * `analytic`; `eps` may depend on the entry (relative steps for values of very different scales). `evaluate` returns the loss and the signature of the discrete decisions; an entry
 * whose perturbations change the signature is skipped (it straddles a cut, a clamp or the stop).
 */
export function finiteDifferenceCheck(
  values: Float64Array,
  analytic: ArrayLike<number>,
  indices: Iterable<number>,
  eps: number | ((index: number) => number),
  evaluate: () => { loss: number; signature: number },
): FiniteDifferenceReport {
  const base = evaluate().signature;
  let diff2 = 0;
  let fd2 = 0;
  let checked = 0;
  let skipped = 0;
  const worst = { index: -1, analytic: 0, fd: 0 };
  let worstErr = -1;
  for (const j of indices) {
    const original = values[j];
    const step = typeof eps === 'number' ? eps : eps(j);
    values[j] = original + step;
    const plus = evaluate();
    values[j] = original - step;
    const minus = evaluate();
    values[j] = original;
    if (plus.signature !== base || minus.signature !== base) {
      skipped++;
      continue;
    }
    const fd = (plus.loss - minus.loss) / (2 * step);
    const err = analytic[j] - fd;
    diff2 += err * err;
    fd2 += fd * fd;
    checked++;
    if (Math.abs(err) > worstErr) {
      worstErr = Math.abs(err);
      Object.assign(worst, { index: j, analytic: analytic[j], fd });
    }
  }
  const fdNorm = Math.sqrt(fd2);
  return { relError: Math.sqrt(diff2) / Math.max(fdNorm, 1e-300), checked, skipped, fdNorm, worst };
}

/** Loss and signature of a full forward pass, for finiteDifferenceCheck. */
export function forwardEvaluator(input: RasterizeInput, weights: LossWeights): () => { loss: number; signature: number } {
  return () => {
    const r = rasterizeForward(input);
    return { loss: linearLoss(r, weights), signature: r.branchSignature };
  };
}

export function range(n: number): number[] {
  return Array.from({ length: n }, (_, k) => k);
}
