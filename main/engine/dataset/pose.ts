/**
 * Pose conversions shared by the dataset loaders. All matrices are row-major 4x4 world-to-camera in
 * OpenCV axes (shared/scene/camera.ts).
 */
import { wxyzFromMatrix, wxyzToMatrix } from '../../../shared/math/quaternion.js';
import { badInput } from '../../../shared/rpc/errors.js';

/** COLMAP's (qw, qx, qy, qz) + t, world-to-camera, to a row-major 4x4. The quaternion is normalized. */
export function worldToCameraFromQuaternion(q: readonly number[], t: readonly number[]): number[] {
  const n = Math.hypot(q[0], q[1], q[2], q[3]);
  return worldToCameraFromRotation(wxyzToMatrix([q[0] / n, q[1] / n, q[2] / n, q[3] / n]), t);
}

/** A row-major 3x3 rotation and a translation, world-to-camera, as a row-major 4x4. */
export function worldToCameraFromRotation(r: ArrayLike<number>, t: readonly number[]): number[] {
  return [r[0], r[1], r[2], t[0], r[3], r[4], r[5], t[1], r[6], r[7], r[8], t[2], 0, 0, 0, 1];
}

/** Camera centre in world coordinates: -R^T t. */
export function cameraCenter(worldToCamera: readonly number[]): [number, number, number] {
  const m = worldToCamera;
  return [0, 1, 2].map((i) => -(m[i] * m[3] + m[4 + i] * m[7] + m[8 + i] * m[11])) as [number, number, number];
}

/** Throws `bad_input` naming `where` and `field` unless every value is finite. */
export function requireFinite(file: string, where: string, field: string, values: readonly number[]): void {
  for (let i = 0; i < values.length; i++) {
    if (!Number.isFinite(values[i])) {
      const index = values.length > 1 ? `[${i}]` : '';
      throw badInput(file, `${where}: ${field}${index} is ${values[i]}, expected a finite number`);
    }
  }
}

/**
 * Checks that the upper-left 3x3 of a row-major 4x4 is a rotation (orthonormal, det +1) within
 * `tolerance`; a scaled or sheared matrix is not a camera pose and would silently distort the scene.
 */
export function requireRotation(file: string, where: string, field: string, m: readonly number[], tolerance = 1e-3): void {
  let worst = 0;
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      const dot = m[i] * m[j] + m[4 + i] * m[4 + j] + m[8 + i] * m[8 + j];
      worst = Math.max(worst, Math.abs(dot - (i === j ? 1 : 0)));
    }
  }
  const det =
    m[0] * (m[5] * m[10] - m[6] * m[9]) - m[1] * (m[4] * m[10] - m[6] * m[8]) + m[2] * (m[4] * m[9] - m[5] * m[8]);
  if (worst > tolerance || det < 0) {
    throw badInput(file, `${where}: ${field} is not a rigid pose (rotation part off orthonormal by ${worst.toPrecision(3)}, det ${det.toPrecision(3)})`);
  }
}

/** The rotation part of a row-major 4x4 as COLMAP's (qw, qx, qy, qz), qw >= 0 (shared/math/quaternion.ts). */
export function quaternionFromRotation(m: readonly number[]): [number, number, number, number] {
  return wxyzFromMatrix([m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]]);
}
