/**
 * Cameras as every part of the product sees them: pinhole intrinsics in pixels and a row-major
 * 4x4 world-to-camera matrix in OpenCV axes (x right, y down, z forward). Pixel (u, v) covers
 * [u, u+1) x [v, v+1) and is sampled at its centre (u + 0.5, v + 0.5).
 */
export interface PinholeCamera {
  width: number;
  height: number;
  fx: number;
  fy: number;
  cx: number;
  cy: number;
  /** Row-major 4x4, world -> camera, OpenCV axes. 16 numbers. */
  worldToCamera: readonly number[];
}

/** Camera-to-world in OpenGL/Blender axes (x right, y up, -z forward) -> world-to-camera in OpenCV axes. */
export function openGlCameraToWorldToOpenCvWorldToCamera(c2w: readonly number[]): number[] {
  // Flip the camera's y and z axes (columns 1 and 2 of the rotation), then invert the rigid transform.
  const r = [
    [c2w[0], -c2w[1], -c2w[2]],
    [c2w[4], -c2w[5], -c2w[6]],
    [c2w[8], -c2w[9], -c2w[10]],
  ];
  const t = [c2w[3], c2w[7], c2w[11]];
  const out = new Array<number>(16).fill(0);
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) out[i * 4 + j] = r[j][i];
    out[i * 4 + 3] = -(r[0][i] * t[0] + r[1][i] * t[1] + r[2][i] * t[2]);
  }
  out[15] = 1;
  return out;
}

/** Inverse of a rigid row-major 4x4 (rotation + translation). */
export function invertRigid(m: readonly number[]): number[] {
  const out = new Array<number>(16).fill(0);
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) out[i * 4 + j] = m[j * 4 + i];
    out[i * 4 + 3] = -(m[i] * m[3] + m[4 + i] * m[7] + m[8 + i] * m[11]);
  }
  out[15] = 1;
  return out;
}

/**
 * World-to-camera (OpenCV axes) of a camera at `eye` looking at `target`, with `up` the world's
 * up direction (right = forward x up, down = forward x right).
 */
export function lookAt(eye: readonly number[], target: readonly number[], up: readonly number[] = [0, 1, 0]): number[] {
  const sub = (a: readonly number[], b: readonly number[]) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
  const cross = (a: readonly number[], b: readonly number[]) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
  const norm = (a: number[]) => {
    const l = Math.hypot(a[0], a[1], a[2]);
    if (!(l > 0)) throw new Error('lookAt: degenerate direction');
    return a.map((x) => x / l);
  };
  const f = norm(sub(target, eye));
  const r = norm(cross(f, up));
  const d = cross(f, r);
  const rows = [r, d, f];
  const out: number[] = [];
  for (const row of rows) out.push(row[0], row[1], row[2], -(row[0] * eye[0] + row[1] * eye[1] + row[2] * eye[2]));
  out.push(0, 0, 0, 1);
  return out;
}
