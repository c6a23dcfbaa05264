/**
 * Homography x2 ~ H x1: the normalised direct linear transform (4 or more correspondences) and its
 * residual, the squared transfer error in image 2 (COLMAP's HomographyMatrixEstimator residual).
 */
import { inverse3, multiply3, nullSpace, type Mat3 } from './dense.js';
import { normalisePoints } from './point-normalisation.js';
import type { ModelEstimator } from './ransac.js';

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

export const homographyEstimator: ModelEstimator<Mat3> = {
  sampleSize: 4,
  fit: estimateHomography,
  squaredErrors: homographySquaredErrors,
};
