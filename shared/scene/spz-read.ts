/**
 * Reading Niantic's SPZ (versions 2 to 4) back to RDF splats, runtime-neutral so that the engine's
 * reader (main/engine/formats/spz.ts, which also writes SPZ) and the exported web viewer
 * (renderer/web-viewer/) decode the same bytes with the same code. main/engine/formats/spz.ts
 * describes the format. Versions 2 and 3 are gzip streams: the caller passes its gunzip (Node's
 * zlib with an output limit in the engine); without one they are refused by name. Version 4 uses
 * zstd, decoded by fzstd (plain JavaScript) everywhere.
 */
import { decompress as zstdDecompress } from 'fzstd';
import { badInput } from '../rpc/errors.js';
import { emptySplats, shCoefficientCount, type SplatSet } from './splats.js';

const MAGIC = 0x5053474e;
const LEGACY_HEADER_BYTES = 16;
export const SPZ_V4_HEADER_BYTES = 32;
const COLOR_SCALE = 0.15;
/** The reference loader's limit before version 4. */
export const SPZ_MAX_POINTS = 10_000_000;
const FLAG_ANTIALIASED = 0x1;
const FLAG_EXTENSIONS = 0x2;
/** The one extension that changes what the numbers mean (data stored in other axes than RUB). */
const EXTENSION_COORDINATE_SYSTEM = 0xadbe0003;
/** RDF <-> RUB sign of SH coefficient j (j = k - 1, k the coefficient index, degrees 1..3). */
const FLIP_SH = [-1, -1, 1, -1, 1, 1, -1, 1, -1, 1, -1, -1, 1, -1, 1];
const FLIP_P = [1, -1, -1];

/** Inflates a whole gzip stream; throws (any error) on a damaged one. */
export type Gunzip = (compressed: Uint8Array) => Uint8Array;

interface SpzHeader {
  version: number;
  points: number;
  degree: number;
  fractionalBits: number;
  flags: number;
}

function checkHeader(header: SpzHeader, file: string): void {
  const { version, points, degree, fractionalBits } = header;
  if (version < 2 || version > 4) throw badInput(file, `SPZ version ${version} is not supported (2 to 4 are)`);
  if (points > SPZ_MAX_POINTS) throw badInput(file, `${points} points is more than ${SPZ_MAX_POINTS}`);
  if (degree > 3) throw badInput(file, `SH degree ${degree} is not supported (0 to 3)`);
  if (fractionalBits > 23) throw badInput(file, `${fractionalBits} fractional bits is out of range`);
}

function readHeader(view: DataView, file: string): SpzHeader {
  if (view.getUint32(0, true) !== MAGIC) throw badInput(file, 'not an SPZ file (wrong magic)');
  return { version: view.getUint32(4, true), points: view.getUint32(8, true), degree: view.getUint8(12), fractionalBits: view.getUint8(13), flags: view.getUint8(14) };
}

/** The bytes of each attribute array, in file order. */
function attributeSizes(header: SpzHeader): number[] {
  const n = header.points;
  return [9 * n, n, 3 * n, 3 * n, (header.version >= 3 ? 4 : 3) * n, (shCoefficientCount(header.degree) - 1) * 3 * n];
}

/** Versions 1-3: one gzip stream of the 16-byte header and the arrays. */
function inflateLegacy(compressed: Uint8Array, file: string, gunzip: Gunzip | undefined): { header: SpzHeader; body: Uint8Array } {
  if (!gunzip) throw badInput(file, 'SPZ version 2 or 3 (gzip) is not read here: only version 4, which Argonaut Studio writes');
  let bytes: Uint8Array;
  try {
    bytes = gunzip(compressed);
  } catch (error) {
    throw badInput(file, `not a gzip stream, or a damaged one (${(error as Error).message})`);
  }
  if (bytes.length < LEGACY_HEADER_BYTES) throw badInput(file, `header truncated: ${bytes.length} bytes`);
  const header = readHeader(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), file);
  if (header.version === 4) throw badInput(file, 'SPZ version 4 inside gzip: version 4 files are not gzipped');
  checkHeader(header, file);
  if (header.flags & FLAG_EXTENSIONS) throw badInput(file, 'SPZ extensions in a version 2 or 3 file are not supported');
  const expected = LEGACY_HEADER_BYTES + attributeSizes(header).reduce((a, b) => a + b, 0);
  if (bytes.length !== expected) throw badInput(file, `${header.points} points of SH degree ${header.degree} need ${expected} bytes, the stream has ${bytes.length}`);
  return { header, body: bytes.subarray(LEGACY_HEADER_BYTES) };
}

