/**
 * Homography x2 ~ H x1: the normalised direct linear transform (4 or more correspondences) and its
 * residual, the squared transfer error in image 2 (COLMAP's HomographyMatrixEstimator residual),
 * and a final robust refinement of that error on RANSAC's inliers: the DLT minimises an algebraic
 * error, so local optimisation's refits could stop at different models for different seeds (the
 * same 345 inliers of a plane gave rotations 0.02-0.47 deg and baselines 0.06-2.8 deg off through
 * the pose decomposition); the refinement takes them to one minimum of the transfer error.
 */
import { inverse3, multiply3, nullSpace, type Mat3 } from './dense.js';
import { normalisePoints } from './point-normalisation.js';
import type { ModelEstimator } from './ransac.js';
import { robustLevenbergMarquardt } from './robust-lm.js';

/** H from >= 4 correspondences (least squares on the algebraic error beyond 4). */
export function estimateHomography(points1: Float64Array, points2: Float64Array, indices: ArrayLike<number>): Mat3[] {
  const n = indices.length;
  if (n < 4) return [];
  const a = normalisePoints(points1, indices);
  const b = normalisePoints(points2, indices);
  const rows = new Float64Array(2 * n * 9);
  for (let k = 0; k < n; k++) {
    const x = a.points[2 * k];
    const y = a.points[2 * k + 1];
    const u = b.points[2 * k];
    const v = b.points[2 * k + 1];
    rows.set([-x, -y, -1, 0, 0, 0, u * x, u * y, u], 18 * k);
    rows.set([0, 0, 0, -x, -y, -1, v * x, v * y, v], 18 * k + 9);
  }
  const [h] = nullSpace(rows, 2 * n, 9, 1);
  const normalised = Float64Array.from(h);
  const inverseB = inverse3(b.transform);
  if (!inverseB) return [];
  const model = multiply3(multiply3(inverseB, normalised), a.transform);
  return model.every(Number.isFinite) ? [model] : [];
}

/** Squared transfer error |x2 - H x1|^2 in image 2 pixels; +Infinity where H x1 is at infinity. */
export function homographySquaredErrors(h: Mat3, points1: Float64Array, points2: Float64Array, out: Float64Array, first = 0, end = out.length): void {
  for (let k = first; k < end; k++) {
    const x = points1[2 * k];
    const y = points1[2 * k + 1];
    const w = h[6] * x + h[7] * y + h[8];
    if (w === 0) {
      out[k] = Infinity;
      continue;
    }
    const du = (h[0] * x + h[1] * y + h[2]) / w - points2[2 * k];
    const dv = (h[3] * x + h[4] * y + h[5]) / w - points2[2 * k + 1];
    out[k] = du * du + dv * dv;
  }
}

/**
 * H refined on its inliers: least-squares Levenberg-Marquardt on the transfer errors (2 a
 * correspondence) in Hartley-normalised coordinates, H's largest entry held (the scale), the other 8
 * free, Jacobian analytic.
 */
export function refineHomography(model: Mat3, points1: Float64Array, points2: Float64Array, inliers: Uint32Array, iterations = 30): Mat3[] {
  const n = inliers.length;
  if (n < 5) return [];
  const a = normalisePoints(points1, inliers);
  const b = normalisePoints(points2, inliers);
  const inverseA = inverse3(a.transform);
  const inverseB = inverse3(b.transform);
  if (!inverseA || !inverseB) return [];
  const h = multiply3(multiply3(b.transform, model), inverseA);
  let fixed = 0;
  for (let i = 1; i < 9; i++) if (Math.abs(h[i]) > Math.abs(h[fixed])) fixed = i;
  const scale = 1 / h[fixed];
  for (let i = 0; i < 9; i++) h[i] *= scale;
  const free = [0, 1, 2, 3, 4, 5, 6, 7, 8].filter((i) => i !== fixed);
  const moved = new Float64Array(9);
  const at = (p: ArrayLike<number>): Float64Array => {
    moved.set(h);
    for (let j = 0; j < 8; j++) moved[free[j]] += p[j];
    return moved;
  };
  robustLevenbergMarquardt(
    {
      parameterCount: 8,
      residualCount: 2 * n,
      residuals: (p, out) => {
        const m = at(p);
        for (let k = 0; k < n; k++) {
          const x = a.points[2 * k];
          const y = a.points[2 * k + 1];
          const w = m[6] * x + m[7] * y + m[8];
          out[2 * k] = (m[0] * x + m[1] * y + m[2]) / w - b.points[2 * k];
          out[2 * k + 1] = (m[3] * x + m[4] * y + m[5]) / w - b.points[2 * k + 1];
        }
      },
      jacobian: (out) => {
        // du = p / w - u: d/dh0..2 = [x y 1] / w, d/dh6..8 = -(p / w) [x y 1] / w; dv likewise with q and h3..5
        const full = new Float64Array(9);
        for (let k = 0; k < n; k++) {
          const x = a.points[2 * k];
          const y = a.points[2 * k + 1];
          const w = h[6] * x + h[7] * y + h[8];
          const u = (h[0] * x + h[1] * y + h[2]) / w;
          const v = (h[3] * x + h[4] * y + h[5]) / w;
          for (const [row, projected, offset] of [[2 * k, u, 0], [2 * k + 1, v, 3]] as const) {
            full.fill(0);
            full[offset] = x / w;
            full[offset + 1] = y / w;
            full[offset + 2] = 1 / w;
            full[6] = (-projected * x) / w;
            full[7] = (-projected * y) / w;
            full[8] = -projected / w;
            for (let j = 0; j < 8; j++) out[8 * row + j] = full[free[j]];
          }
        }
      },
      commit: (p) => h.set(at(p)),
      // the sum of squared transfer errors over the inliers: RANSAC's MSAC cost, which keeps the result only where it is lower
      robust: false,
    },
    iterations,
  );
  const refined = multiply3(multiply3(inverseB, h), a.transform);
  return refined.every(Number.isFinite) ? [refined] : [];
}

export const homographyEstimator: ModelEstimator<Mat3> = {
  sampleSize: 4,
  fit: estimateHomography,
  squaredErrors: homographySquaredErrors,
  refine: refineHomography,
};
