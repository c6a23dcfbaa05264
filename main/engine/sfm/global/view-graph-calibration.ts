/**
 * View-graph calibration (GLOMAP's stage before the view graph's relative poses): the focal length
 * of each camera from the fundamental matrices of its UNCALIBRATED pairs. Photos without EXIF get
 * a guessed focal (COLMAP's 1.2 x the long side; 41% short on the statue), and E = K2^T F K1 with
 * the wrong K is not an essential matrix: its two non-zero singular values differ, and the pose
 * decomposed from it is distorted (24 deg median rotation error on the statue, docs/sfm.md). With
 * the right K they are equal, so each pair's error is
 *
 *   r = (s1 - s2) / (s1 + s2)  of  E = K2^T F K1,  in [0, 1], 0 for an essential matrix,
 *
 * and each camera's focal minimises sum rho(r^2) over its pairs (rho: Cauchy). GLOMAP minimises
 * Fetzer's focal cost with Ceres instead; this residual is the one its filter's idea rests on, and
 * a camera's focal is one number, so a dense 1-D search on log f (then a golden-section polish) per
 * camera finds the global minimum of its slice, where a local solver from a 41%-short start may
 * not. Several cameras: coordinate descent, a slice per camera per round, until none moves.
 * Principal points and the focal's aspect (focalY / focalX) are kept.
 *
 * A camera keeps its guess, saying so in its stats, when it has a prior focal (EXIF, or a CALIBRATED
 * pair: verification had its intrinsics), when no
 * usable F-only pair touches it (a pure rotation is PANORAMIC, with no F), or when its slice does
 * not constrain the focal (minimum at the search's bound, hardly deeper than the slice's median,
 * or hardly lower than 25% either side: cameras orbiting one point at a narrow field of view are
 * close to F's degenerate case, optical axes that meet). After the
 * solve, pairs whose error stays above maxCalibrationError between calibrated or fixed cameras are
 * flagged (GLOMAP drops them too: a wrong F, a repeated texture). Float64 on the CPU.
 */
import { choleskyFactor, choleskySolve } from './cholesky.js';
import { multiply3, svd3, transpose3, type Mat3 } from '../verify/dense.js';
import { TwoViewConfiguration, type PinholeIntrinsics } from '../verify/verify-options.js';
import type { VerifiedPair } from '../verify/verify-pairs.js';
import type { DroppedEdge } from './view-graph.js';

export interface ViewGraphCalibrationInput {
  imageCount: number;
  verified: readonly VerifiedPair[];
  /** Per image; a shared camera is the same object repeated, and is calibrated as one. */
  cameras: readonly PinholeIntrinsics[];
  /** Per image: true where the focal is a prior (EXIF), held fixed. Absent: every focal is a guess. */
  focalKnown?: readonly boolean[];
}

export interface ViewGraphCalibrationOptions {
  minInliers: number;
  /** Cauchy scale of r (rho(r^2) = c^2 log(1 + r^2 / c^2)). */
  calibrationLoss: number;
  /** Pairs whose r stays above this after the solve are flagged. */
  maxCalibrationError: number;
}

export type CameraCalibrationStatus = 'calibrated' | 'fixed' | 'unconstrained';

export interface CameraCalibration {
  /** The images that share this camera. */
  images: number[];
  guessFocal: number;
  /** focalX after calibration (the guess where the status is not 'calibrated'). */
  focal: number;
  /** Usable F-only pairs that touch it. */
  pairs: number;
  status: CameraCalibrationStatus;
  /** Why a camera kept its guess; absent when calibrated. */
  reason?: string;
}

export interface ViewGraphCalibrationStats {
  cameras: CameraCalibration[];
  pairsUsed: number;
  pairsFlagged: number;
  /** Median r over the used pairs with the guessed and the calibrated focals. */
  medianErrorBefore: number;
  medianErrorAfter: number;
  rounds: number;
}

