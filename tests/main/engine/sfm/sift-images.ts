/** Test images for feature extraction: random blobs (corner- and blob-like structure at many scales) plus a little noise. */
import type { GreyImage } from '../../../../main/engine/sfm/grey-image.js';

export function blobImage(width: number, height: number, random: () => number, blobs = Math.round((width * height) / 200)): GreyImage {
  const data = new Float32Array(width * height).fill(0.5);
  for (let b = 0; b < blobs; b++) {
    const cx = random() * width;
    const cy = random() * height;
    const sx = 1.5 + random() * 8;
    const sy = sx * (0.5 + random());
    const amplitude = (random() - 0.5) * 0.8;
    const r = Math.ceil(3 * Math.max(sx, sy));
    for (let y = Math.max(0, Math.floor(cy - r)); y < Math.min(height, Math.ceil(cy + r)); y++)
      for (let x = Math.max(0, Math.floor(cx - r)); x < Math.min(width, Math.ceil(cx + r)); x++)
        data[y * width + x] += amplitude * Math.exp(-(((x - cx) / sx) ** 2 + ((y - cy) / sy) ** 2) / 2);
  }
  for (let i = 0; i < data.length; i++) data[i] = Math.min(1, Math.max(0, data[i] + (random() - 0.5) * 0.02));
  return { width, height, data };
}

/** The crop [x0, x0 + width) x [y0, y0 + height) of an image. */
export function crop(image: GreyImage, x0: number, y0: number, width: number, height: number): GreyImage {
  const data = new Float32Array(width * height);
  for (let y = 0; y < height; y++) data.set(image.data.subarray((y + y0) * image.width + x0, (y + y0) * image.width + x0 + width), y * width);
  return { width, height, data };
}
