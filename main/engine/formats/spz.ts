/**
 * Niantic's SPZ format (nianticlabs/spz README, "File Format"). Written as version 4 by the
 * reference library itself (@adobe/spz, its C++ compiled to WebAssembly: zstd, which Node 20's
 * zlib lacks, and the library's own quantizers, so what we write is what every SPZ reader
 * expects); read by our own code (shared/scene/spz-read.ts, which the web viewer runs too),
 * versions 2 to 4, so that bad files get our checks and wording instead of a WebAssembly abort,
 * and so that the tests have two independent implementations to compare.
 *
 * Versions 1-3: gzip of a 16-byte header and the attribute arrays. Version 4: a plain 32-byte
 * header (magic, version, points, SH degree, fractional bits, flags, stream count, TOC offset,
 * 12 reserved bytes), optional extension records (u32 type, u32 length, payload) up to the TOC,
 * then a TOC of (compressed, uncompressed) u64 sizes and one zstd stream per attribute. The
 * attribute arrays are the same in 3 and 4:
 *
 *   positions  3 x 24-bit signed fixed point per splat (value * 2^fractionalBits)
 *   alphas     u8 sigmoid(opacity) * 255
 *   colours    u8 x 3: SH DC * (0.15 * 255) + 127.5
 *   scales     u8 x 3: (log scale + 10) * 16
 *   rotations  v2: u8 x 3, x y z of the unit quaternion with w >= 0; v3+: smallest three, 4 bytes
 *   SH         u8 per coefficient, coefficient-major and channel-minor: (v - 128) / 128
 *
 * SPZ stores RUB axes (x right, y up, z back); our splats are RDF (OpenCV, like PLY): the writer
 * tells the library so (it converts), the reader flips y and z of positions and quaternions and
 * the SH coefficients odd in y or z. Flag 0x1 is "trained with antialiasing".
 */
import { gunzipSync } from 'node:zlib';
import { readSpz, SPZ_MAX_POINTS, SPZ_V4_HEADER_BYTES } from '../../../shared/scene/spz-read.js';
import { shCoefficientCount, type SplatSet } from '../../../shared/scene/splats.js';
import { writeFileAtomic } from './atomic-file.js';

const LEGACY_HEADER_BYTES = 16;
const FRACTIONAL_BITS = 12;
/** The largest position 24 bits hold at 12 fractional bits. */
const POSITION_LIMIT = ((1 << 23) - 1) / (1 << FRACTIONAL_BITS);

type SpzModule = Awaited<ReturnType<typeof import('@adobe/spz').default>>;
let spzModule: Promise<SpzModule> | undefined;
/** The WebAssembly module, started on first use (about 0.1 s) and kept. */
function loadSpzLibrary(): Promise<SpzModule> {
  spzModule ??= import('@adobe/spz').then((m) => m.default());
  return spzModule;
}

export interface SpzWriteResult {
  bytes: Uint8Array;
  /** Position coordinates outside the 24-bit range (|x| >= 2048) or not finite, clamped (NaN to 0). */
  clamped: number;
}

/** Splats as SPZ version 4, through the reference library. */
export async function serializeSpz(splats: SplatSet, options: { antialiased?: boolean } = {}): Promise<SpzWriteResult> {
  const n = splats.count;
  const K = shCoefficientCount(splats.shDegree);
  const positions = new Float32Array(n * 3);
  let clamped = 0;
  for (let i = 0; i < n * 3; i++) {
    const x = splats.means[i];
    const inside = x > -POSITION_LIMIT && x < POSITION_LIMIT;
    if (!inside) clamped++;
    positions[i] = inside ? x : Number.isNaN(x) ? 0 : Math.sign(x) * POSITION_LIMIT;
  }
  const rotations = new Float32Array(n * 4); // the library's order: x, y, z, w
  const colors = new Float32Array(n * 3);
  const sh = new Float32Array(n * (K - 1) * 3);
  for (let i = 0; i < n; i++) {
    const q = splats.quats;
    const norm = Math.hypot(q[4 * i], q[4 * i + 1], q[4 * i + 2], q[4 * i + 3]) || 1;
    for (let c = 0; c < 3; c++) rotations[4 * i + c] = q[4 * i + 1 + c] / norm;
    rotations[4 * i + 3] = q[4 * i] / norm;
    for (let c = 0; c < 3; c++) colors[3 * i + c] = splats.sh[i * K * 3 + c];
    sh.set(splats.sh.subarray((i * K + 1) * 3, (i + 1) * K * 3), i * (K - 1) * 3);
  }
  const library = await loadSpzLibrary();
  const bytes = library.saveSpzToBuffer(
    { numPoints: n, shDegree: splats.shDegree, antialiased: Boolean(options.antialiased), extensions: [], positions, scales: splats.logScales, rotations, alphas: splats.opacityLogits, colors, sh },
    // `from` takes the module's enum object (embind), not the number its d.ts suggests.
    { version: 4, from: library.CoordinateSystem.RDF, sh1Bits: 5, shRestBits: 4 },
  );
  if (bytes.length < SPZ_V4_HEADER_BYTES) throw new Error(`SPZ writer: the library returned ${bytes.length} bytes for ${n} splats`);
  return { bytes: new Uint8Array(bytes), clamped };
}

export async function writeSpzFile(path: string, splats: SplatSet, options: { antialiased?: boolean } = {}): Promise<SpzWriteResult> {
  const result = await serializeSpz(splats, options);
  await writeFileAtomic(path, result.bytes);
  return result;
}


/**
 * Reads an SPZ file (version 2, 3 or 4) back to RDF splats: shared/scene/spz-read.ts, which the
 * web viewer runs too, with Node's gunzip for versions 2 and 3 (its output bounded: a few bytes
 * of gzip must not inflate to gigabytes).
 */
export function parseSpz(data: Uint8Array, file: string): SplatSet & { antialiased: boolean } {
  return readSpz(data, file, (compressed) => gunzipSync(compressed, { maxOutputLength: LEGACY_HEADER_BYTES + SPZ_MAX_POINTS * 200 }));
}