export interface ViewGraphCalibrationResult {
  /** Per image; images sharing a camera share the new object. */
  cameras: PinholeIntrinsics[];
  /** Indices into `verified` of the flagged pairs, and their reason for the view graph's dropped edges. */
  flagged: Map<number, DroppedEdge>;
  stats: ViewGraphCalibrationStats;
}

/** The search's range around the guess, as a factor each way (GLOMAP rejects focals beyond 10x; a guess from the image size is within 4x for lenses from ~10 to ~200 mm equivalent). */
const RANGE = 4;
/** Grid points of the 1-D search over log f in [guess / RANGE, guess * RANGE]: a 2.3% step, polished after. */
const GRID = 121;
/** A slice whose minimum is less than this share below its median does not constrain the focal. */
const MIN_DEPTH = 0.1;
/**
 * ... nor one whose cost 25% either side of the minimum is not at least this times the minimum:
 * the F's fit a range of focals about equally (the statue, 23 photos orbiting at a 27-degree field
 * of view: 2% more cost at 1.25 x its minimum, which lies at 0.24 x COLMAP's focal; docs/sfm.md).
 */
const MIN_SHARPNESS = 1.5;
const SHARPNESS_STEP = Math.log(1.25);
const MAX_ROUNDS = 20;
/**
 * Cameras joined by pairs lie in a valley of the joint cost (their focals trade off), where
 * coordinate descent zigzags: 20 rounds left two cameras 10% off. Newton steps on all free
 * cameras at once (finite-difference Hessian, damped) finish it, up to this many cameras (the
 * Hessian costs n^2 cost evaluations); beyond, coordinate descent alone.
 */
const MAX_JOINT_CAMERAS = 30;
const JOINT_ITERATIONS = 30;
/** Coordinate descent stops when no camera's log f moves more than this (1e-6 relative). */
const CONVERGED = 1e-6;

interface CalibrationPair {
  index: number;
  first: number;
  second: number;
  /** Camera groups of the two images. */
  groupA: number;
  groupB: number;
  fundamental: Mat3;
}

