/**
 * Bundle adjustment's float64 reference, one piece per step of the spec (docs/sfm.md, "Bundle
 * adjustment"), so the GPU solver is checked term by term: linearise (residuals, IRLS weights,
 * Jacobians) -> pointBlocks (V_j, its damped inverse, g_p) -> cameraBlocks (U's diagonal blocks,
 * g_c, the block-Jacobi preconditioner of S) -> reducedRightHandSide, schurMatVec (S never
 * formed), pcg -> backSubstitute. lm-iteration.ts composes them into one LM iteration.
 *
 * Layouts (flat row-major, by index): per observation residual 2, weight 1, jPose 2x6, jPoint 2x3,
 * jIntrinsics 2 x k_c at a stride of 2 * intrinsicStride (row r of observation o at
 * o * 2 * stride + r * k_c); per point 3x3 blocks and 3-vectors; per free image (slot =
 * poseOffset / 6) 6x6 blocks; per camera k_c x k_c blocks at intrinsicBlockOffset[c]; reduced
 * vectors in ReducedLayout's order.
 */
import { generalIntrinsics, linearizeObservation, observationJacobiansScratch, cameraPoint, projectGeneral, SLOT_COUNT } from './camera-models.js';
import { buildObservationGraph, buildReducedLayout, observationCountOf, pointCountOf, type BaOptions, type BaProblem, type ObservationGraph, type ReducedLayout } from './problem.js';
import { lossValue, lossWeight, MAX_DIAGONAL, MIN_DIAGONAL, type LossOptions } from './robust-loss.js';
import { dot, invertSymmetricPositive, multiplyBlock } from './small-dense.js';

// The losses moved to robust-loss.ts; exported here too, as the spec's list of reference pieces names them.
export { lossValue, lossWeight, MAX_DIAGONAL, MIN_DIAGONAL, type LossOptions } from './robust-loss.js';

/** Per observation |r_o|^2, pixels^2 (Infinity where a point projects to z = 0). */
export function squaredResiduals(problem: BaProblem): Float64Array {
  const out = new Float64Array(observationCountOf(problem));
  const general = problem.cameras.map((c) => generalIntrinsics(c.model, c.params));
  const xc = new Float64Array(3);
  const rotated = new Float64Array(3);
  const uv = new Float64Array(2);
  for (let o = 0; o < out.length; o++) {
    const i = problem.obsImage[o];
    cameraPoint(problem.rotations, 9 * i, problem.translations, 3 * i, problem.points, 3 * problem.obsPoint[o], xc, rotated);
    projectGeneral(general[problem.imageCamera[i]], xc, uv);
    const s = (uv[0] - problem.obsXY[2 * o]) ** 2 + (uv[1] - problem.obsXY[2 * o + 1]) ** 2;
    out[o] = Number.isNaN(s) ? Infinity : s;
  }
  return out;
}

/** 1/2 sum_o rho(|r_o|^2): the cost LM compares, float64. */
export function robustCost(problem: BaProblem, o: LossOptions): number {
  let sum = 0;
  for (const s of squaredResiduals(problem)) sum += lossValue(s, o);
  return 0.5 * sum;
}

export interface Linearisation {
  problem: BaProblem;
  graph: ObservationGraph;
  layout: ReducedLayout;
  residuals: Float64Array;
  weights: Float64Array;
  jPose: Float64Array;
  jPoint: Float64Array;
  jIntrinsics: Float64Array;
  /** The robust cost at this point. */
  cost: number;
}

export function linearise(problem: BaProblem, options: BaOptions, graph = buildObservationGraph(problem), layout = buildReducedLayout(problem, options)): Linearisation {
  const count = observationCountOf(problem);
  const stride = 2 * layout.intrinsicStride;
  const lin: Linearisation = {
    problem,
    graph,
    layout,
    residuals: new Float64Array(2 * count),
    weights: new Float64Array(count),
    jPose: new Float64Array(12 * count),
    jPoint: new Float64Array(6 * count),
    jIntrinsics: new Float64Array(stride * count),
    cost: 0,
  };
  const general = problem.cameras.map((c) => generalIntrinsics(c.model, c.params, new Float64Array(SLOT_COUNT)));
  const out = observationJacobiansScratch();
  let cost = 0;
  for (let o = 0; o < count; o++) {
    const i = problem.obsImage[o];
    const c = problem.imageCamera[i];
    linearizeObservation(problem.cameras[c].model, general[c], layout.refined[c], problem.rotations, 9 * i, problem.translations, 3 * i, problem.points, 3 * problem.obsPoint[o], problem.obsXY[2 * o], problem.obsXY[2 * o + 1], out);
    const s = out.residual[0] ** 2 + out.residual[1] ** 2;
    cost += lossValue(s, options);
    lin.weights[o] = lossWeight(s, options);
    lin.residuals.set(out.residual, 2 * o);
    lin.jPose.set(out.jPose, 12 * o);
    lin.jPoint.set(out.jPoint, 6 * o);
    lin.jIntrinsics.set(out.jIntrinsics.subarray(0, 2 * layout.refined[c].length), stride * o);
  }
  lin.cost = 0.5 * cost;
  return lin;
}

