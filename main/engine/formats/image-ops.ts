/**
 * Pixel operations of the image pipeline, pure and synchronous: compositing to RGB in [0, 1],
 * area-averaging downscale, and 8-bit quantization. (EXIF orientation is sharp's, at decode.)
 *
 * Why the downscale is ours and not sharp's resize: it is an exact box filter for any ratio
 * (output pixel i covers [i r, (i + 1) r) of the input), run on the composited floats and rounded
 * once; libvips shrinks by the integer part and resamples the rest with a Lanczos or cubic
 * kernel, in 8 bits after compositing, so the trained-on pixels (and every measured number)
 * would move. It costs 5-20 ms of CPU per 1000x660 image (docs/benchmarks.md, "Image decode (CPU)").
 *
 * "Linear 0..1" here means value / 255 with no sRGB transfer curve: the trainer, its losses and the
 * published 3DGS numbers all work on the stored sRGB values scaled to [0, 1].
 */
/** Decoded pixels (images.ts produces them; defined here so that this module imports nothing). */
export interface Image {
  width: number;
  height: number;
  channels: 3 | 4;
  /** Row-major, interleaved, 8 bits per channel. */
  data: Uint8Array;
}

/** A float image: row-major, interleaved, `channels` values per pixel. */
export interface FloatImage {
  width: number;
  height: number;
  channels: number;
  data: Float32Array;
}

/** RGB in [0, 1]; RGBA is composited over `background` (straight alpha), RGB ignores it. */
export function compositeToRgb(image: Image, background: readonly [number, number, number]): FloatImage {
  const { width, height, channels, data } = image;
  const n = width * height;
  const out = new Float32Array(n * 3);
  if (channels === 3) {
    for (let i = 0; i < n * 3; i++) out[i] = data[i] / 255;
  } else {
    for (let p = 0; p < n; p++) {
      const a = data[p * 4 + 3] / 255;
      for (let k = 0; k < 3; k++) out[p * 3 + k] = (data[p * 4 + k] / 255) * a + background[k] * (1 - a);
    }
  }
  return { width, height, channels: 3, data: out };
}

/**
 * compositeToRgb then quantizeToBytes, fused into one pass for the common case with nothing in
 * between (no undistortion, no downscale): the same arithmetic, so the same bytes, about 3x faster.
 * RGB input is returned as is (quantize(b / 255) == b for every byte).
 */
export function compositeToBytes(image: Image, background: readonly [number, number, number]): Uint8Array {
  if (image.channels === 3) return image.data;
  // The result depends only on (alpha, value) per channel: tabulate the exact expression once.
  const table = new Uint8Array(3 * 65536);
  for (let k = 0; k < 3; k++) {
    for (let alpha = 0; alpha < 256; alpha++) {
      const a = alpha / 255;
      for (let value = 0; value < 256; value++) {
        const v = Math.round(Math.fround((value / 255) * a + background[k] * (1 - a)) * 255); // as compositeToRgb stores it
        table[k * 65536 + alpha * 256 + value] = v < 0 ? 0 : v > 255 ? 255 : v;
      }
    }
  }
  const n = image.width * image.height;
  const data = image.data;
  const out = new Uint8Array(n * 3);
  for (let p = 0; p < n; p++) {
    const alpha = data[p * 4 + 3] << 8;
    out[p * 3] = table[alpha | data[p * 4]];
    out[p * 3 + 1] = table[65536 + (alpha | data[p * 4 + 1])];
    out[p * 3 + 2] = table[131072 + (alpha | data[p * 4 + 2])];
  }
  return out;
}

/** `--downscale F`: round(W / F) x round(H / F), at least 1x1. */
export function downscaledSize(width: number, height: number, factor: number): { width: number; height: number } {
  return { width: Math.max(1, Math.round(width / factor)), height: Math.max(1, Math.round(height / factor)) };
}

/**
 * For each output index, the input pixels it covers and their weights (summing to 1). Output pixel
 * i covers [i * r, (i + 1) * r) with r = inSize / outSize: the exact ratio, not the requested
 * factor, so the output tiles the input exactly and intrinsics scale by outSize / inSize.
 */
function boxWeights(inSize: number, outSize: number): { start: Int32Array; count: Int32Array; weights: Float64Array; stride: number } {
  const r = inSize / outSize;
  const stride = Math.ceil(r) + 1;
  const start = new Int32Array(outSize);
  const count = new Int32Array(outSize);
  const weights = new Float64Array(outSize * stride);
  for (let i = 0; i < outSize; i++) {
    const a = i * r;
    const b = i === outSize - 1 ? inSize : (i + 1) * r;
    const first = Math.floor(a);
    let k = 0;
    for (let j = first; j < b && j < inSize; j++) {
      const overlap = Math.min(b, j + 1) - Math.max(a, j);
      if (overlap <= 0) continue;
      if (k === 0) start[i] = j;
      weights[i * stride + k] = overlap / r;
      k++;
    }
    count[i] = k;
  }
  return { start, count, weights, stride };
}

/** Exact box filter (area averaging) to downscaledSize(...), separable: rows first, then columns. */
export function downscaleArea(image: FloatImage, factor: number): FloatImage {
  if (!(factor >= 1) || !Number.isFinite(factor)) throw new RangeError(`downscale factor must be a finite number >= 1, got ${factor}`);
  const { width: w, height: h, channels: c, data } = image;
  const { width: ow, height: oh } = downscaledSize(w, h, factor);
  if (ow === w && oh === h) return image;
  const wx = boxWeights(w, ow);
  const wy = boxWeights(h, oh);
  const rows = new Float64Array(h * ow * c); // horizontal pass, float64 to keep the sums exact
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < ow; x++) {
      const s = wx.start[x];
      for (let k = 0; k < wx.count[x]; k++) {
        const wgt = wx.weights[x * wx.stride + k];
        const from = (y * w + s + k) * c;
        const to = (y * ow + x) * c;
        for (let ch = 0; ch < c; ch++) rows[to + ch] += data[from + ch] * wgt;
      }
    }
  }
  const out = new Float32Array(ow * oh * c);
  for (let y = 0; y < oh; y++) {
    const s = wy.start[y];
    for (let k = 0; k < wy.count[y]; k++) {
      const wgt = wy.weights[y * wy.stride + k];
      const fromRow = (s + k) * ow * c;
      const toRow = y * ow * c;
      for (let i = 0; i < ow * c; i++) out[toRow + i] += rows[fromRow + i] * wgt;
    }
  }
  return { width: ow, height: oh, channels: c, data: out };
}

/** [0, 1] floats -> bytes, rounded to nearest and clamped (the pipeline's final, cached form). */
export function quantizeToBytes(values: Float32Array): Uint8Array {
  const out = new Uint8Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = Math.round(values[i] * 255);
    out[i] = v < 0 ? 0 : v > 255 ? 255 : v;
  }
  return out;
}

const UNIT_OF_BYTE = Float32Array.from({ length: 256 }, (_, b) => b / 255);

/** Bytes -> [0, 1] floats. */
export function bytesToUnit(bytes: Uint8Array): Float32Array {
  const out = new Float32Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) out[i] = UNIT_OF_BYTE[bytes[i]];
  return out;
}
