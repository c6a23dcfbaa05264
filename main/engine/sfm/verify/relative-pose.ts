/**
 * Relative pose from an essential matrix, and the pure-rotation test that tells a panorama from a
 * plane. Convention (COLMAP's): a point X1 in camera 1's frame is X2 = R X1 + t in camera 2's,
 * E = [t]x R, and x2^T E x1 = 0 on normalised coordinates.
 */
import { applyMat3, determinant3, mat3, multiply3, normalise3, svd3, transpose3, type Mat3, type Vec3 } from './dense.js';

export interface RelativePose {
  rotation: Mat3;
  /** Unit length (the scale is unobservable from two views). */
  translation: Vec3;
  /** Inliers triangulated in front of both cameras under this pose. */
  pointsInFront: number;
}

/**
 * The 4 (R, t) that E factors into: R = U W V^T or U W^T V^T, t = +-u3 (Hartley and Zisserman,
 * section 9.6.2), U and V taken with determinant +1; the one with the most of the given
 * correspondences in front of both cameras wins (cheirality).
 */
export function poseFromEssential(e: Mat3, normalised1: Float64Array, normalised2: Float64Array, indices: ArrayLike<number>): RelativePose {
  const { u, v } = svd3(e);
  const uPositive = determinant3(u) < 0 ? u.map((x) => -x) : u;
  const vPositive = determinant3(v) < 0 ? v.map((x) => -x) : v;
  const w = mat3([0, -1, 0, 1, 0, 0, 0, 0, 1]);
  const vt = transpose3(vPositive);
  const rotations = [multiply3(multiply3(uPositive, w), vt), multiply3(multiply3(uPositive, transpose3(w)), vt)];
  const u3: Vec3 = normalise3([uPositive[2], uPositive[5], uPositive[8]]);
  let best: RelativePose | undefined;
  for (const rotation of rotations) {
    for (const sign of [1, -1]) {
      const translation: Vec3 = [sign * u3[0], sign * u3[1], sign * u3[2]];
      const pointsInFront = countInFront(rotation, translation, normalised1, normalised2, indices);
      if (!best || pointsInFront > best.pointsInFront) best = { rotation, translation, pointsInFront };
    }
  }
  return best!;
}

/**
 * Depths of the two rays' closest approach: d2 x2 ~ d1 R x1 + t in least squares (the midpoint
 * method); a point counts when both depths are positive. Rays that are parallel (no parallax)
 * count as in front of neither.
 */
export function countInFront(rotation: Mat3, translation: Vec3, normalised1: Float64Array, normalised2: Float64Array, indices: ArrayLike<number>): number {
  let count = 0;
  for (let k = 0; k < indices.length; k++) {
    const i = indices[k];
    const a = applyMat3(rotation, [normalised1[2 * i], normalised1[2 * i + 1], 1]);
    const b: Vec3 = [normalised2[2 * i], normalised2[2 * i + 1], 1];
    // Minimise |d1 a - d2 b + t|^2 over (d1, d2).
    const aa = a[0] * a[0] + a[1] * a[1] + a[2] * a[2];
    const bb = b[0] * b[0] + b[1] * b[1] + b[2] * b[2];
    const ab = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    const at = a[0] * translation[0] + a[1] * translation[1] + a[2] * translation[2];
    const bt = b[0] * translation[0] + b[1] * translation[1] + b[2] * translation[2];
    const det = aa * bb - ab * ab;
    if (det <= 1e-12 * aa * bb) continue;
    const d1 = (ab * bt - bb * at) / det;
    const d2 = (aa * bt - ab * at) / det;
    if (d1 > 0 && d2 > 0) count++;
  }
  return count;
}

/**
 * The rotation that best maps camera 1's viewing rays onto camera 2's (Kabsch: maximise
 * sum b2 . R b1 over unit rays), for the pure-rotation hypothesis x2 ~ K2 R K1^-1 x1.
 */
export function rotationBetweenRays(normalised1: Float64Array, normalised2: Float64Array, indices: ArrayLike<number>): Mat3 {
  const correlation = new Float64Array(9);
  for (let k = 0; k < indices.length; k++) {
    const i = indices[k];
    const a = normalise3([normalised1[2 * i], normalised1[2 * i + 1], 1]);
    const b = normalise3([normalised2[2 * i], normalised2[2 * i + 1], 1]);
    for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) correlation[3 * r + c] += b[r] * a[c];
  }
  const { u, v } = svd3(correlation);
  const reflection = determinant3(u) * determinant3(v) < 0 ? -1 : 1;
  const us = u.map((x, i) => (i % 3 === 2 ? reflection * x : x));
  return multiply3(us, transpose3(v));
}