const clampDiagonal = (d: number) => Math.min(MAX_DIAGONAL, Math.max(MIN_DIAGONAL, d));

export interface PointBlocks {
  /** V_j = sum_o w Jp^T Jp, undamped (9 per point). */
  v: Float64Array;
  /** (V_j + lambda D_j)^-1 (9 per point); zero for a block that is not positive definite (the point is held). */
  vDampedInverse: Float64Array;
  /** g_p = sum_o w Jp^T r (3 per point). */
  gradient: Float64Array;
  /** D_j = clamp(diag V_j) (3 per point). */
  diagonal: Float64Array;
}

export function pointBlocks(lin: Linearisation, lambda: number): PointBlocks {
  const m = pointCountOf(lin.problem);
  const blocks: PointBlocks = { v: new Float64Array(9 * m), vDampedInverse: new Float64Array(9 * m), gradient: new Float64Array(3 * m), diagonal: new Float64Array(3 * m) };
  const { pointObsStart, pointObs } = lin.graph;
  const damped = new Float64Array(9);
  const scratch = new Float64Array(18);
  for (let j = 0; j < m; j++) {
    for (let k = pointObsStart[j]; k < pointObsStart[j + 1]; k++) {
      const o = pointObs[k];
      const w = lin.weights[o];
      const jp = lin.jPoint.subarray(6 * o, 6 * o + 6);
      for (let r = 0; r < 3; r++) {
        for (let c = 0; c < 3; c++) blocks.v[9 * j + 3 * r + c] += w * (jp[r] * jp[c] + jp[3 + r] * jp[3 + c]);
        blocks.gradient[3 * j + r] += w * (jp[r] * lin.residuals[2 * o] + jp[3 + r] * lin.residuals[2 * o + 1]);
      }
    }
    damped.set(blocks.v.subarray(9 * j, 9 * j + 9));
    for (let r = 0; r < 3; r++) {
      blocks.diagonal[3 * j + r] = clampDiagonal(damped[4 * r]);
      damped[4 * r] += lambda * blocks.diagonal[3 * j + r];
    }
    invertSymmetricPositive(damped, 0, 3, blocks.vDampedInverse, 9 * j, scratch);
  }
  return blocks;
}

export interface CameraBlocks {
  /** U_ii = sum_{o in i} w Jpose^T Jpose, undamped (36 per free image, by slot). */
  poseBlocks: Float64Array;
  /** Per camera: where its k_c x k_c blocks start in intrinsicBlocks and the intrinsic preconditioner arrays. */
  intrinsicBlockOffset: Int32Array;
  /** U_cc = sum over the camera's observations of w Jintr^T Jintr, undamped. */
  intrinsicBlocks: Float64Array;
  /** g_c (reducedSize). */
  gradient: Float64Array;
  /** D_c = clamp(diag U) (reducedSize). */
  diagonal: Float64Array;
  /** The preconditioner's blocks before inversion: per free image S_ii = U_ii + lambda D_i - sum_{o in i} B_o V_j^-1 B_o^T (B_o = w Jpose^T Jp); per camera U_cc + lambda D_c, no Schur term. */
  posePreconditioner: Float64Array;
  intrinsicPreconditioner: Float64Array;
  /** Their inverses (a block that is not positive definite: the inverse of its diagonal). */
  posePreconditionerInverse: Float64Array;
  intrinsicPreconditionerInverse: Float64Array;
}

