/**
 * Undistortion of a view's image to the pinhole camera the rasterizer renders (it is pinhole only:
 * its projection's Jacobian is the pinhole's; native fisheye rendering is not in scope), and the
 * choice of that pinhole. The lens models and their math are in lens.ts.
 *
 * - Perspective models keep the lens's size, focal lengths and principal point (what 3DGS and
 *   COLMAP's keypoints expect; our keypoints agree with image_undistorter to 1e-9 px).
 * - Fisheye models keep the size and principal point and shrink the focal lengths (one factor, so
 *   pixels stay square) until the four half fields of view along the axes through the principal
 *   point fit: each up to the lens's valid angle and at most MAX_FISHEYE_HALF_FOV_DEGREES.
 * Output pixels whose ray leaves the photo or the lens's valid field are invalid: undistortionMap
 * marks them in its `valid` mask (0 = invalid), which the loss ignores. One map per view resamples
 * its colour, mask and alpha alike (view-image.ts).
 */
import { badInput } from '../../../shared/rpc/errors.js';
import type { FloatImage } from '../formats/image-ops.js';
import { distortNormalized, lensTerms, undistortNormalized, validAngle, validDistortedRadius, validRadius, type Lens } from './lens.js';

export {
  distortNormalized,
  distortPixel,
  isPinholeLens,
  lensOf,
  undistortNormalized,
  undistortPixel,
  type Lens,
} from './lens.js';

/**
 * Widest half field of view a fisheye's pinhole keeps. A pinhole spends 1 / cos^2(theta) times
 * the centre's pixels per angle at theta: 4x at 60 degrees, 8x at 69; wider fields cost the centre
 * its resolution for a periphery the lens itself records at the centre's density.
 */
export const MAX_FISHEYE_HALF_FOV_DEGREES = 60;

export interface PinholeIntrinsics {
  fx: number;
  fy: number;
  cx: number;
  cy: number;
}

/** The pinhole a view of `lens` (an image of width x height) is undistorted to (see the header). */
export function undistortedPinhole(lens: Lens, width: number, height: number): PinholeIntrinsics {
  const { fx, fy, cx, cy } = lens;
  if (lens.projection === 'perspective') return { fx, fy, cx, cy };
  const widest = Math.min(validAngle(lens), (MAX_FISHEYE_HALF_FOV_DEGREES * Math.PI) / 180);
  // Per axis direction: the distorted edge (pixels from the principal point, focal) -> the angle it sees.
  const edges: [number, number][] = [[cx, fx], [width - cx, fx], [cy, fy], [height - cy, fy]];
  let scale = Infinity;
  for (const [pixels, focal] of edges) {
    const [x] = undistortNormalized(lens, pixels / focal, 0);
    const theta = Number.isFinite(x) ? Math.min(Math.atan(x), widest) : widest;
    // the pinhole's edge at `pixels` sees theta: pixels / (s focal) = tan(theta)
    if (pixels > 0) scale = Math.min(scale, pixels / (focal * Math.tan(theta)));
  }
  return { fx: fx * scale, fy: fy * scale, cx, cy };
}

/**
 * Refuses a lens no photo of width x height could have been taken with, so a wrong model or a
 * corrupt calibration fails at load instead of training on garbage: the principal point outside
 * the image, a focal length under 1 % or over 1000 times the image's larger side, or a model that
 * is one-to-one over less than half of the image's inscribed radius around the principal point.
 */
export function checkLens(lens: Lens, width: number, height: number, file: string, where: string): void {
  const side = Math.max(width, height);
  for (const [name, focal] of [['fx', lens.fx], ['fy', lens.fy]] as const) {
    if (!(focal >= 0.01 * side && focal <= 1000 * side)) throw badInput(file, `${where}: focal length ${name} = ${focal} is not plausible for a ${width}x${height} image (expected ${0.01 * side}..${1000 * side})`);
  }
  if (!(lens.cx >= 0 && lens.cx <= width && lens.cy >= 0 && lens.cy <= height)) {
    throw badInput(file, `${where}: principal point (${lens.cx}, ${lens.cy}) is outside the ${width}x${height} image`);
  }
  const inscribed = Math.min(lens.cx / lens.fx, (width - lens.cx) / lens.fx, lens.cy / lens.fy, (height - lens.cy) / lens.fy);
  const valid = validDistortedRadius(lens);
  if (!(valid >= 0.5 * inscribed)) {
    throw badInput(file, `${where}: the ${lens.projection} distortion [${lensTerms(lens).join(', ')}] folds back ${(valid * Math.min(lens.fx, lens.fy)).toFixed(1)} px from the principal point, inside half the image's inscribed radius (${(0.5 * inscribed * Math.min(lens.fx, lens.fy)).toFixed(1)} px): not a lens model of this image`);
  }
}

