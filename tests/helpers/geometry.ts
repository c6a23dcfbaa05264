import { worldToCameraFromQuaternion } from '../../main/engine/dataset/pose.js';
import type { PinholeCamera } from '../../shared/scene/camera.js';

/** Pixel coordinates (pixel centres at +0.5) and depth of a world point; depth <= 0 is behind the camera. */
export function project(camera: PinholeCamera, x: number, y: number, z: number): { u: number; v: number; depth: number } {
  const m = camera.worldToCamera;
  const cx = m[0] * x + m[1] * y + m[2] * z + m[3];
  const cy = m[4] * x + m[5] * y + m[6] * z + m[7];
  const cz = m[8] * x + m[9] * y + m[10] * z + m[11];
  return { u: camera.fx * (cx / cz) + camera.cx, v: camera.fy * (cy / cz) + camera.cy, depth: cz };
}

export function percentile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/**
 * OpenGL camera-to-world (x right, y up, looking down -z) for a camera at `eye` looking at
 * `target`, row-major 4x4, as transforms.json stores it.
 */
export function lookAtOpenGl(eye: number[], target: number[], up = [0, 0, 1]): number[][] {
  const sub = (a: number[], b: number[]): number[] => a.map((v, i) => v - b[i]);
  const norm = (a: number[]): number[] => a.map((v) => v / Math.hypot(...a));
  const cross = (a: number[], b: number[]): number[] => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
  const back = norm(sub(eye, target));
  const right = norm(cross(up, back));
  const trueUp = cross(back, right);
  return [0, 1, 2].map((r) => [right[r], trueUp[r], back[r], eye[r]]).concat([[0, 0, 0, 1]]);
}

/** COLMAP's (qw, qx, qy, qz), normalized, as a row-major 3x3 rotation (the loaders' conversion). */
export function rotationFromQuaternion(q: readonly number[]): Float64Array {
  const m = worldToCameraFromQuaternion(q, [0, 0, 0]);
  return Float64Array.from([m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]]);
}