export function calibrateViewGraph(input: ViewGraphCalibrationInput, options: ViewGraphCalibrationOptions): ViewGraphCalibrationResult {
  const { imageCount, verified, cameras } = input;
  if (cameras.length !== imageCount) throw new Error(`view-graph-calibration.ts: ${imageCount} images but ${cameras.length} cameras`);
  // Groups: one per distinct camera object.
  const groupOf = new Map<PinholeIntrinsics, number>();
  const imageGroup = cameras.map((c) => {
    if (!groupOf.has(c)) groupOf.set(c, groupOf.size);
    return groupOf.get(c)!;
  });
  const guesses = [...groupOf.keys()];
  const images = guesses.map(() => [] as number[]);
  imageGroup.forEach((g, i) => images[g].push(i));
  // Verification returns CALIBRATED (E) only where it had both images' intrinsics: those are
  // priors too, even where the input does not say so (the UNCALIBRATED pairs among them are ones
  // whose F fitted better than E with those intrinsics, not evidence against them).
  const verifiedWithIntrinsics = new Set<number>();
  for (const { pair, geometry } of verified) {
    if (geometry.configuration === TwoViewConfiguration.CALIBRATED) for (const i of pair) if (i >= 0 && i < imageCount) verifiedWithIntrinsics.add(i);
  }
  const fixedReason = guesses.map((_, g) => {
    if (images[g].some((i) => input.focalKnown?.[i] === true)) return 'prior focal (EXIF): held fixed';
    if (images[g].some((i) => verifiedWithIntrinsics.has(i))) return 'verification used its intrinsics (a CALIBRATED pair): held fixed';
    return undefined;
  });
  const fixed = fixedReason.map((reason) => reason !== undefined);

  const pairs: CalibrationPair[] = [];
  verified.forEach(({ pair: [a, b], geometry }, index) => {
    if (geometry.configuration !== TwoViewConfiguration.UNCALIBRATED || !geometry.fundamental || geometry.inliers.length < options.minInliers) return;
    if (a < 0 || b < 0 || a >= imageCount || b >= imageCount || a === b) return; // the view graph names these
    const fundamental = rankTwo(geometry.fundamental);
    if (fundamental) pairs.push({ index, first: a, second: b, groupA: imageGroup[a], groupB: imageGroup[b], fundamental });
  });
  const pairsOf = guesses.map(() => [] as CalibrationPair[]);
  for (const p of pairs) {
    pairsOf[p.groupA].push(p);
    if (p.groupB !== p.groupA) pairsOf[p.groupB].push(p);
  }

  // log of the multiplier on each group's guessed focal.
  const logScale = new Float64Array(guesses.length);
  const errorOf = (p: CalibrationPair, scale: Float64Array) => essentialError(p.fundamental, guesses[p.groupA], Math.exp(scale[p.groupA]), guesses[p.groupB], Math.exp(scale[p.groupB]));
  const c2 = options.calibrationLoss ** 2;
  const sliceCost = (g: number, value: number): number => {
    const trial = Float64Array.from(logScale);
    trial[g] = value;
    let sum = 0;
    for (const p of pairsOf[g]) sum += c2 * Math.log1p(errorOf(p, trial) ** 2 / c2);
    return sum;
  };
  const medianErrorBefore = median(pairs.map((p) => errorOf(p, logScale)));

  const free = guesses.map((_, g) => !fixed[g] && pairsOf[g].length > 0);
  const unconstrained = new Map<number, string>();
  let rounds = 0;
  for (; rounds < MAX_ROUNDS && free.some(Boolean); ) {
    rounds++;
    let moved = 0;
    for (let g = 0; g < guesses.length; g++) {
      if (!free[g]) continue;
      const slice = searchSlice((value) => sliceCost(g, value));
      moved = Math.max(moved, Math.abs(slice.best - logScale[g]));
      logScale[g] = slice.best;
      if (slice.flat) unconstrained.set(g, slice.flat);
      else unconstrained.delete(g);
    }
    if (moved < CONVERGED) break;
  }
  // A camera whose slice was flat keeps its guess: its pairs say nothing about its focal.
  for (const g of unconstrained.keys()) logScale[g] = 0;
  const joint = guesses.map((_, g) => g).filter((g) => free[g] && !unconstrained.has(g));
  if (joint.length > 1 && joint.length <= MAX_JOINT_CAMERAS) {
    const totalCost = (scale: Float64Array) => pairs.reduce((sum, p) => sum + c2 * Math.log1p(errorOf(p, scale) ** 2 / c2), 0);
    newtonSteps(totalCost, logScale, joint);
  }

  const stats: CameraCalibration[] = guesses.map((guess, g) => {
    const common = { images: images[g], guessFocal: guess.focalX, pairs: pairsOf[g].length };
    if (fixed[g]) return { ...common, focal: guess.focalX, status: 'fixed', reason: fixedReason[g]! };
    if (pairsOf[g].length === 0) return { ...common, focal: guess.focalX, status: 'unconstrained', reason: `no pair with a fundamental matrix only (UNCALIBRATED, >= ${options.minInliers} inliers) touches it` };
    if (unconstrained.has(g)) return { ...common, focal: guess.focalX, status: 'unconstrained', reason: unconstrained.get(g)! };
    return { ...common, focal: guess.focalX * Math.exp(logScale[g]), status: 'calibrated' };
  });
  const calibrated = guesses.map((guess, g) => (logScale[g] === 0 ? guess : { ...guess, focalX: guess.focalX * Math.exp(logScale[g]), focalY: guess.focalY * Math.exp(logScale[g]) }));

  const flagged = new Map<number, DroppedEdge>();
  const trusted = (g: number) => stats[g].status !== 'unconstrained';
  const errorsAfter = pairs.map((p) => {
    const error = errorOf(p, logScale);
    if (error > options.maxCalibrationError && trusted(p.groupA) && trusted(p.groupB)) {
      flagged.set(p.index, { first: Math.min(p.first, p.second), second: Math.max(p.first, p.second), reason: `E = K2^T F K1 with the calibrated focals is not essential: (s1 - s2) / (s1 + s2) = ${error.toFixed(3)} > ${options.maxCalibrationError}` });
    }
    return error;
  });
  return {
    cameras: imageGroup.map((g) => calibrated[g]),
    flagged,
    stats: { cameras: stats, pairsUsed: pairs.length, pairsFlagged: flagged.size, medianErrorBefore, medianErrorAfter: median(errorsAfter), rounds },
  };
}

