import { mat3, type Mat3, type Vec3 } from './dense.js';

/** exp([w]x): the rotation by |w| radians about w (Rodrigues' formula). */
export function rotationFromVector(w: Vec3): Mat3 {
  const angle = Math.hypot(w[0], w[1], w[2]);
  if (angle < 1e-15) return mat3([1, -w[2], w[1], w[2], 1, -w[0], -w[1], w[0], 1]);
  const [x, y, z] = [w[0] / angle, w[1] / angle, w[2] / angle];
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  const C = 1 - c;
  return mat3([
    c + x * x * C, x * y * C - z * s, x * z * C + y * s,
    y * x * C + z * s, c + y * y * C, y * z * C - x * s,
    z * x * C - y * s, z * y * C + x * s, c + z * z * C,
  ]);
}
