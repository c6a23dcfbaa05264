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
  const h = 2 * height;
  const out = new Float32Array(w * h);
  const at = (x: number, y: number) => data[Math.min(y, height - 1) * width + Math.min(x, width - 1)];
  for (let y = 0; y < h; y++) {
    const y0 = y >> 1;
    const fy = y & 1 ? 0.5 : 0;
    for (let x = 0; x < w; x++) {
      const x0 = x >> 1;
      const fx = x & 1 ? 0.5 : 0;
      const top = at(x0, y0) * (1 - fx) + at(x0 + 1, y0) * fx;
      const bottom = at(x0, y0 + 1) * (1 - fx) + at(x0 + 1, y0 + 1) * fx;
      out[y * w + x] = top * (1 - fy) + bottom * fy;
    }
  }
  return { width: w, height: h, data: out };
}
