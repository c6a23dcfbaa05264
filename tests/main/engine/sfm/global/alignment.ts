/**
 * Comparing a recovered model with the truth up to the gauge, float64, test-local: rotations up
 * to one global rotation (the chordal mean of R_true^T R_est, projected onto SO(3)), centres up
 * to a similarity (Umeyama 1991: scale, rotation, translation in least squares).
 */
import { SingularValueDecomposition, Matrix } from 'ml-matrix';
import { determinant3, multiply3, transpose3, applyMat3, type Mat3, type Vec3 } from '../../../../../main/engine/sfm/verify/dense.js';

function nearestRotation(m: Mat3): Mat3 {
  const svd = new SingularValueDecomposition(new Matrix([[m[0], m[1], m[2]], [m[3], m[4], m[5]], [m[6], m[7], m[8]]]));
  const u = Float64Array.from(svd.leftSingularVectors.to1DArray());
  const v = Float64Array.from(svd.rightSingularVectors.to1DArray());
  const r = multiply3(u, transpose3(v));
  if (determinant3(r) > 0) return r;
  for (const k of [2, 5, 8]) u[k] = -u[k];
  return multiply3(u, transpose3(v));
}

export function angleDeg(a: Mat3, b: Mat3): number {
  const d = multiply3(transpose3(a), b);
  return (Math.acos(Math.min(1, Math.max(-1, (d[0] + d[4] + d[8] - 1) / 2))) * 180) / Math.PI;
}

/** Per camera, the angle between R_est and R_true G, G the best global rotation (world frames). */
export function rotationErrorsDeg(estimated: readonly Mat3[], truth: readonly Mat3[]): number[] {
  const sum = new Float64Array(9);
  estimated.forEach((r, i) => multiply3(transpose3(truth[i]), r).forEach((v, k) => (sum[k] += v)));
  const g = nearestRotation(sum);
  return estimated.map((r, i) => angleDeg(r, multiply3(truth[i], g)));
}

/** Umeyama: y ~ s R x + t; returns the aligned x. */
export function similarityAligned(x: readonly Vec3[], y: readonly Vec3[]): Vec3[] {
  const n = x.length;
  const mean = (p: readonly Vec3[]): Vec3 => [0, 1, 2].map((c) => p.reduce((s, v) => s + v[c], 0) / n) as Vec3;
  const [mx, my] = [mean(x), mean(y)];
  const covariance = new Float64Array(9);
  let varianceX = 0;
  for (let i = 0; i < n; i++) {
    const dx = [x[i][0] - mx[0], x[i][1] - mx[1], x[i][2] - mx[2]];
    const dy = [y[i][0] - my[0], y[i][1] - my[1], y[i][2] - my[2]];
    varianceX += dx[0] ** 2 + dx[1] ** 2 + dx[2] ** 2;
    for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) covariance[3 * r + c] += (dy[r] * dx[c]) / n;
  }
  varianceX /= n;
  const svd = new SingularValueDecomposition(new Matrix([[...covariance.subarray(0, 3)], [...covariance.subarray(3, 6)], [...covariance.subarray(6, 9)]]));
  const u = Float64Array.from(svd.leftSingularVectors.to1DArray());
  const v = Float64Array.from(svd.rightSingularVectors.to1DArray());
  const d = svd.diagonal;
  const flip = determinant3(u) * determinant3(v) < 0 ? -1 : 1;
  const s = [1, 1, flip];
  const us = u.map((value, k) => value * s[k % 3]);
  const rotation = multiply3(us, transpose3(v));
  const scale = (d[0] + d[1] + flip * d[2]) / varianceX;
  const rmx = applyMat3(rotation, mx);
  const t: Vec3 = [my[0] - scale * rmx[0], my[1] - scale * rmx[1], my[2] - scale * rmx[2]];
  return x.map((p) => {
    const q = applyMat3(rotation, p);
    return [scale * q[0] + t[0], scale * q[1] + t[1], scale * q[2] + t[2]];
  });
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length % 2 ? sorted[sorted.length >> 1] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
}
