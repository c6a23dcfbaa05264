/** Pixel statistics of a PNG screenshot, to tell a rendered scene from a blank canvas. */
import { PNG } from 'pngjs';

export interface CanvasStats {
  width: number;
  height: number;
  /** Distinct RGB colours (quantized to 5 bits per channel). */
  distinctColours: number;
  /** The most common colour, taken as the background. */
  background: [number, number, number];
  /** Share of pixels farther than 24 (per channel, max) from the background. */
  nonBackgroundFraction: number;
}

export function canvasStats(png: Buffer): CanvasStats {
  const image = PNG.sync.read(png);
  const counts = new Map<number, number>();
  const { data, width, height } = image;
  for (let i = 0; i < data.length; i += 4) {
    const key = ((data[i] >> 3) << 10) | ((data[i + 1] >> 3) << 5) | (data[i + 2] >> 3);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  let bgKey = 0;
  let bgCount = -1;
  for (const [key, count] of counts) if (count > bgCount) [bgKey, bgCount] = [key, count];
  const background: [number, number, number] = [((bgKey >> 10) & 31) << 3, ((bgKey >> 5) & 31) << 3, (bgKey & 31) << 3];
  let different = 0;
  for (let i = 0; i < data.length; i += 4) {
    const d = Math.max(Math.abs(data[i] - background[0]), Math.abs(data[i + 1] - background[1]), Math.abs(data[i + 2] - background[2]));
    if (d > 24) different++;
  }
  return { width, height, distinctColours: counts.size, background, nonBackgroundFraction: different / (width * height) };
}

/** Mean colour of a rectangle of the image (fractions of width and height). */
export function regionMean(png: Buffer, x0: number, y0: number, x1: number, y1: number): [number, number, number] {
  const image = PNG.sync.read(png);
  const { data, width, height } = image;
  let r = 0;
  let g = 0;
  let b = 0;
  let n = 0;
  for (let y = Math.floor(y0 * height); y < Math.floor(y1 * height); y++) {
    for (let x = Math.floor(x0 * width); x < Math.floor(x1 * width); x++) {
      const i = (y * width + x) * 4;
      r += data[i];
      g += data[i + 1];
      b += data[i + 2];
      n++;
    }
  }
  return [r / n, g / n, b / n];
}
