/**
 * The 32-byte ".splat" layout that Babylon's GaussianSplattingMesh reads, and that the engine's
 * live `snapshot` event carries (binary, never JSON). Per splat, little-endian:
 *
 *   bytes  0..11  position  f32 x, y, z        (engine world frame, see opencv-frame.ts)
 *   bytes 12..23  scale     f32 sx, sy, sz     (linear standard deviations, NOT log)
 *   bytes 24..27  colour    u8 r, g, b, a      (a = opacity * 255)
 *   bytes 28..31  rotation  u8 w, x, y, z      (unit quaternion, each component * 128 + 128)
 */
export const SPLAT_STRIDE_BYTES = 32;

export interface SplatRecord {
  position: readonly [number, number, number];
  scale: readonly [number, number, number];
  /** 0..255 each; alpha is opacity. */
  rgba: readonly [number, number, number, number];
  /** (w, x, y, z); normalized before encoding. */
  quaternion: readonly [number, number, number, number];
}

/** Typed views over one splat buffer; cheap to create, never copied. */
export interface SplatBufferViews {
  buffer: ArrayBuffer;
  count: number;
  floats: Float32Array;
  bytes: Uint8Array;
}

export function createSplatBuffer(count: number): SplatBufferViews {
  return viewSplatBuffer(new ArrayBuffer(count * SPLAT_STRIDE_BYTES), count);
}

/** Wraps an existing buffer; throws naming the mismatch when it is too small for `count`. */
export function viewSplatBuffer(buffer: ArrayBuffer, count: number): SplatBufferViews {
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`splat count: expected a whole number >= 0, got ${count}`);
  if (buffer.byteLength < count * SPLAT_STRIDE_BYTES) {
    throw new RangeError(`splat buffer: ${count} splats need ${count * SPLAT_STRIDE_BYTES} bytes (32 each), got ${buffer.byteLength}`);
  }
  return { buffer, count, floats: new Float32Array(buffer, 0, count * 8), bytes: new Uint8Array(buffer, 0, count * SPLAT_STRIDE_BYTES) };
}

/** One quaternion component in [-1, 1] as the layout's byte. */
export function encodeQuaternionComponent(q: number): number {
  return Math.min(255, Math.max(0, Math.round(q * 128 + 128)));
}

export function decodeQuaternionComponent(byte: number): number {
  return (byte - 128) / 128;
}

export function writeSplat(views: SplatBufferViews, index: number, splat: SplatRecord): void {
  const f = index * 8;
  views.floats[f] = splat.position[0];
  views.floats[f + 1] = splat.position[1];
  views.floats[f + 2] = splat.position[2];
  views.floats[f + 3] = splat.scale[0];
  views.floats[f + 4] = splat.scale[1];
  views.floats[f + 5] = splat.scale[2];
  const b = index * SPLAT_STRIDE_BYTES;
  for (let c = 0; c < 4; c++) views.bytes[b + 24 + c] = Math.min(255, Math.max(0, Math.round(splat.rgba[c])));
  const [w, x, y, z] = splat.quaternion;
  const norm = Math.hypot(w, x, y, z) || 1;
  views.bytes[b + 28] = encodeQuaternionComponent(w / norm);
  views.bytes[b + 29] = encodeQuaternionComponent(x / norm);
  views.bytes[b + 30] = encodeQuaternionComponent(y / norm);
  views.bytes[b + 31] = encodeQuaternionComponent(z / norm);
}

export function readSplat(views: SplatBufferViews, index: number): SplatRecord {
  const f = index * 8;
  const b = index * SPLAT_STRIDE_BYTES;
  const fl = views.floats;
  const by = views.bytes;
  return {
    position: [fl[f], fl[f + 1], fl[f + 2]],
    scale: [fl[f + 3], fl[f + 4], fl[f + 5]],
    rgba: [by[b + 24], by[b + 25], by[b + 26], by[b + 27]],
    quaternion: [28, 29, 30, 31].map((o) => decodeQuaternionComponent(by[b + o])) as unknown as [number, number, number, number],
  };
}

export interface Bounds {
  min: [number, number, number];
  max: [number, number, number];
}

/**
 * Bounds of the splat centres between two quantiles per axis (default 2 % .. 98 %), so a few
 * far-away floaters (common early in training) do not make fit-to-scene zoom out to nothing.
 * Samples at most `maxSamples` splats; returns undefined for an empty buffer.
 */
export function robustBounds(views: SplatBufferViews, lowQuantile = 0.02, highQuantile = 0.98, maxSamples = 20000): Bounds | undefined {
  if (views.count === 0) return undefined;
  const stride = Math.max(1, Math.floor(views.count / maxSamples));
  const n = Math.ceil(views.count / stride);
  const axes = [new Float32Array(n), new Float32Array(n), new Float32Array(n)];
  for (let i = 0, k = 0; i < views.count; i += stride, k++) {
    for (let a = 0; a < 3; a++) axes[a][k] = views.floats[i * 8 + a];
  }
  const min: [number, number, number] = [0, 0, 0];
  const max: [number, number, number] = [0, 0, 0];
  for (let a = 0; a < 3; a++) {
    const sorted = axes[a].sort();
    min[a] = sorted[Math.floor(lowQuantile * (n - 1))];
    max[a] = sorted[Math.ceil(highQuantile * (n - 1))];
  }
  return { min, max };
}