/** Version 4: plain header, extension records, TOC, one zstd stream per attribute. */
function inflateV4(bytes: Uint8Array, file: string): { header: SpzHeader; body: Uint8Array } {
  if (bytes.length < SPZ_V4_HEADER_BYTES) throw badInput(file, `header truncated: ${bytes.length} bytes (version 4 has 32)`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const header = readHeader(view, file);
  checkHeader(header, file);
  if (header.version !== 4) throw badInput(file, `an ungzipped SPZ file must be version 4, this says ${header.version}`);
  const streams = view.getUint8(15);
  const tocOffset = view.getUint32(16, true);
  // Degree 0 has no SH stream (the library writes 5); an empty sixth is accepted too.
  const sizes = attributeSizes(header).slice(0, header.degree === 0 && streams === 5 ? 5 : 6);
  if (streams !== sizes.length) throw badInput(file, `${streams} attribute streams, expected ${sizes.length}`);
  if (tocOffset < SPZ_V4_HEADER_BYTES || tocOffset + streams * 16 > bytes.length) throw badInput(file, `table of contents at byte ${tocOffset} lies outside the file (${bytes.length} bytes): truncated?`);
  for (let at = SPZ_V4_HEADER_BYTES; at < tocOffset;) {
    if (at + 8 > tocOffset) throw badInput(file, `extension record at byte ${at} is cut off by the table of contents`);
    const type = view.getUint32(at, true);
    const length = view.getUint32(at + 4, true);
    if (type === EXTENSION_COORDINATE_SYSTEM) throw badInput(file, 'stores its splats in another coordinate system than RUB (SPZ_ADOBE_coordinate_system), which is not supported');
    at += 8 + length;
    if (at > tocOffset) throw badInput(file, `extension record of ${length} bytes runs past the table of contents`);
  }
  const body = new Uint8Array(sizes.reduce((a, b) => a + b, 0));
  let from = tocOffset + streams * 16;
  let to = 0;
  for (let s = 0; s < streams; s++) {
    const compressedSize = Number(view.getBigUint64(tocOffset + 16 * s, true));
    const size = Number(view.getBigUint64(tocOffset + 16 * s + 8, true));
    if (size !== sizes[s]) throw badInput(file, `attribute stream ${s} holds ${size} bytes, ${header.points} points need ${sizes[s]}`);
    if (from + compressedSize > bytes.length) throw badInput(file, `attribute stream ${s} runs past the end of the file: truncated?`);
    if (size > 0) {
      let inflated: Uint8Array;
      try {
        inflated = zstdDecompress(bytes.subarray(from, from + compressedSize), body.subarray(to, to + size));
      } catch (error) {
        throw badInput(file, `attribute stream ${s} is not a valid zstd stream (${(error as Error).message})`);
      }
      if (inflated.length !== size) throw badInput(file, `attribute stream ${s} inflates to ${inflated.length} bytes, its table says ${size}`);
    }
    from += compressedSize;
    to += size;
  }
  return { header, body };
}

/** Reads SPZ bytes (version 4, and 2 or 3 given a gunzip) back to RDF splats; `file` names them in every error. */
export function readSpz(data: Uint8Array, file: string, gunzip?: Gunzip): SplatSet & { antialiased: boolean } {
  const gzipped = data.length >= 2 && data[0] === 0x1f && data[1] === 0x8b;
  const { header, body: bytes } = gzipped ? inflateLegacy(data, file, gunzip) : inflateV4(data, file);
  const { points: n, degree, fractionalBits, version } = header;
  const K = shCoefficientCount(degree);
  const s = emptySplats(n, degree);
  let o = 0;
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
  const rotationBytes = version >= 3 ? 4 : 3;
  for (let i = 0; i < n; i++) {
    const [x, y, z, w] = rotationBytes === 3 ? firstThree(bytes, o) : smallestThree(bytes, o);
    o += rotationBytes;
    s.quats.set([w, x, -y, -z], 4 * i);
  }
  for (let i = 0; i < n; i++) {
    for (let k = 1; k < K; k++) for (let c = 0; c < 3; c++) s.sh[(i * K + k) * 3 + c] = FLIP_SH[k - 1] * ((bytes[o++] - 128) / 128);
  }
  return { ...s, antialiased: (header.flags & FLAG_ANTIALIASED) !== 0 };
}

/** Version 2: x, y, z as bytes, w >= 0 derived. Returns (x, y, z, w) in RUB. */
function firstThree(bytes: Uint8Array, o: number): [number, number, number, number] {
  const x = bytes[o] / 127.5 - 1;
  const y = bytes[o + 1] / 127.5 - 1;
  const z = bytes[o + 2] / 127.5 - 1;
  return [x, y, z, Math.sqrt(Math.max(0, 1 - x * x - y * y - z * z))];
}

/** Versions 3+: 2 bits for the largest component's index, then 3 x (9-bit magnitude, sign bit), last component first. */
function smallestThree(bytes: Uint8Array, o: number): [number, number, number, number] {
  let packed = (bytes[o] | (bytes[o + 1] << 8) | (bytes[o + 2] << 16) | (bytes[o + 3] << 24)) >>> 0;
  const largest = packed >>> 30;
  const q: [number, number, number, number] = [0, 0, 0, 0];
  let sum = 0;
  for (let k = 3; k >= 0; k--) {
    if (k === largest) continue;
    const magnitude = packed & 511;
    const negative = (packed >>> 9) & 1;
    packed >>>= 10;
    q[k] = ((Math.SQRT1_2 * magnitude) / 511) * (negative ? -1 : 1);
    sum += q[k] * q[k];
  }
  q[largest] = Math.sqrt(Math.max(0, 1 - sum));
  return q;
}
