/**
 * The viewer's current view as the engine's pinhole camera (shared/scene/camera.ts), so the
 * engine's `edits.select` projects splats exactly as they appear on screen.
 *
 * Babylon's view matrix works on row vectors (p_view = p_world * M, translation in m[12..14]),
 * left-handed view axes (x right, y up, z forward), in Babylon's world; the engine's camera is
 * row-major world -> camera with OpenCV axes (x right, y DOWN, z forward), in the engine's world,
 * which the viewer maps to Babylon's by F = diag(1, -1, 1) (opencv-frame.ts). So
 * worldToCamera = diag(1, -1, 1) * M^T * F: negate the view's y row and the world's y column.
 * Intrinsics in CSS pixels of the canvas (the frame pointer events use): Babylon's vertical field
 * of view gives fy = (height / 2) / tan(fov / 2), square pixels, the principal point at the centre.
 *
 * Pure (takes the matrix as 16 numbers), so Node tests check it against Babylon's own projection.
 */
import type { PinholeCamera } from '../../../../shared/scene/camera.js';

export interface BabylonView {
  /** Babylon's view matrix `m` (16 numbers, row-vector convention). */
  viewMatrix: ArrayLike<number>;
  /** Vertical field of view, radians (Babylon's FOVMODE_VERTICAL_FIXED, its default). */
  fovYRadians: number;
  /** Canvas size in CSS pixels. */
  width: number;
  height: number;
}

export function viewPinhole({ viewMatrix: m, fovYRadians, width, height }: BabylonView): PinholeCamera {
  if (m.length !== 16) throw new RangeError(`view matrix: expected 16 numbers, got ${m.length}`);
  if (!(width > 0 && height > 0)) throw new RangeError(`view size: expected a positive width and height, got ${width} x ${height}`);
  if (!(fovYRadians > 0 && fovYRadians < Math.PI)) throw new RangeError(`field of view: expected 0 < fov < pi radians, got ${fovYRadians}`);
  const fy = height / 2 / Math.tan(fovYRadians / 2);
  // prettier-ignore
  const worldToCamera = [
    m[0], -m[4], m[8], m[12],
    -m[1], m[5], -m[9], -m[13],
    m[2], -m[6], m[10], m[14],
    0, 0, 0, 1,
  ];
  return { width, height, fx: fy, fy, cx: width / 2, cy: height / 2, worldToCamera };
}