export function cameraBlocks(lin: Linearisation, points: PointBlocks, lambda: number): CameraBlocks {
  const { layout, problem } = lin;
  const { poseOffset, intrinsicOffset, refined } = layout;
  const intrinsicBlockOffset = new Int32Array(problem.cameras.length);
  let intrinsicTotal = 0;
  refined.forEach((indices, c) => {
    intrinsicBlockOffset[c] = intrinsicTotal;
    intrinsicTotal += indices.length ** 2;
  });
  const free = layout.freeImageCount;
  const blocks: CameraBlocks = {
    poseBlocks: new Float64Array(36 * free),
    intrinsicBlockOffset,
    intrinsicBlocks: new Float64Array(intrinsicTotal),
    gradient: new Float64Array(layout.reducedSize),
    diagonal: new Float64Array(layout.reducedSize),
    posePreconditioner: new Float64Array(36 * free),
    intrinsicPreconditioner: new Float64Array(intrinsicTotal),
    posePreconditionerInverse: new Float64Array(36 * free),
    intrinsicPreconditionerInverse: new Float64Array(intrinsicTotal),
  };
  const stride = 2 * layout.intrinsicStride;
  const schurTerm = new Float64Array(36 * free);
  const b = new Float64Array(18);
  const bv = new Float64Array(18);
  for (let o = 0; o < lin.weights.length; o++) {
    const i = problem.obsImage[o];
    const c = problem.imageCamera[i];
    const w = lin.weights[o];
    const [r0, r1] = [lin.residuals[2 * o], lin.residuals[2 * o + 1]];
    if (poseOffset[i] >= 0) {
      const slot = poseOffset[i] / 6;
      const jq = lin.jPose.subarray(12 * o, 12 * o + 12);
      const jp = lin.jPoint.subarray(6 * o, 6 * o + 6);
      for (let r = 0; r < 6; r++) {
        for (let col = 0; col < 6; col++) blocks.poseBlocks[36 * slot + 6 * r + col] += w * (jq[r] * jq[col] + jq[6 + r] * jq[6 + col]);
        blocks.gradient[poseOffset[i] + r] += w * (jq[r] * r0 + jq[6 + r] * r1);
        for (let col = 0; col < 3; col++) b[3 * r + col] = w * (jq[r] * jp[col] + jq[6 + r] * jp[3 + col]);
      }
      // B V_j^-1 B^T, V_j damped: the point's share of the image's diagonal block of S.
      const vInverse = points.vDampedInverse.subarray(9 * problem.obsPoint[o], 9 * problem.obsPoint[o] + 9);
      for (let r = 0; r < 6; r++) for (let col = 0; col < 3; col++) bv[3 * r + col] = b[3 * r] * vInverse[col] + b[3 * r + 1] * vInverse[3 + col] + b[3 * r + 2] * vInverse[6 + col];
      for (let r = 0; r < 6; r++) for (let col = 0; col < 6; col++) schurTerm[36 * slot + 6 * r + col] += bv[3 * r] * b[3 * col] + bv[3 * r + 1] * b[3 * col + 1] + bv[3 * r + 2] * b[3 * col + 2];
    }
    const k = refined[c].length;
    const ji = lin.jIntrinsics.subarray(stride * o, stride * o + 2 * k);
    const base = intrinsicBlockOffset[c];
    for (let r = 0; r < k; r++) {
      for (let col = 0; col < k; col++) blocks.intrinsicBlocks[base + k * r + col] += w * (ji[r] * ji[col] + ji[k + r] * ji[k + col]);
      blocks.gradient[intrinsicOffset[c] + r] += w * (ji[r] * r0 + ji[k + r] * r1);
    }
  }
  const scratch = new Float64Array(128);
  const dampInvert = (undamped: Float64Array, offset: number, n: number, reducedOffset: number, schur: Float64Array | undefined, preconditioner: Float64Array, inverse: Float64Array) => {
    for (let r = 0; r < n; r++) {
      blocks.diagonal[reducedOffset + r] = clampDiagonal(undamped[offset + (n + 1) * r]);
      for (let col = 0; col < n; col++) {
        const at = offset + n * r + col;
        preconditioner[at] = undamped[at] - (schur ? schur[at] : 0) + (r === col ? lambda * blocks.diagonal[reducedOffset + r] : 0);
      }
    }
    if (invertSymmetricPositive(preconditioner, offset, n, inverse, offset, scratch)) return;
    for (let r = 0; r < n; r++) inverse[offset + (n + 1) * r] = 1 / Math.max(preconditioner[offset + (n + 1) * r], MIN_DIAGONAL);
  };
  for (let i = 0; i < poseOffset.length; i++) {
    if (poseOffset[i] >= 0) dampInvert(blocks.poseBlocks, 6 * poseOffset[i], 6, poseOffset[i], schurTerm, blocks.posePreconditioner, blocks.posePreconditionerInverse);
  }
  refined.forEach((indices, c) => {
    if (indices.length) dampInvert(blocks.intrinsicBlocks, intrinsicBlockOffset[c], indices.length, intrinsicOffset[c], undefined, blocks.intrinsicPreconditioner, blocks.intrinsicPreconditionerInverse);
  });
  return blocks;
}

