/**
 * Float64 reference of kernels/geometry.wgsl's definition (depth distortion and normal consistency,
 * 2DGS): per pixel the surface normal from the depth map's central differences (depth = median
 * where the pixel has one, else expected depth / alpha; clamped at the borders; facing the camera),
 * scaled by the pixel's alpha; the loss means and the constant gradient scales of both terms. Tests only.
 */
import type { PinholeCamera } from '../../shared/scene/camera.js';

/** Per pixel inputs of the geometry kernel: normals (vec4), geometry (median, distortion, slot, depth), image (rgba). */
export interface GeometryInputs {
  normals: Float32Array;
  geometry: Float32Array;
  image: Float32Array;
}

export function geometryReference(inputs: GeometryInputs, camera: PinholeCamera, weights: { distortion: number; normal: number }) {
  const { width: W, height: H } = camera;
  const P = W * H;
  const depthAt = (x: number, y: number) => {
    const cx = Math.min(Math.max(x, 0), W - 1);
    const cy = Math.min(Math.max(y, 0), H - 1);
    const i = cy * W + cx;
    if (inputs.geometry[4 * i + 2] >= 0) return inputs.geometry[4 * i];
    const a = inputs.image[4 * i + 3];
    return a > 1e-4 ? inputs.geometry[4 * i + 3] / a : 0;
  };
  const point = (xIn: number, yIn: number) => {
    const x = Math.min(Math.max(xIn, 0), W - 1);
    const y = Math.min(Math.max(yIn, 0), H - 1);
    const d = depthAt(x, y);
    return [(d * (x + 0.5 - camera.cx)) / camera.fx, (d * (y + 0.5 - camera.cy)) / camera.fy, d];
  };
  const sub = (a: number[], b: number[]) => a.map((v, k) => v - b[k]);
  const surface: number[][] = [];
  let distortion = 0;
  let normalError = 0;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      const dx = sub(point(x + 1, y), point(x - 1, y));
      const dy = sub(point(x, y + 1), point(x, y - 1));
      let n = [dx[1] * dy[2] - dx[2] * dy[1], dx[2] * dy[0] - dx[0] * dy[2], dx[0] * dy[1] - dx[1] * dy[0]];
      const len = Math.hypot(...n);
      n = len > 1e-12 ? n.map((v) => v / len) : [0, 0, 0];
      const p = point(x, y);
      if (n[0] * p[0] + n[1] * p[1] + n[2] * p[2] > 0) n = n.map((v) => -v);
      const s = n.map((v) => v * inputs.image[4 * i + 3]);
      surface.push(s);
      distortion += inputs.geometry[4 * i + 1];
      normalError += 1 - (inputs.normals[4 * i] * s[0] + inputs.normals[4 * i + 1] * s[1] + inputs.normals[4 * i + 2] * s[2]);
    }
  }
  return { surface, vNormalScale: -weights.normal / P, vDistortion: weights.distortion / P, distortion: distortion / P, normalError: normalError / P };
}
