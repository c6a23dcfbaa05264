/**
 * Rotations as the global mapper needs them, float64: the logarithm (the inverse of verify/'s
 * Rodrigues exp) and camera centres from world-to-camera poses.
 */
import { applyMat3, transpose3, type Mat3, type Vec3 } from '../verify/dense.js';

export { rotationFromVector } from '../verify/rotation.js';

/** log(R): the axis times the angle in radians, |w| in [0, pi]. */
export function rotationToVector(r: Mat3): Vec3 {
  const cosine = Math.min(1, Math.max(-1, (r[0] + r[4] + r[8] - 1) / 2));
  const angle = Math.acos(cosine);
  const skew: Vec3 = [(r[7] - r[5]) / 2, (r[2] - r[6]) / 2, (r[3] - r[1]) / 2];
  if (angle < 1e-7) return skew; // sin(angle) ~ angle: the skew part is the vector itself
  if (Math.PI - angle > 1e-4) {
    const scale = angle / Math.sin(angle);
    return [skew[0] * scale, skew[1] * scale, skew[2] * scale];
  }
  // Near pi the skew part vanishes: the axis is the column of R + I with the largest norm
  // (R + I = 2 a a^T at exactly pi), its sign taken from the skew part.
  const columns: Vec3[] = [0, 1, 2].map((c) => [r[c] + (c === 0 ? 1 : 0), r[3 + c] + (c === 1 ? 1 : 0), r[6 + c] + (c === 2 ? 1 : 0)]);
  const norms = columns.map((v) => Math.hypot(...v));
  const best = norms.indexOf(Math.max(...norms));
  let axis = columns[best].map((x) => x / norms[best]) as Vec3;
  if (axis[0] * skew[0] + axis[1] * skew[1] + axis[2] * skew[2] < 0) axis = [-axis[0], -axis[1], -axis[2]];
  return [axis[0] * angle, axis[1] * angle, axis[2] * angle];
}

/** The centre of a camera with X_cam = R X_world + t: c = -R^T t. */
export function cameraCentre(rotation: Mat3, translation: Vec3): Vec3 {
  const c = applyMat3(transpose3(rotation), translation);
  return [-c[0], -c[1], -c[2]];
}

/** t = -R c, the translation of a camera at centre c. */
export function translationFromCentre(rotation: Mat3, centre: Vec3): Vec3 {
  const t = applyMat3(rotation, centre);
  return [-t[0], -t[1], -t[2]];
}
