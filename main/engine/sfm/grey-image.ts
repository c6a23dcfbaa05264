/**
 * Grey float images for feature extraction: decoded through formats/images.ts (sharp), luminance
 * by Rec. 709 weights on the stored 8-bit values / 255 (the weights FreeImage's greyscale
 * conversion uses, which COLMAP reads its images through), alpha ignored.
 */
import { readImage } from '../formats/images.js';
import type { Image } from '../formats/image-ops.js';
import type { KeypointMask } from './keypoint-selection.js';

export interface GreyImage {
  width: number;
  height: number;
  /** Row-major, one value in [0, 1] per pixel. */
  data: Float32Array;
}

const LUMA = [0.2126, 0.7152, 0.0722] as const;

export function toGrey(image: Image): GreyImage {
  const { width, height, channels, data } = image;
  const out = new Float32Array(width * height);
  for (let p = 0; p < out.length; p++) {
    const i = p * channels;
    out[p] = (LUMA[0] * data[i] + LUMA[1] * data[i + 1] + LUMA[2] * data[i + 2]) / 255;
  }
  return { width, height, data: out };
}

export async function loadGreyImage(file: string): Promise<GreyImage> {
  return toGrey(await readImage(file));
}

/**
 * A feature mask (COLMAP's ImageReader.mask_path convention: 0 = no keypoints there), by its first
 * channel: capture-masks.ts writes 0 or 255 in every channel.
 */
export async function loadKeypointMask(file: string): Promise<KeypointMask> {
  const { width, height, channels, data } = await readImage(file);
  const keep = new Uint8Array(width * height);
  for (let p = 0; p < keep.length; p++) keep[p] = data[p * channels];
  return { width, height, keep };
}

/**
 * 2x bilinear upsampling (first octave -1): output pixel 2i is input pixel i and 2i + 1 is the
 * mean of i and i + 1 (the last column and row repeat), VLFeat's convention, so an input
 * coordinate is half an output one.
 */
export function upsample2x(image: GreyImage): GreyImage {
  const { width, height, data } = image;
  const w = 2 * width;
  const out = new Float32Array(w * 2 * height);
  // Per input pixel its four outputs, from the float64 expressions top * (1 - fy) + bottom * fy of
  // top = a (1 - fx) + b fx: with fx, fy in {0, 0.5} those are a, a 0.5 + b 0.5, ... exactly (the
  // same bits as the per-output form), without a closure and two clamps per tap (17 ms a frame at
  // 1280x712 before, docs/sfm.md "Extraction throughput").
  for (let y0 = 0; y0 < height; y0++) {
    const row = y0 * width;
    const below = Math.min(y0 + 1, height - 1) * width;
    const even = 2 * y0 * w;
    const odd = even + w;
    for (let x0 = 0; x0 < width; x0++) {
      const x1 = x0 + 1 < width ? x0 + 1 : x0;
      const a = data[row + x0];
      const b = data[row + x1];
      const c = data[below + x0];
      const d = data[below + x1];
      const top = a * 0.5 + b * 0.5;
      out[even + 2 * x0] = a;
      out[even + 2 * x0 + 1] = top;
      out[odd + 2 * x0] = a * 0.5 + c * 0.5;
      out[odd + 2 * x0 + 1] = top * 0.5 + (c * 0.5 + d * 0.5) * 0.5;
    }
  }
  return { width: w, height: 2 * height, data: out };
}
