/**
 * One Levenberg-Marquardt iteration of the spec, float64, composed of reference.ts's pieces:
 * linearise at x, solve (H + lambda D) delta = -g by the Schur complement and PCG, evaluate the
 * robust cost at x + delta, accept if lower (Nielsen's lambda update on the gain ratio), else
 * raise lambda. The CPU solver loops it; the GPU solver's parity compares its accepted costs.
 */
import { multiply3 } from '../verify/dense.js';
import { rotationFromVector } from '../verify/rotation.js';
import { copyProblem, type BaOptions, type BaProblem, type ReducedLayout } from './problem.js';
import { backSubstitute, linearise, pcg, reducedRightHandSide, robustCost, schurSystem, type Linearisation } from './reference.js';
import { dot } from './small-dense.js';
import { nextDamping, type Damping } from './lm-driver.js';

export interface LmState extends Damping {
  /** The linearisation at the current parameters, kept when a step was rejected (x unchanged). */
  linearisation?: Linearisation;
}

export interface LmIterationResult {
  /** The parameters after the iteration: x + delta if accepted, else the input itself. */
  problem: BaProblem;
  state: LmState;
  /** The robust cost before, and after (the new one if accepted, else the same). */
  previousCost: number;
  cost: number;
  accepted: boolean;
  /** The lambda the step was solved with. */
  lambda: number;
  pcgIterations: number;
  pcgRelativeResidual: number;
  /** |delta| over every variable, and |x| over translations of free images, points and refined intrinsics. */
  stepNorm: number;
  parameterNorm: number;
  /** max |g| at x. */
  gradientMaxNorm: number;
  /** -(g.delta + 1/2 delta^T H delta), H undamped; and (previousCost - new cost) / it. */
  predictedReduction: number;
  gainRatio: number;
  /** Set when the iteration found x converged before stepping (no step taken). */
  converged?: 'gradient tolerance' | 'parameter tolerance';
}

export function initialLmState(options: Pick<BaOptions, 'initialLambda'>): LmState {
  return { lambda: options.initialLambda, nu: 2 };
}

export function lmIteration(problem: BaProblem, state: LmState, options: BaOptions): LmIterationResult {
  const lin = state.linearisation ?? linearise(problem, options);
  const { lambda } = state;
  const system = schurSystem(lin, lambda);
  const gradientMaxNorm = Math.max(maxAbs(system.cameras.gradient), maxAbs(system.points.gradient));
  const parameterNorm = parameterNormOf(problem, lin.layout);
  const unchanged = { problem, previousCost: lin.cost, cost: lin.cost, accepted: false, lambda, gradientMaxNorm, parameterNorm };
  if (gradientMaxNorm < options.gradientTolerance) {
    return { ...unchanged, state: { ...state, linearisation: lin }, pcgIterations: 0, pcgRelativeResidual: 0, stepNorm: 0, predictedReduction: 0, gainRatio: 0, converged: 'gradient tolerance' };
  }
  const solve = pcg(system, reducedRightHandSide(system), options.pcgMaxIterations, options.pcgTolerance);
  const dc = solve.x;
  const dp = backSubstitute(system, dc);
  const stepNorm = Math.sqrt(dot(dc, dc) + dot(dp, dp));
  const solved = { pcgIterations: solve.iterations, pcgRelativeResidual: solve.relativeResidual, stepNorm };
  if (stepNorm < options.parameterTolerance * (parameterNorm + options.parameterTolerance)) {
    return { ...unchanged, ...solved, state: { ...state, linearisation: lin }, predictedReduction: 0, gainRatio: 0, converged: 'parameter tolerance' };
  }
  const predictedReduction = -(dot(system.cameras.gradient, dc) + dot(system.points.gradient, dp) + 0.5 * quadraticTerm(lin, dc, dp));
  const candidate = applyStep(problem, lin.layout, dc, dp);
  const newCost = robustCost(candidate, options);
  const gainRatio = predictedReduction > 0 ? (lin.cost - newCost) / predictedReduction : 0;
  if (newCost < lin.cost) {
    return { ...unchanged, ...solved, problem: candidate, cost: newCost, accepted: true, state: nextDamping(state, true, gainRatio), predictedReduction, gainRatio };
  }
  return { ...unchanged, ...solved, state: { ...nextDamping(state, false, gainRatio), linearisation: lin }, predictedReduction, gainRatio };
}

/** delta^T H delta = sum_o w |Jc_o dc + Jp_o dp_j|^2 (H = J^T W J, undamped). */
function quadraticTerm(lin: Linearisation, dc: Float64Array, dp: Float64Array): number {
  const { problem, layout } = lin;
  const { poseOffset, intrinsicOffset, refined, intrinsicStride } = layout;
  let sum = 0;
  for (let o = 0; o < lin.weights.length; o++) {
    const i = problem.obsImage[o];
    const c = problem.imageCamera[i];
    const j = problem.obsPoint[o];
    let [u, v] = [0, 0];
    if (poseOffset[i] >= 0) {
      for (let k = 0; k < 6; k++) {
        u += lin.jPose[12 * o + k] * dc[poseOffset[i] + k];
        v += lin.jPose[12 * o + 6 + k] * dc[poseOffset[i] + k];
      }
    }
    const n = refined[c].length;
    for (let k = 0; k < n; k++) {
      u += lin.jIntrinsics[2 * intrinsicStride * o + k] * dc[intrinsicOffset[c] + k];
      v += lin.jIntrinsics[2 * intrinsicStride * o + n + k] * dc[intrinsicOffset[c] + k];
    }
    for (let k = 0; k < 3; k++) {
      u += lin.jPoint[6 * o + k] * dp[3 * j + k];
      v += lin.jPoint[6 * o + 3 + k] * dp[3 * j + k];
    }
    sum += lin.weights[o] * (u * u + v * v);
  }
  return sum;
}

/** x + delta (a copy): R <- Exp(dw) R, t <- t + dt, X <- X + dX, refined intrinsics additive. */
export function applyStep(problem: BaProblem, layout: ReducedLayout, dc: Float64Array, dp: Float64Array): BaProblem {
  const out = copyProblem(problem);
  layout.poseOffset.forEach((offset, i) => {
    if (offset < 0) return;
    const rotated = multiply3(rotationFromVector([dc[offset], dc[offset + 1], dc[offset + 2]]), out.rotations.subarray(9 * i, 9 * i + 9));
    out.rotations.set(rotated, 9 * i);
    for (let k = 0; k < 3; k++) out.translations[3 * i + k] += dc[offset + 3 + k];
  });
  layout.refined.forEach((indices, c) => indices.forEach((index, m) => (out.cameras[c].params[index] += dc[layout.intrinsicOffset[c] + m])));
  for (let k = 0; k < dp.length; k++) out.points[k] += dp[k];
  return out;
}

/** |x| as the parameter tolerance takes it: the free images' translations, the refined intrinsics, the points (both solvers). */
export function parameterNormOf(problem: BaProblem, layout: ReducedLayout): number {
  let sum = dot(problem.points, problem.points);
  layout.poseOffset.forEach((offset, i) => {
    if (offset >= 0) for (let k = 0; k < 3; k++) sum += problem.translations[3 * i + k] ** 2;
  });
  layout.refined.forEach((indices, c) => indices.forEach((index) => (sum += problem.cameras[c].params[index] ** 2)));
  return Math.sqrt(sum);
}

function maxAbs(values: Float64Array): number {
  let max = 0;
  for (const v of values) max = Math.max(max, Math.abs(v));
  return max;
}