/**
 * (s1 - s2) / (s1 + s2) of E = K_b^T F K_a, the intrinsics' focals multiplied by scaleA and scaleB.
 * F is rank 2 (rankTwo), so E's squared singular values are the roots of x^2 - |E|^2 x + m = 0,
 * m the sum of E's squared 2x2 minors (s1^2 s2^2): no SVD in the search's inner loop. The root of
 * a difference that cancels at s1 = s2 leaves r exact to ~1e-8 there, far below a real F's noise.
 */
export function essentialError(fundamental: Mat3, cameraA: PinholeIntrinsics, scaleA: number, cameraB: PinholeIntrinsics, scaleB: number): number {
  const ka = Float64Array.from([scaleA * cameraA.focalX, 0, cameraA.principalX, 0, scaleA * cameraA.focalY, cameraA.principalY, 0, 0, 1]);
  const kb = Float64Array.from([scaleB * cameraB.focalX, 0, cameraB.principalX, 0, scaleB * cameraB.focalY, cameraB.principalY, 0, 0, 1]);
  const e = multiply3(multiply3(transpose3(kb), fundamental), ka);
  let norm = 0;
  for (let k = 0; k < 9; k++) norm += e[k] * e[k];
  let minors = 0;
  for (const [r0, r1] of [[0, 1], [0, 2], [1, 2]]) {
    for (const [c0, c1] of [[0, 1], [0, 2], [1, 2]]) minors += (e[3 * r0 + c0] * e[3 * r1 + c1] - e[3 * r0 + c1] * e[3 * r1 + c0]) ** 2;
  }
  const root = Math.sqrt(Math.max(0, norm * norm - 4 * minors));
  const s1 = Math.sqrt((norm + root) / 2);
  const s2 = Math.sqrt(Math.max(0, (norm - root) / 2));
  return s1 > 0 ? (s1 - s2) / (s1 + s2) : 1;
}

/** Damped Newton on `cost` over the entries `vary` of `x` (in place), finite-difference gradient and Hessian; each step kept only if it lowers the cost and stays within the search's range. */
function newtonSteps(cost: (x: Float64Array) => number, x: Float64Array, vary: readonly number[]): void {
  const n = vary.length;
  const h = 1e-4;
  const at = (deltas: [number, number][]) => {
    const trial = Float64Array.from(x);
    for (const [k, d] of deltas) trial[vary[k]] += d;
    return cost(trial);
  };
  let current = cost(x);
  let damping = 1e-3;
  for (let iteration = 0; iteration < JOINT_ITERATIONS; iteration++) {
    const gradient = new Float64Array(n);
    const hessian = new Float64Array(n * n);
    for (let i = 0; i < n; i++) {
      const [plus, minus] = [at([[i, h]]), at([[i, -h]])];
      gradient[i] = (plus - minus) / (2 * h);
      hessian[i * n + i] = (plus - 2 * current + minus) / (h * h);
      for (let j = 0; j < i; j++) {
        const mixed = (at([[i, h], [j, h]]) - at([[i, h], [j, -h]]) - at([[i, -h], [j, h]]) + at([[i, -h], [j, -h]])) / (4 * h * h);
        hessian[i * n + j] = hessian[j * n + i] = mixed;
      }
    }
    let improved = false;
    for (let attempt = 0; attempt < 10 && !improved; attempt++) {
      const damped = Float64Array.from(hessian);
      for (let i = 0; i < n; i++) damped[i * n + i] += damping * Math.max(Math.abs(hessian[i * n + i]), 1e-12);
      const factor = choleskyFactor(damped, n);
      const step = factor && choleskySolve(factor, n, Float64Array.from(gradient, (g) => -g), 1);
      if (step && step.every(Number.isFinite)) {
        const trial = Float64Array.from(x);
        vary.forEach((g, k) => (trial[g] += step[k]));
        const value = cost(trial);
        if (value < current && vary.every((g) => Math.abs(trial[g]) <= Math.log(RANGE))) {
          const moved = Math.max(...step.map(Math.abs));
          x.set(trial);
          current = value;
          damping = Math.max(damping / 10, 1e-9);
          improved = true;
          if (moved < CONVERGED) return;
          continue;
        }
      }
      damping *= 10;
    }
    if (!improved) return;
  }
}