/**
 * Where each output pixel samples the photo: the top-left source pixel and the bilinear weights,
 * computed once per view and applied to its colour, mask and alpha alike.
 */
export interface UndistortionMap {
  width: number;
  height: number;
  /** Per output pixel: y0 * width + x0 of the source, -1 where invalid. */
  source: Int32Array;
  tx: Float64Array;
  ty: Float64Array;
  valid: Uint8Array;
  invalidPixels: number;
}

/**
 * The map from the pinhole `pinhole` (of the photo's size) into the photo: each output pixel
 * centre through the distortion, bilinear between the four nearest source pixels (clamped within
 * the last half pixel). Rays that land outside the photo or the valid field are invalid.
 */
export function undistortionMap(lens: Lens, width: number, height: number, pinhole: PinholeIntrinsics = lens): UndistortionMap {
  const w = width;
  const h = height;
  const source = new Int32Array(w * h).fill(-1);
  const tx = new Float64Array(w * h);
  const ty = new Float64Array(w * h);
  const valid = new Uint8Array(w * h);
  const radiusLimit = validRadius(lens);
  const radiusLimit2 = radiusLimit * radiusLimit; // Infinity stays Infinity
  let invalidPixels = 0;
  for (let v = 0; v < h; v++) {
    const y = (v + 0.5 - pinhole.cy) / pinhole.fy;
    for (let u = 0; u < w; u++) {
      const x = (u + 0.5 - pinhole.cx) / pinhole.fx;
      const [xd, yd] = distortNormalized(lens, x, y);
      const ud = xd * lens.fx + lens.cx;
      const vd = yd * lens.fy + lens.cy;
      const i = v * w + u;
      if (!(x * x + y * y < radiusLimit2 && ud >= 0 && ud <= w && vd >= 0 && vd <= h)) {
        invalidPixels++;
        continue;
      }
      valid[i] = 1;
      // Continuous source coordinates in pixel-index space (centre of pixel i at i).
      const sx = Math.min(Math.max(ud - 0.5, 0), w - 1);
      const sy = Math.min(Math.max(vd - 0.5, 0), h - 1);
      const x0 = Math.floor(sx);
      const y0 = Math.floor(sy);
      source[i] = y0 * w + x0;
      tx[i] = sx - x0;
      ty[i] = sy - y0;
    }
  }
  return { width: w, height: h, source, tx, ty, valid, invalidPixels };
}

/** `image` (the photo's size, any channel count) resampled through `map`; invalid pixels are 0. */
export function applyUndistortion(map: UndistortionMap, image: FloatImage): FloatImage {
  const { width: w, height: h, channels: c, data } = image;
  if (w !== map.width || h !== map.height) throw new Error(`undistortion map is ${map.width}x${map.height}, the image ${w}x${h}`);
  const out = new Float32Array(data.length);
  const { source, tx: txs, ty: tys } = map;
  for (let i = 0; i < w * h; i++) {
    const s = source[i];
    if (s < 0) continue;
    const x0 = s % w;
    // the four samples' first channel: (x0, y0), (x1, y0), (x0, y1), (x1, y1), x1 and y1 clamped to the last pixel
    const right = x0 + 1 < w ? c : 0;
    const down = s + w < w * h ? w * c : 0;
    const a = s * c;
    const tx = txs[i];
    const ty = tys[i];
    const to = i * c;
    for (let k = 0; k < c; k++) {
      const top = data[a + k] * (1 - tx) + data[a + right + k] * tx;
      const bottom = data[a + down + k] * (1 - tx) + data[a + down + right + k] * tx;
      out[to + k] = top * (1 - ty) + bottom * ty;
    }
  }
  return { width: w, height: h, channels: c, data: out };
}
