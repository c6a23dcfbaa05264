/**
 * Frame measures for choosing video frames: sharpness as the variance of the Laplacian (Pech-Pacheco
 * et al. 2000, the measure OpenCV users compute with cv2.Laplacian(...).var()), and small
 * thumbnails whose mean absolute difference finds near-duplicates. Both work on 8-bit grey images
 * already downscaled to a fixed width, so scores compare across clips of different resolutions.
 */

export interface GreyImage {
  width: number;
  height: number;
  /** Row-major, one byte per pixel. */
  data: Uint8Array;
}

/**
 * Variance of the 4-neighbour Laplacian (0 1 0 / 1 -4 1 / 0 1 0) over the interior pixels. Blur
 * removes the high frequencies the Laplacian responds to, so the variance drops steeply with
 * blur; it also depends on the scene's texture, which is why frames are only compared within a
 * clip.
 */
export function laplacianVariance(image: GreyImage): number {
  const { width: w, height: h, data } = image;
  if (w < 3 || h < 3) return 0;
  let sum = 0;
  let sumSquares = 0;
  for (let y = 1; y < h - 1; y++) {
    const row = y * w;
    for (let x = 1; x < w - 1; x++) {
      const i = row + x;
      const value = data[i - w] + data[i + w] + data[i - 1] + data[i + 1] - 4 * data[i];
      sum += value;
      sumSquares += value * value;
    }
  }
  const n = (w - 2) * (h - 2);
  const mean = sum / n;
  return sumSquares / n - mean * mean;
}

/** Area-average to exactly `width` x `height` (each output pixel the mean of the input pixels it covers, fractional edges weighted). */
export function resizeGreyArea(image: GreyImage, width: number, height: number): Float32Array {
  const { width: w, height: h, data } = image;
  const out = new Float32Array(width * height);
  const rx = w / width;
  const ry = h / height;
  for (let oy = 0; oy < height; oy++) {
    const y0 = oy * ry;
    const y1 = (oy + 1) * ry;
    for (let ox = 0; ox < width; ox++) {
      const x0 = ox * rx;
      const x1 = (ox + 1) * rx;
      let sum = 0;
      for (let y = Math.floor(y0); y < y1 && y < h; y++) {
        const wy = Math.min(y1, y + 1) - Math.max(y0, y);
        if (wy <= 0) continue;
        for (let x = Math.floor(x0); x < x1 && x < w; x++) {
          const wx = Math.min(x1, x + 1) - Math.max(x0, x);
          if (wx > 0) sum += data[y * w + x] * wx * wy;
        }
      }
      out[oy * width + ox] = sum / (rx * ry);
    }
  }
  return out;
}

/** Thumbnail side used for duplicate detection (the long side; the short one keeps the aspect ratio). */
export const THUMBNAIL_SIZE = 32;

/** A small grey thumbnail (long side THUMBNAIL_SIZE), values 0..255 rounded to bytes. */
export function thumbnail(image: GreyImage, size = THUMBNAIL_SIZE): GreyImage {
  const scale = size / Math.max(image.width, image.height);
  const width = Math.max(1, Math.round(image.width * scale));
  const height = Math.max(1, Math.round(image.height * scale));
  const values = resizeGreyArea(image, width, height);
  return { width, height, data: Uint8Array.from(values, (v) => Math.round(v)) };
}

/** Mean absolute difference of two same-size thumbnails, in grey levels (0..255). */
export function meanAbsDifference(a: GreyImage, b: GreyImage): number {
  if (a.width !== b.width || a.height !== b.height) return Infinity;
  let sum = 0;
  for (let i = 0; i < a.data.length; i++) sum += Math.abs(a.data[i] - b.data[i]);
  return sum / a.data.length;
}

/** RGB or RGBA 8-bit pixels -> grey (Rec. 601 luma, what ffmpeg's gray format uses). */
export function toGrey(image: { width: number; height: number; channels: number; data: Uint8Array }): GreyImage {
  const { width, height, channels, data } = image;
  const out = new Uint8Array(width * height);
  for (let p = 0; p < width * height; p++) {
    const i = p * channels;
    out[p] = Math.round(0.299 * data[i] + 0.587 * data[i + 1] + 0.114 * data[i + 2]);
  }
  return { width, height, data: out };
}
