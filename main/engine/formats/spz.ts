/**
 * Niantic's SPZ format, version 2 (nianticlabs/spz, load-spz.cc): gzip of a 16-byte header and
 * the quantized attributes, attribute by attribute:
 *
 *   header   u32 magic 0x5053474e ("NGSP"), u32 version 2, u32 points, u8 SH degree,
 *            u8 fractional bits (12), u8 flags (0x1 antialiased), u8 reserved 0   (little-endian)
 *   positions  3 x 24-bit signed fixed point per splat (value * 2^12)
 *   alphas     u8 sigmoid(opacity) * 255
 *   colours    u8 x 3: SH DC * (0.15 * 255) + 127.5
 *   scales     u8 x 3: (log scale + 10) * 16
 *   rotations  u8 x 3: x, y, z of the unit quaternion with w >= 0, * 127.5 + 127.5 (w is derived)
 *   SH         u8 per coefficient, coefficient-major and channel-minor: round(v * 128) + 128 in
 *              buckets of 8 (degree 1) or 16 (degrees 2, 3)
 *
 * SPZ stores RUB axes (x right, y up, z back); our splats are RDF (OpenCV, like PLY), so writing
 * flips y and z of positions, the quaternion's y and z, and the SH coefficients that are odd in
 * y or z (the library's coordinateConverter(RDF, RUB) table). Every byte is clamped to 0..255 and
 * rounded as the library's toUint8 does. The reader takes versions 2 and 3 (smallest-three
 * rotations) without extensions, for round trips and files from other tools.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { badInput } from '../../../shared/rpc/errors.js';
import { emptySplats, shCoefficientCount, type SplatSet } from '../../../shared/scene/splats.js';
import { writeFileAtomic } from './atomic-file.js';

const MAGIC = 0x5053474e;
const HEADER_BYTES = 16;
const FRACTIONAL_BITS = 12;
const COLOR_SCALE = 0.15;
const MAX_POINTS = 10_000_000; // the reference loader's limit
/** RDF <-> RUB sign of SH coefficient j (j = k - 1, k the coefficient index, degrees 1..3). */
const FLIP_SH = [-1, -1, 1, -1, 1, 1, -1, 1, -1, 1, -1, -1, 1, -1, 1];
const FLIP_P = [1, -1, -1];

const toUint8 = (x: number) => Math.min(255, Math.max(0, Math.round(x)));
/** The library's legacy SH quantizer (the one its decoder inverts exactly: (q - 128) / 128). */
function quantizeSh(x: number, bucket: number): number {
  const q = Math.round(x * 128) + 128;
  return Math.min(255, Math.max(0, Math.floor((q + bucket / 2) / bucket) * bucket));
}

export interface SpzWriteResult {
  bytes: Uint8Array;
  /** Positions outside the 24-bit range (|x| >= 2048 at 12 fractional bits), clamped to it. */
  clamped: number;
}

export function serializeSpz(splats: SplatSet, options: { antialiased?: boolean } = {}): SpzWriteResult {
  const n = splats.count;
  const K = shCoefficientCount(splats.shDegree);
  const rest = K - 1;
  const size = HEADER_BYTES + n * (9 + 1 + 3 + 3 + 3 + rest * 3);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, 2, true);
  view.setUint32(8, n, true);
  out[12] = splats.shDegree;
  out[13] = FRACTIONAL_BITS;
  out[14] = options.antialiased ? 1 : 0;
  out[15] = 0;
  let o = HEADER_BYTES;
  let clamped = 0;
  const limit = 1 << 23;
  for (let i = 0; i < n * 3; i++) {
    let fixed = Math.round(FLIP_P[i % 3] * splats.means[i] * (1 << FRACTIONAL_BITS));
    if (!(fixed >= -limit && fixed < limit)) {
      clamped++;
      fixed = Number.isNaN(fixed) ? 0 : Math.min(limit - 1, Math.max(-limit, fixed));
    }
    out[o++] = fixed & 0xff;
    out[o++] = (fixed >> 8) & 0xff;
    out[o++] = (fixed >> 16) & 0xff;
  }
  for (let i = 0; i < n; i++) out[o++] = toUint8((255 / (1 + Math.exp(-splats.opacityLogits[i]))));
  for (let i = 0; i < n; i++) for (let c = 0; c < 3; c++) out[o++] = toUint8(splats.sh[i * K * 3 + c] * (COLOR_SCALE * 255) + 0.5 * 255);
  for (let i = 0; i < n * 3; i++) out[o++] = toUint8((splats.logScales[i] + 10) * 16);
  for (let i = 0; i < n; i++) {
    const q = splats.quats;
    const w = q[4 * i];
    const norm = Math.hypot(w, q[4 * i + 1], q[4 * i + 2], q[4 * i + 3]) || 1;
    const sign = w < 0 ? -1 : 1;
    // (x, y, z) in RUB: y and z flip; w >= 0 picks one of q and -q.
    out[o++] = toUint8(((sign * q[4 * i + 1]) / norm) * 127.5 + 127.5);
    out[o++] = toUint8(((sign * -q[4 * i + 2]) / norm) * 127.5 + 127.5);
    out[o++] = toUint8(((sign * -q[4 * i + 3]) / norm) * 127.5 + 127.5);
  }
  for (let i = 0; i < n; i++) {
    for (let k = 1; k < K; k++) {
      const bucket = k <= 3 ? 8 : 16;
      for (let c = 0; c < 3; c++) out[o++] = quantizeSh(FLIP_SH[k - 1] * splats.sh[(i * K + k) * 3 + c], bucket);
    }
  }
  return { bytes: new Uint8Array(gzipSync(out)), clamped };
}