/** One LM system at a lambda: what the Schur products need. */
export interface SchurSystem {
  lin: Linearisation;
  points: PointBlocks;
  cameras: CameraBlocks;
  lambda: number;
}

export function schurSystem(lin: Linearisation, lambda: number): SchurSystem {
  const points = pointBlocks(lin, lambda);
  return { lin, points, cameras: cameraBlocks(lin, points, lambda), lambda };
}

/** out = Jc_o x: the observation's reduced Jacobian (pose if free, then intrinsics) times x. */
function reducedJacobianTimes(lin: Linearisation, o: number, x: Float64Array, out: Float64Array): void {
  const i = lin.problem.obsImage[o];
  const c = lin.problem.imageCamera[i];
  const { poseOffset, intrinsicOffset, refined, intrinsicStride } = lin.layout;
  let [u, v] = [0, 0];
  if (poseOffset[i] >= 0) {
    for (let k = 0; k < 6; k++) {
      u += lin.jPose[12 * o + k] * x[poseOffset[i] + k];
      v += lin.jPose[12 * o + 6 + k] * x[poseOffset[i] + k];
    }
  }
  const n = refined[c].length;
  const base = 2 * intrinsicStride * o;
  for (let k = 0; k < n; k++) {
    u += lin.jIntrinsics[base + k] * x[intrinsicOffset[c] + k];
    v += lin.jIntrinsics[base + n + k] * x[intrinsicOffset[c] + k];
  }
  out[0] = u;
  out[1] = v;
}

/** y += scale Jc_o^T e. */
function addReducedJacobianTransposeTimes(lin: Linearisation, o: number, e0: number, e1: number, scale: number, y: Float64Array): void {
  const i = lin.problem.obsImage[o];
  const c = lin.problem.imageCamera[i];
  const { poseOffset, intrinsicOffset, refined, intrinsicStride } = lin.layout;
  if (poseOffset[i] >= 0) {
    for (let k = 0; k < 6; k++) y[poseOffset[i] + k] += scale * (lin.jPose[12 * o + k] * e0 + lin.jPose[12 * o + 6 + k] * e1);
  }
  const n = refined[c].length;
  const base = 2 * intrinsicStride * o;
  for (let k = 0; k < n; k++) y[intrinsicOffset[c] + k] += scale * (lin.jIntrinsics[base + k] * e0 + lin.jIntrinsics[base + n + k] * e1);
}

/**
 * S x = (U + lambda D_c) x - W V^-1 W^T x without forming S: per point t_j = V_j^-1 sum_o w Jp_o^T
 * Jc_o x, then sum_o w Jc_o^T (Jc_o x - Jp_o t_j) + lambda D_c x.
 */
export function schurMatVec(system: SchurSystem, x: Float64Array): Float64Array {
  const { lin, points, cameras, lambda } = system;
  const y = new Float64Array(x.length);
  for (let k = 0; k < x.length; k++) y[k] = lambda * cameras.diagonal[k] * x[k];
  const count = lin.weights.length;
  const jcx = new Float64Array(2 * count);
  const z = new Float64Array(points.gradient.length);
  const e = new Float64Array(2);
  for (let o = 0; o < count; o++) {
    reducedJacobianTimes(lin, o, x, e);
    jcx[2 * o] = e[0];
    jcx[2 * o + 1] = e[1];
    const j = lin.problem.obsPoint[o];
    const w = lin.weights[o];
    for (let r = 0; r < 3; r++) z[3 * j + r] += w * (lin.jPoint[6 * o + r] * e[0] + lin.jPoint[6 * o + 3 + r] * e[1]);
  }
  const t = new Float64Array(z.length);
  for (let j = 0; j < z.length / 3; j++) multiplyBlock(points.vDampedInverse, 9 * j, 3, z, 3 * j, t, 3 * j);
  for (let o = 0; o < count; o++) {
    const j = lin.problem.obsPoint[o];
    const jp = 6 * o;
    const e0 = jcx[2 * o] - (lin.jPoint[jp] * t[3 * j] + lin.jPoint[jp + 1] * t[3 * j + 1] + lin.jPoint[jp + 2] * t[3 * j + 2]);
    const e1 = jcx[2 * o + 1] - (lin.jPoint[jp + 3] * t[3 * j] + lin.jPoint[jp + 4] * t[3 * j + 1] + lin.jPoint[jp + 5] * t[3 * j + 2]);
    addReducedJacobianTransposeTimes(lin, o, e0, e1, lin.weights[o], y);
  }
  return y;
}

