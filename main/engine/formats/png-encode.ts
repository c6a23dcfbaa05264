/** Float images in [0, 1] to 8-bit RGB PNGs (renders, training photos for the viewer). */
import { PNG } from 'pngjs';

/** `channels` floats per pixel (3: RGB, 4: RGBA with alpha dropped: the background is composited). */
export function encodePngRgb(values: Float32Array, width: number, height: number, channels: 3 | 4 = 4): Buffer {
  const png = new PNG({ width, height, colorType: 2 });
  for (let p = 0; p < width * height; p++) {
    for (let c = 0; c < 3; c++) png.data[4 * p + c] = Math.round(Math.min(1, Math.max(0, values[channels * p + c])) * 255);
    png.data[4 * p + 3] = 255;
  }
  return PNG.sync.write(png, { colorType: 2 });
}
