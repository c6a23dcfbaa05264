/**
 * Lens distortion of the models the loaders accept (COLMAP SIMPLE_RADIAL, RADIAL, OPENCV, and
 * transforms.json k1 k2 p1 p2, which is OPENCV), and image undistortion to a pinhole camera with the
 * same size, focal lengths and principal point.
 *
 * All three are the OPENCV polynomial with some coefficients zero, in normalized camera coordinates
 * (x, y) = ((u - cx) / fx, (v - cy) / fy):
 *   r2 = x^2 + y^2, radial = k1 r2 + k2 r2^2
 *   xd = x (1 + radial) + 2 p1 x y + p2 (r2 + 2 x^2)
 *   yd = y (1 + radial) + p1 (r2 + 2 y^2) + 2 p2 x y
 * Pixel coordinates follow COLMAP and shared/scene/camera.ts: pixel (u, v) has its centre at (u + 0.5, v + 0.5).
 */
import { badInput } from '../../../shared/rpc/errors.js';
import type { FloatImage } from '../formats/image-ops.js';
import type { Distortion } from './types.js';

export interface Lens {
  fx: number;
  fy: number;
  cx: number;
  cy: number;
  k1: number;
  k2: number;
  p1: number;
  p2: number;
}

/** COLMAP parameter order -> Lens; `file` and `where` name the source in errors. */
export function lensOf(distortion: Distortion, file = 'distortion', where = 'camera'): Lens {
  const p = distortion.params;
  const expect = (n: number): void => {
    if (p.length !== n || !p.every(Number.isFinite)) {
      throw badInput(file, `${where}: ${distortion.model} needs ${n} finite parameters, got [${p.join(', ')}]`);
    }
  };
  switch (distortion.model) {
    case 'SIMPLE_RADIAL':
      expect(4);
      return { fx: p[0], fy: p[0], cx: p[1], cy: p[2], k1: p[3], k2: 0, p1: 0, p2: 0 };
    case 'RADIAL':
      expect(5);
      return { fx: p[0], fy: p[0], cx: p[1], cy: p[2], k1: p[3], k2: p[4], p1: 0, p2: 0 };
    case 'OPENCV':
      expect(8);
      return { fx: p[0], fy: p[1], cx: p[2], cy: p[3], k1: p[4], k2: p[5], p1: p[6], p2: p[7] };
    default:
      throw badInput(file, `${where}: cannot undistort camera model ${distortion.model} (supported: SIMPLE_RADIAL, RADIAL, OPENCV)`);
  }
}

/** True when the lens has no distortion at all, so the image can be used as it is. */
export function isPinholeLens(lens: Lens): boolean {
  return lens.k1 === 0 && lens.k2 === 0 && lens.p1 === 0 && lens.p2 === 0;
}

/** Normalized undistorted -> normalized distorted coordinates. */
export function distortNormalized(lens: Lens, x: number, y: number): [number, number] {
  const { k1, k2, p1, p2 } = lens;
  const r2 = x * x + y * y;
  const radial = k1 * r2 + k2 * r2 * r2;
  return [x * (1 + radial) + 2 * p1 * x * y + p2 * (r2 + 2 * x * x), y * (1 + radial) + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y];
}

/** Normalized distorted -> undistorted, by Newton's method on distortNormalized (analytic Jacobian). */
export function undistortNormalized(lens: Lens, xd: number, yd: number): [number, number] {
  const { k1, k2, p1, p2 } = lens;
  let x = xd;
  let y = yd;
  for (let iter = 0; iter < 50; iter++) {
    const r2 = x * x + y * y;
    const radial = k1 * r2 + k2 * r2 * r2;
    const dRadial = k1 + 2 * k2 * r2; // d radial / d(r2)
    const [fx, fy] = distortNormalized(lens, x, y);
    const ex = fx - xd;
    const ey = fy - yd;
    const a = 1 + radial + 2 * x * x * dRadial + 2 * p1 * y + 6 * p2 * x; // dxd/dx
    const b = 2 * x * y * dRadial + 2 * p1 * x + 2 * p2 * y; // dxd/dy = dyd/dx
    const d = 1 + radial + 2 * y * y * dRadial + 6 * p1 * y + 2 * p2 * x; // dyd/dy
    const det = a * d - b * b;
    if (!(Math.abs(det) > 1e-12)) break;
    const sx = (d * ex - b * ey) / det;
    const sy = (a * ey - b * ex) / det;
    x -= sx;
    y -= sy;
    if (Math.abs(sx) + Math.abs(sy) < 1e-15) break;
  }
  return [x, y];
}

/** A pixel of the distorted image -> the same ray's pixel in the undistorted pinhole image. */
export function undistortPixel(lens: Lens, u: number, v: number): [number, number] {
  const [x, y] = undistortNormalized(lens, (u - lens.cx) / lens.fx, (v - lens.cy) / lens.fy);
  return [x * lens.fx + lens.cx, y * lens.fy + lens.cy];
}

/** A pixel of the undistorted pinhole image -> where that ray lands in the distorted image. */
export function distortPixel(lens: Lens, u: number, v: number): [number, number] {
  const [x, y] = distortNormalized(lens, (u - lens.cx) / lens.fx, (v - lens.cy) / lens.fy);
  return [x * lens.fx + lens.cx, y * lens.fy + lens.cy];
}

/**
 * Undistorts to a pinhole image of the same size and intrinsics: each output pixel centre is
 * mapped through the distortion into the source and sampled bilinearly. Rays that land outside
 * the source take the nearest edge pixel (no mask: the trainer has none to use yet).
 */
export function undistortImage(image: FloatImage, lens: Lens): FloatImage {
  const { width: w, height: h, channels: c, data } = image;
  const out = new Float32Array(data.length);
  for (let v = 0; v < h; v++) {
    for (let u = 0; u < w; u++) {
      const [ud, vd] = distortPixel(lens, u + 0.5, v + 0.5);
      // Continuous source coordinates in pixel-index space (centre of pixel i at i).
      const sx = Math.min(Math.max(ud - 0.5, 0), w - 1);
      const sy = Math.min(Math.max(vd - 0.5, 0), h - 1);
      const x0 = Math.floor(sx);
      const y0 = Math.floor(sy);
      const x1 = Math.min(x0 + 1, w - 1);
      const y1 = Math.min(y0 + 1, h - 1);
      const tx = sx - x0;
      const ty = sy - y0;
      const to = (v * w + u) * c;
      for (let k = 0; k < c; k++) {
        const top = data[(y0 * w + x0) * c + k] * (1 - tx) + data[(y0 * w + x1) * c + k] * tx;
        const bottom = data[(y1 * w + x0) * c + k] * (1 - tx) + data[(y1 * w + x1) * c + k] * tx;
        out[to + k] = top * (1 - ty) + bottom * ty;
      }
    }
  }
  return { width: w, height: h, channels: c, data: out };
}