/** b = -g_c + W V^-1 g_p (W = the camera-point blocks sum_o w Jc_o^T Jp_o). */
export function reducedRightHandSide(system: SchurSystem): Float64Array {
  const { lin, points, cameras } = system;
  const b = cameras.gradient.map((g) => -g);
  const u = new Float64Array(points.gradient.length);
  for (let j = 0; j < u.length / 3; j++) multiplyBlock(points.vDampedInverse, 9 * j, 3, points.gradient, 3 * j, u, 3 * j);
  for (let o = 0; o < lin.weights.length; o++) {
    const j = lin.problem.obsPoint[o];
    const jp = 6 * o;
    const e0 = lin.jPoint[jp] * u[3 * j] + lin.jPoint[jp + 1] * u[3 * j + 1] + lin.jPoint[jp + 2] * u[3 * j + 2];
    const e1 = lin.jPoint[jp + 3] * u[3 * j] + lin.jPoint[jp + 4] * u[3 * j + 1] + lin.jPoint[jp + 5] * u[3 * j + 2];
    addReducedJacobianTransposeTimes(lin, o, e0, e1, lin.weights[o], b);
  }
  return b;
}

/** z = M^-1 r with the block-Jacobi preconditioner. */
export function applyPreconditioner(system: SchurSystem, r: Float64Array): Float64Array {
  const { layout } = system.lin;
  const { cameras } = system;
  const z = new Float64Array(r.length);
  for (const offset of layout.poseOffset) if (offset >= 0) multiplyBlock(cameras.posePreconditionerInverse, 6 * offset, 6, r, offset, z, offset);
  layout.refined.forEach((indices, c) => {
    if (indices.length) multiplyBlock(cameras.intrinsicPreconditionerInverse, cameras.intrinsicBlockOffset[c], indices.length, r, layout.intrinsicOffset[c], z, layout.intrinsicOffset[c]);
  });
  return z;
}

export interface PcgResult {
  x: Float64Array;
  iterations: number;
  /** ||b - S x|| / ||b|| at the end (the recurrence's residual; 0 for b = 0). */
  relativeResidual: number;
}

/**
 * Preconditioned conjugate gradients on S x = b from x = 0: stops at ||r|| <= tolerance ||b|| or
 * after maxIterations; tolerance 0 runs exactly maxIterations (the GPU parity's fixed count)
 * unless r vanishes first.
 */
export function pcg(system: SchurSystem, b: Float64Array, maxIterations: number, tolerance: number): PcgResult {
  const x = new Float64Array(b.length);
  const bNorm = Math.sqrt(dot(b, b));
  if (bNorm === 0) return { x, iterations: 0, relativeResidual: 0 };
  const r = b.slice();
  let z = applyPreconditioner(system, r);
  const p = z.slice();
  let rz = dot(r, z);
  let iterations = 0;
  let rNorm = bNorm;
  while (iterations < maxIterations && rNorm > tolerance * bNorm && rz > 0) {
    const q = schurMatVec(system, p);
    const pq = dot(p, q);
    if (!(pq > 0)) break;
    const alpha = rz / pq;
    for (let k = 0; k < x.length; k++) {
      x[k] += alpha * p[k];
      r[k] -= alpha * q[k];
    }
    iterations++;
    rNorm = Math.sqrt(dot(r, r));
    z = applyPreconditioner(system, r);
    const rzNext = dot(r, z);
    const beta = rzNext / rz;
    rz = rzNext;
    for (let k = 0; k < p.length; k++) p[k] = z[k] + beta * p[k];
  }
  return { x, iterations, relativeResidual: rNorm / bNorm };
}

/** dp_j = V_j^-1 (-g_p,j - sum_{o of j} w Jp_o^T Jc_o dc) (V_j damped). */
export function backSubstitute(system: SchurSystem, dc: Float64Array): Float64Array {
  const { lin, points } = system;
  const rhs = points.gradient.map((g) => -g);
  const e = new Float64Array(2);
  for (let o = 0; o < lin.weights.length; o++) {
    reducedJacobianTimes(lin, o, dc, e);
    const j = lin.problem.obsPoint[o];
    const w = lin.weights[o];
    for (let r = 0; r < 3; r++) rhs[3 * j + r] -= w * (lin.jPoint[6 * o + r] * e[0] + lin.jPoint[6 * o + 3 + r] * e[1]);
  }
  const dp = new Float64Array(rhs.length);
  for (let j = 0; j < rhs.length / 3; j++) multiplyBlock(points.vDampedInverse, 9 * j, 3, rhs, 3 * j, dp, 3 * j);
  return dp;
}