/** F with its smallest singular value zeroed (verification's F is rank 2 up to rounding), or undefined when it is not a usable rank-2 matrix. */
function rankTwo(fundamental: Mat3): Mat3 | undefined {
  if (!fundamental.every(Number.isFinite)) return undefined;
  const { u, singularValues: [s1, s2], v } = svd3(fundamental);
  if (!(s1 > 0) || s2 < 1e-9 * s1) return undefined;
  const us = Float64Array.from([u[0] * s1, u[1] * s2, 0, u[3] * s1, u[4] * s2, 0, u[6] * s1, u[7] * s2, 0]);
  return multiply3(us, transpose3(v));
}

/** The minimum of `cost` over log f in [-log RANGE, log RANGE]: the grid's best, polished by golden section between its neighbours; `flat` says why it does not constrain the focal. */
function searchSlice(cost: (value: number) => number): { best: number; flat?: string } {
  const low = -Math.log(RANGE);
  const step = (2 * Math.log(RANGE)) / (GRID - 1);
  const values = Array.from({ length: GRID }, (_, k) => cost(low + k * step));
  let k = 0;
  for (let j = 1; j < GRID; j++) if (values[j] < values[k]) k = j;
  const middle = median(values);
  if (k === 0 || k === GRID - 1) return { best: 0, flat: `the cost is lowest at the search's bound (${k === 0 ? `1/${RANGE}` : RANGE} x the guess): its pairs do not fix the focal` };
  if (middle - values[k] < MIN_DEPTH * middle) {
    return { best: 0, flat: `the cost hardly varies with the focal (minimum ${((100 * (middle - values[k])) / Math.max(middle, 1e-300)).toFixed(1)}% below the median over 1/${RANGE}..${RANGE} x the guess): its pairs do not fix the focal (a pure rotation, or optical axes that meet)` };
  }
  let [a, b] = [low + (k - 1) * step, low + (k + 1) * step];
  const ratio = (Math.sqrt(5) - 1) / 2;
  let x1 = b - ratio * (b - a);
  let x2 = a + ratio * (b - a);
  let [f1, f2] = [cost(x1), cost(x2)];
  while (b - a > CONVERGED / 10) {
    if (f1 < f2) {
      [b, x2, f2] = [x2, x1, f1];
      x1 = b - ratio * (b - a);
      f1 = cost(x1);
    } else {
      [a, x1, f1] = [x1, x2, f2];
      x2 = a + ratio * (b - a);
      f2 = cost(x2);
    }
  }
  const best = (a + b) / 2;
  const minimum = cost(best);
  const sharpness = Math.min(cost(best - SHARPNESS_STEP), cost(best + SHARPNESS_STEP)) / Math.max(minimum, 1e-300);
  if (sharpness < MIN_SHARPNESS) {
    return { best: 0, flat: `the cost 25% either side of its minimum (${Math.exp(best).toFixed(3)} x the guess) is only ${sharpness.toFixed(3)} x the minimum (< ${MIN_SHARPNESS}): its pairs' F fit a range of focals about equally` };
  }
  return { best };
}

function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[sorted.length >> 1];
}
