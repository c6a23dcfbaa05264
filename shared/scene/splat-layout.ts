/**
 * The 32-byte ".splat" layout that Babylon's GaussianSplattingMesh reads, and that the engine's
 * live `snapshot` event carries (binary, never JSON). Per splat, little-endian:
 *
 *   bytes  0..11  position  f32 x, y, z        (engine world frame, OpenCV axes)
 *   bytes 12..23  scale     f32 sx, sy, sz     (linear standard deviations, NOT log)
 *   bytes 24..27  colour    u8 r, g, b, a      (a = opacity * 255)
 *   bytes 28..31  rotation  u8 w, x, y, z      (unit quaternion, each component * 128 + 128)
 */
import { SH_C0, type SplatSet } from './splats.js';

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

/** Importance used to order splats in `.splat` files (antimatter15's convert.py): volume x opacity. */
function importance(splats: SplatSet, i: number): number {
  const s = splats.logScales;
  return Math.exp(s[3 * i] + s[3 * i + 1] + s[3 * i + 2]) / (1 + Math.exp(-splats.opacityLogits[i]));
}

/**
 * A SplatSet (3DGS parameterization) in the 32-byte layout: scales exponentiated, colour
 * 0.5 + SH_C0 * dc (the DC term only; higher SH bands do not fit the layout), alpha
 * sigmoid(opacity). `sort` orders the splats by importance, most important first, as the common
 * `.splat` tools do (viewers that stream the file draw the big, opaque splats first).
 */
export function encodeSplatSet(splats: SplatSet, options: { sort?: boolean } = {}): ArrayBuffer {
  const views = createSplatBuffer(splats.count);
  const K = (splats.shDegree + 1) * (splats.shDegree + 1);
  let order: ArrayLike<number> | undefined;
  if (options.sort) {
    const keys = new Float64Array(splats.count);
    for (let i = 0; i < splats.count; i++) keys[i] = importance(splats, i);
    order = Uint32Array.from({ length: splats.count }, (_, i) => i).sort((a, b) => keys[b] - keys[a] || a - b);
  }
  // Written field by field (not through writeSplat's records): snapshots encode millions of splats.
  const { floats, bytes } = views;
  const { means: m, logScales: s, quats: q, sh, opacityLogits } = splats;
  const byte = (x: number) => Math.min(255, Math.max(0, Math.round(x)));
  for (let out = 0; out < splats.count; out++) {
    const i = order ? order[out] : out;
    const f = out * 8;
    floats[f] = m[3 * i];
    floats[f + 1] = m[3 * i + 1];
    floats[f + 2] = m[3 * i + 2];
    floats[f + 3] = Math.exp(s[3 * i]);
    floats[f + 4] = Math.exp(s[3 * i + 1]);
    floats[f + 5] = Math.exp(s[3 * i + 2]);
    const b = out * SPLAT_STRIDE_BYTES;
    for (let c = 0; c < 3; c++) bytes[b + 24 + c] = byte((0.5 + SH_C0 * sh[i * K * 3 + c]) * 255);
    bytes[b + 27] = byte(255 / (1 + Math.exp(-opacityLogits[i])));
    const norm = Math.hypot(q[4 * i], q[4 * i + 1], q[4 * i + 2], q[4 * i + 3]) || 1;
    for (let c = 0; c < 4; c++) bytes[b + 28 + c] = encodeQuaternionComponent(q[4 * i + c] / norm);
  }
  return views.buffer;
}
