/**
 * Fundamental matrix x2^T F x1 = 0: the normalised 8-point algorithm (8 or more correspondences,
 * rank 2 enforced by zeroing the smallest singular value) and the Sampson error, which also serves
 * the essential matrix in normalised camera coordinates.
 */
import { multiply3, nullSpace, svd3, transpose3, type Mat3 } from './dense.js';
import { gatherPoints, normalisePoints } from './point-normalisation.js';
import type { ModelEstimator } from './ransac.js';

/** One row of the epipolar constraint x2^T M x1 = 0 on the 9 entries of M (row-major). */
export function epipolarRow(x1: number, y1: number, x2: number, y2: number, out: Float64Array, offset: number): void {
  out[offset] = x2 * x1;
  out[offset + 1] = x2 * y1;
  out[offset + 2] = x2;
  out[offset + 3] = y2 * x1;
  out[offset + 4] = y2 * y1;
  out[offset + 5] = y2;
  out[offset + 6] = x1;
  out[offset + 7] = y1;
  out[offset + 8] = 1;
}

export function estimateFundamental(points1: Float64Array, points2: Float64Array, indices: ArrayLike<number>, weights?: Float64Array): Mat3[] {
  const n = indices.length;
  if (n < 8) return [];
  const a = normalisePoints(points1, indices);
  const b = normalisePoints(points2, indices);
  const rows = new Float64Array(9 * n);
  for (let k = 0; k < n; k++) {
    epipolarRow(a.points[2 * k], a.points[2 * k + 1], b.points[2 * k], b.points[2 * k + 1], rows, 9 * k);
    if (weights) for (let c = 0; c < 9; c++) rows[9 * k + c] *= weights[k];
  }
  const [f] = nullSpace(rows, n, 9, 1);
  const rank2 = enforceSingularValues(Float64Array.from(f), (s) => [s[0], s[1], 0]);
  // x2n^T Fn x1n = x2^T (T2^T Fn T1) x1.
  const model = multiply3(multiply3(transpose3(b.transform), rank2), a.transform);
  return model.every(Number.isFinite) ? [model] : [];
}

/** u diag(g(s)) v^T: the nearest matrix (Frobenius) with the singular values g chooses. */
export function enforceSingularValues(m: Mat3, choose: (s: [number, number, number]) => [number, number, number]): Mat3 {
  const { u, singularValues, v } = svd3(m);
  const s = choose(singularValues);
  const us = u.map((value, i) => value * s[i % 3]);
  return multiply3(us, transpose3(v));
}

/** Sampson's first-order approximation of the squared geometric error of x2^T M x1 = 0 (correspondences [first, end)). */
export function sampsonSquaredErrors(m: Mat3, points1: Float64Array, points2: Float64Array, out: Float64Array, first = 0, end = out.length): void {
  for (let k = first; k < end; k++) {
    const x1 = points1[2 * k];
    const y1 = points1[2 * k + 1];
    const x2 = points2[2 * k];
    const y2 = points2[2 * k + 1];
    const l0 = m[0] * x1 + m[1] * y1 + m[2];
    const l1 = m[3] * x1 + m[4] * y1 + m[5];
    const l2 = m[6] * x1 + m[7] * y1 + m[8];
    const t0 = m[0] * x2 + m[3] * y2 + m[6];
    const t1 = m[1] * x2 + m[4] * y2 + m[7];
    const residual = x2 * l0 + y2 * l1 + l2;
    const denominator = l0 * l0 + l1 * l1 + t0 * t0 + t1 * t1;
    out[k] = denominator > 0 ? (residual * residual) / denominator : Infinity;
  }
}

/**
 * Iteratively reweighted least squares towards the Sampson error: each epipolar row divided by
 * the gradient norm of x2^T M x1 under the current model turns the algebraic error into Sampson's,
 * so the refit minimises (to first order) the geometric error instead of the algebraic one, which
 * favours correspondences far from the image centre. Up to 5 rounds; the candidate of lowest Sampson
 * cost on the inliers each time (the 5-point refit returns several).
 */
export function refineBySampsonWeights(
  model: Mat3,
  points1: Float64Array,
  points2: Float64Array,
  inliers: Uint32Array,
  fit: (points1: Float64Array, points2: Float64Array, indices: ArrayLike<number>, weights: Float64Array) => Mat3[],
): Mat3[] {
  const n = inliers.length;
  const chosen1 = gatherPoints(points1, inliers);
  const chosen2 = gatherPoints(points2, inliers);
  const all = Uint32Array.from({ length: n }, (_, k) => k);
  const errors = new Float64Array(n);
  const cost = (m: Mat3): number => {
    sampsonSquaredErrors(m, chosen1, chosen2, errors);
    return errors.reduce((s, e) => s + e, 0);
  };
  let current = model;
  let currentCost = cost(model);
  for (let round = 0; round < 5; round++) {
    const weights = new Float64Array(n);
    for (let k = 0; k < n; k++) {
      const [x1, y1, x2, y2] = [chosen1[2 * k], chosen1[2 * k + 1], chosen2[2 * k], chosen2[2 * k + 1]];
      const l0 = current[0] * x1 + current[1] * y1 + current[2];
      const l1 = current[3] * x1 + current[4] * y1 + current[5];
      const t0 = current[0] * x2 + current[3] * y2 + current[6];
      const t1 = current[1] * x2 + current[4] * y2 + current[7];
      weights[k] = 1 / Math.sqrt(Math.max(l0 * l0 + l1 * l1 + t0 * t0 + t1 * t1, 1e-300));
    }
    let improved = false;
    for (const candidate of fit(chosen1, chosen2, all, weights)) {
      const c = cost(candidate);
      if (c < currentCost) [current, currentCost, improved] = [candidate, c, true];
    }
    if (!improved) break;
  }
  return [current];
}

export const fundamentalEstimator: ModelEstimator<Mat3> = {
  sampleSize: 8,
  fit: estimateFundamental,
  squaredErrors: sampsonSquaredErrors,
  refine: (model, points1, points2, inliers) => refineBySampsonWeights(model, points1, points2, inliers, estimateFundamental),
};