export async function writeSpzFile(path: string, splats: SplatSet, options: { antialiased?: boolean } = {}): Promise<SpzWriteResult> {
  const result = serializeSpz(splats, options);
  await writeFileAtomic(path, result.bytes);
  return result;
}

/** Reads an SPZ file (version 2 or 3, no extensions) back to RDF splats. */
export function parseSpz(compressed: Uint8Array, file: string): SplatSet & { antialiased: boolean } {
  let bytes: Uint8Array;
  try {
    bytes = gunzipSync(compressed, { maxOutputLength: HEADER_BYTES + MAX_POINTS * 200 });
  } catch (error) {
    throw badInput(file, `not a gzip stream, or a damaged one (${(error as Error).message})`);
  }
  if (bytes.length < HEADER_BYTES) throw badInput(file, `header truncated: ${bytes.length} bytes`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== MAGIC) throw badInput(file, 'not an SPZ file (wrong magic)');
  const version = view.getUint32(4, true);
  if (version !== 2 && version !== 3) throw badInput(file, `SPZ version ${version} is not supported (2 and 3 are)`);
  const n = view.getUint32(8, true);
  const degree = bytes[12];
  const fractionalBits = bytes[13];
  const flags = bytes[14];
  if (n > MAX_POINTS) throw badInput(file, `${n} points is more than ${MAX_POINTS}`);
  if (degree > 3) throw badInput(file, `SH degree ${degree} is not supported (0 to 3)`);
  if (flags & 0x2) throw badInput(file, 'SPZ extensions are not supported');
  if (fractionalBits > 23) throw badInput(file, `${fractionalBits} fractional bits is out of range`);
  const K = shCoefficientCount(degree);
  const rotationBytes = version >= 3 ? 4 : 3;
  const expected = HEADER_BYTES + n * (9 + 1 + 3 + 3 + rotationBytes + (K - 1) * 3);
  if (bytes.length !== expected) throw badInput(file, `${n} points of SH degree ${degree} need ${expected} bytes, the stream has ${bytes.length}`);
  const s = emptySplats(n, degree);
  let o = HEADER_BYTES;
  const scale = 1 / (1 << fractionalBits);
  for (let i = 0; i < n * 3; i++) {
    let fixed = bytes[o] | (bytes[o + 1] << 8) | (bytes[o + 2] << 16);
    if (fixed & 0x800000) fixed |= ~0xffffff;
    s.means[i] = FLIP_P[i % 3] * fixed * scale;
    o += 3;
  }
  for (let i = 0; i < n; i++) {
    const a = Math.min(511 / 512, Math.max(1 / 512, bytes[o++] / 255)); // 0 and 255 would be infinite logits
    s.opacityLogits[i] = Math.log(a / (1 - a));
  }
  for (let i = 0; i < n; i++) for (let c = 0; c < 3; c++) s.sh[i * K * 3 + c] = (bytes[o++] / 255 - 0.5) / COLOR_SCALE;
  for (let i = 0; i < n * 3; i++) s.logScales[i] = bytes[o++] / 16 - 10;
  for (let i = 0; i < n; i++) {
    let x: number, y: number, z: number, w: number;
    if (rotationBytes === 3) {
      x = bytes[o] / 127.5 - 1;
      y = bytes[o + 1] / 127.5 - 1;
      z = bytes[o + 2] / 127.5 - 1;
      w = Math.sqrt(Math.max(0, 1 - x * x - y * y - z * z));
    } else {
      let comp = (bytes[o] | (bytes[o + 1] << 8) | (bytes[o + 2] << 16) | (bytes[o + 3] << 24)) >>> 0;
      const largest = comp >>> 30;
      const q = [0, 0, 0, 0];
      let sum = 0;
      for (let k = 3; k >= 0; k--) {
        if (k === largest) continue;
        const mag = comp & 511;
        const negative = (comp >>> 9) & 1;
        comp >>>= 10;
        q[k] = (Math.SQRT1_2 * mag) / 511 * (negative ? -1 : 1);
        sum += q[k] * q[k];
      }
      q[largest] = Math.sqrt(Math.max(0, 1 - sum));
      [x, y, z, w] = q;
    }
    o += rotationBytes;
    s.quats.set([w, x, -y, -z], 4 * i);
  }
  for (let i = 0; i < n; i++) {
    for (let k = 1; k < K; k++) for (let c = 0; c < 3; c++) s.sh[(i * K + k) * 3 + c] = FLIP_SH[k - 1] * ((bytes[o++] - 128) / 128);
  }
  return { ...s, antialiased: (flags & 1) !== 0 };
}
