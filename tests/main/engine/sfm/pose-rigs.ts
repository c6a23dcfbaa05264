/** Camera rigs with known poses for the pose-accuracy tests: world-to-camera 4x4, OpenCV axes, row-major. */
import { centreOf, type NamedPose } from '../../../../main/engine/sfm/pose-accuracy.js';

export type V3 = [number, number, number];

/** Rotation by `angle` about a unit `axis` (Rodrigues), row-major 3x3. */
export function axisAngle(axis: V3, angle: number): number[] {
  const n = Math.hypot(...axis);
  const [x, y, z] = axis.map((a) => a / n);
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  const k = 1 - c;
  return [c + x * x * k, x * y * k - z * s, x * z * k + y * s, y * x * k + z * s, c + y * y * k, y * z * k - x * s, z * x * k - y * s, z * y * k + x * s, c + z * z * k];
}

export const mul = (a: number[], b: number[]) => [0, 1, 2].flatMap((r) => [0, 1, 2].map((c) => a[3 * r] * b[c] + a[3 * r + 1] * b[3 + c] + a[3 * r + 2] * b[6 + c]));
export const tr = (a: number[]) => [a[0], a[3], a[6], a[1], a[4], a[7], a[2], a[5], a[8]];
export const apply = (a: number[], v: readonly number[]): V3 => [0, 1, 2].map((r) => a[3 * r] * v[0] + a[3 * r + 1] * v[1] + a[3 * r + 2] * v[2]) as V3;

/** World-to-camera 4x4 of a camera with world-to-camera rotation R and centre c. */
export function pose(R: number[], c: V3): number[] {
  const t = apply(R, c).map((v) => -v);
  return [R[0], R[1], R[2], t[0], R[3], R[4], R[5], t[1], R[6], R[7], R[8], t[2], 0, 0, 0, 1];
}

export function randomAxis(random: () => number): V3 {
  return [random() - 0.5, random() - 0.5, random() - 0.5];
}

/** `count` cameras on a sphere of radius 4 around the origin, each looking roughly inwards with a random roll. */
export function orbit(random: () => number, count: number): NamedPose[] {
  return Array.from({ length: count }, (_, i) => {
    const R = axisAngle(randomAxis(random), random() * Math.PI);
    const c = apply(tr(R), [0, 0, -4]);
    return { name: `r_${i}`, worldToCamera: pose(R, c) };
  });
}

/** The same cameras in a world moved by X' = s Q X + t: R' = R Q^T, c' = s Q c + t. */
export function moved(cameras: readonly NamedPose[], s: number, Q: number[], t: V3): NamedPose[] {
  return cameras.map(({ name, worldToCamera: m }) => {
    const R = [m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]];
    const c = apply(Q, centreOf(m)).map((v, k) => s * v + t[k]) as V3;
    return { name, worldToCamera: pose(mul(R, tr(Q)), c) };
  });
}
