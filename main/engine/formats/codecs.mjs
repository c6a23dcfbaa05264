/**
 * The codec step of image decoding, shared by the calling thread and the decode workers.
 *
 * Why plain JavaScript: a worker_thread cannot load TypeScript under Node 20, and the worker must
 * run exactly the code the main-thread fallback runs. So the only code that touches pngjs and
 * jpeg-js lives here, once; everything around it (format detection, structure checks, EXIF
 * orientation, error wording) stays in TypeScript (images.ts) and runs before and after this step.
 * Types: codecs.d.mts.
 *
 * Input is the file's bytes as images.ts checked them (a PNG cut after IEND, its chunk CRCs
 * verified, so pngjs need not check them again); output is
 * 8-bit pixels, RGB or RGBA, in a fresh ArrayBuffer of its own (so it can be transferred).
 * Library errors propagate unchanged: the caller words them.
 */
import pngjs from 'pngjs';
import jpegJs from 'jpeg-js';
import { inflateSync } from 'node:zlib';

/** Limits that keep a hostile header from allocating gigabytes. */
export const MAX_IMAGE_PIXELS = 200_000_000;

const PNG_CHANNELS = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const ADAM7 = [[0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2]]; // x0, y0, dx, dy

/**
 * Inflates the IDAT stream and checks it holds every scanline. pngjs's synchronous inflate
 * swallows zlib errors on current Node (a corrupt stream decodes to black), so this is the check
 * that a corrupt or short stream is an error. Costs one extra inflate, a few ms per megapixel.
 */
function checkPngImageData(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const width = view.getUint32(16);
  const height = view.getUint32(20);
  const bitsPerPixel = bytes[24] * PNG_CHANNELS[bytes[25]];
  const interlaced = bytes[28] === 1;
  const idat = [];
  for (let offset = 8; offset + 12 <= bytes.length; ) {
    const length = view.getUint32(offset);
    const type = String.fromCharCode(bytes[offset + 4], bytes[offset + 5], bytes[offset + 6], bytes[offset + 7]);
    if (type === 'IDAT') idat.push(bytes.subarray(offset + 8, offset + 8 + length));
    offset += 12 + length;
  }
  const rowBytes = (w) => 1 + Math.ceil((w * bitsPerPixel) / 8);
  let expected = height * rowBytes(width);
  if (interlaced) {
    expected = 0;
    for (const [x0, y0, dx, dy] of ADAM7) {
      const w = Math.ceil((width - x0) / dx);
      const h = Math.ceil((height - y0) / dy);
      if (w > 0 && h > 0) expected += h * rowBytes(w);
    }
  }
  let inflated;
  try {
    inflated = inflateSync(Buffer.concat(idat), { maxOutputLength: expected + (1 << 20) });
  } catch (error) {
    throw new Error(`image data does not inflate (${error instanceof Error ? error.message : String(error)})`);
  }
  if (inflated.length < expected) throw new Error(`image data inflates to ${inflated.length} bytes, expected ${expected}`);
}

/** PNG of any bit depth and colour type -> 8-bit RGB, or RGBA when the file has alpha (colour type 4/6 or tRNS). */
export function decodePngPixels(bytes) {
  checkPngImageData(bytes);
  const png = pngjs.PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), { checkCRC: false });
  const { width, height } = png;
  const rgba = png.data;
  if (png.alpha) return { width, height, channels: 4, data: new Uint8Array(rgba) };
  const rgb = new Uint8Array(width * height * 3);
  for (let i = 0, j = 0; j < rgb.length; i += 4, j += 3) {
    rgb[j] = rgba[i];
    rgb[j + 1] = rgba[i + 1];
    rgb[j + 2] = rgba[i + 2];
  }
  return { width, height, channels: 3, data: rgb };
}

/** Baseline or progressive JPEG (grey, YCbCr, Adobe CMYK) -> 8-bit RGB, without applying EXIF orientation. */
export function decodeJpegPixels(bytes) {
  const image = jpegJs.decode(bytes, {
    useTArray: true,
    formatAsRGBA: false,
    maxResolutionInMP: MAX_IMAGE_PIXELS / 1e6,
    maxMemoryUsageInMB: 2048,
  });
  const data = image.data.byteOffset === 0 && image.data.byteLength === image.data.buffer.byteLength ? image.data : new Uint8Array(image.data);
  return { width: image.width, height: image.height, channels: 3, data };
}

/** Dispatch by the format images.ts detected from the magic bytes. */
export function decodePixels(format, bytes) {
  if (format === 'png') return decodePngPixels(bytes);
  if (format === 'jpeg') return decodeJpegPixels(bytes);
  throw new Error(`unknown image format ${String(format)}`);
}
