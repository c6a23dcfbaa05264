/**
 * PlayCanvas' SOG ("spatially ordered gaussians", version 2, as SuperSplat and splat-transform
 * write it): a zip (.sog) of `meta.json` and lossless WebP textures, one texel per splat, row
 * major, in a W x H image (W = ceil(sqrt(n) / 4) * 4, H = ceil(n / W / 4) * 4):
 *
 *   means_l / means_u  low and high bytes of 16-bit positions, each axis lerped between
 *                      meta.means.mins/maxs of sign(x) * ln(|x| + 1)
 *   quats              smallest three components * sqrt(2) mapped to 0..255, alpha 252 + the
 *                      index (w x y z) of the dropped largest one, which is made positive
 *   scales             indices into meta.scales.codebook (256 log scales, shared by the 3 axes)
 *   sh0                indices into meta.sh0.codebook (256 SH DC values); alpha sigmoid(opacity) * 255
 *   shN_labels         16-bit palette entry (R low, G high), when SH degree > 0; the palette is
 *   shN_centroids      64 entries per row, an entry's coefficients side by side, each texel the
 *                      R G B indices into meta.shN.codebook
 *
 * The axes are those of the 3DGS PLY (ours). `meta.model` "antialiased" carries the flag. We
 * write splats in Morton order (as PlayCanvas does: neighbouring splats compress better), with
 * our own codebooks (sog-quantize.ts), and encode the WebP images with sharp (libvips).
 */
import { zipSync } from 'fflate';
import { loadSharp } from './images.js';
import { readZipEntries } from './zip.js';
import { badInput } from '../../../shared/rpc/errors.js';
import { emptySplats, shCoefficientCount, type SplatSet } from '../../../shared/scene/splats.js';
import { writeFileAtomic } from './atomic-file.js';
import { CODEBOOK_SIZE, MAX_PALETTE, mortonOrder, scalarCodebook, shPalette } from './sog-quantize.js';

const MAX_SPLATS = 50_000_000;
const MAX_SIDE = 16_383; // WebP's limit
const PALETTE_ROW = 64;
const logTransform = (x: number) => Math.sign(x) * Math.log(Math.abs(x) + 1);
const invLogTransform = (v: number) => Math.sign(v) * (Math.exp(Math.abs(v)) - 1);
const byte = (x: number) => Math.min(255, Math.max(0, Math.round(x)));
/** For each dropped component (w x y z), the three kept, in order. */
const KEPT = [[1, 2, 3], [0, 2, 3], [0, 1, 3], [0, 1, 2]];

interface SogMeta {
  version: 2;
  asset?: { generator?: string };
  count: number;
  model?: string;
  means: { mins: number[]; maxs: number[]; files: string[] };
  scales: { codebook: number[]; files: string[] };
  quats: { files: string[] };
  sh0: { codebook: number[]; files: string[] };
  shN?: { count: number; bands: number; codebook: number[]; files: string[] };
}

export function textureSize(count: number): { width: number; height: number } {
  const width = Math.max(4, Math.ceil(Math.sqrt(count) / 4) * 4);
  return { width, height: Math.max(4, Math.ceil(count / width / 4) * 4) };
}

async function webp(rgba: Uint8Array, width: number, height: number): Promise<Uint8Array> {
  // exact: keep the colour of texels whose alpha (opacity) is 0; they are indices, not colours.
  const sharp = await loadSharp();
  return new Uint8Array(await sharp(rgba, { raw: { width, height, channels: 4 } }).webp({ lossless: true, exact: true, effort: 4 }).toBuffer());
}

/** Splats as a .sog bundle. */
export async function serializeSog(s: SplatSet, options: { antialiased?: boolean } = {}): Promise<Uint8Array> {
  const n = s.count;
  const { width, height } = textureSize(n);
  if (width > MAX_SIDE || height > MAX_SIDE) throw new Error(`SOG: ${n} splats do not fit a ${MAX_SIDE}-texel WebP image`);
  const K = shCoefficientCount(s.shDegree);
  const order = mortonOrder(s.means, n);
  const texture = () => new Uint8Array(width * height * 4).fill(255);
  const files: Record<string, Uint8Array> = {};

  const mins = [Infinity, Infinity, Infinity];
  const maxs = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < n * 3; i++) {
    const v = logTransform(s.means[i]);
    if (!Number.isFinite(v)) throw badInput('splats', `SOG: position ${Math.floor(i / 3)} is ${s.means[i]}`);
    mins[i % 3] = Math.min(mins[i % 3], v);
    maxs[i % 3] = Math.max(maxs[i % 3], v);
  }
  if (n === 0) {
    mins.fill(0);
    maxs.fill(0);
  }
  const low = texture();
  const high = texture();
  const quats = texture();
  for (let t = 0; t < n; t++) {
    const i = order[t];
    for (let a = 0; a < 3; a++) {
      const range = maxs[a] - mins[a];
      const v = range > 0 ? Math.round((65535 * (logTransform(s.means[3 * i + a]) - mins[a])) / range) : 0;
      low[4 * t + a] = v & 0xff;
      high[4 * t + a] = v >> 8;
    }
    const q = Array.from(s.quats.subarray(4 * i, 4 * i + 4));
    const norm = Math.hypot(...q) || 1;
    let largest = 0;
    for (let c = 1; c < 4; c++) if (Math.abs(q[c]) > Math.abs(q[largest])) largest = c;
    const sign = q[largest] < 0 ? -1 : 1;
    KEPT[largest].forEach((c, j) => { quats[4 * t + j] = byte(255 * ((sign * Math.SQRT2 * q[c]) / norm * 0.5 + 0.5)); });
    quats[4 * t + 3] = 252 + largest;
  }
  const column = (array: Float32Array, stride: number, offset: number) => Float32Array.from(order, (i) => array[i * stride + offset]);
  const scales = scalarCodebook([0, 1, 2].map((a) => column(s.logScales, 3, a)));
  const colours = scalarCodebook([0, 1, 2].map((c) => column(s.sh, K * 3, c)));
  const scaleTexture = texture();
  const sh0 = texture();
  for (let t = 0; t < n; t++) {
    for (let a = 0; a < 3; a++) scaleTexture[4 * t + a] = scales.labels[a][t];
    for (let c = 0; c < 3; c++) sh0[4 * t + c] = colours.labels[c][t];
    sh0[4 * t + 3] = byte(255 / (1 + Math.exp(-s.opacityLogits[order[t]])));
  }
  const meta: SogMeta = {
    version: 2, asset: { generator: 'Argonaut Studio' }, count: n, ...(options.antialiased ? { model: 'antialiased' } : {}),
    means: { mins, maxs, files: ['means_l.webp', 'means_u.webp'] },
    scales: { codebook: Array.from(scales.codebook), files: ['scales.webp'] },
    quats: { files: ['quats.webp'] },
    sh0: { codebook: Array.from(colours.codebook), files: ['sh0.webp'] },
  };
  const images: [string, Uint8Array, number, number][] = [['means_l.webp', low, width, height], ['means_u.webp', high, width, height], ['quats.webp', quats, width, height], ['scales.webp', scaleTexture, width, height], ['sh0.webp', sh0, width, height]];
  if (s.shDegree > 0) {
    const coefficients = K - 1;
    const dims = coefficients * 3;
    // Rest vectors in Morton order, channel-major as PLY's f_rest (all R, then G, then B).
    const rest = new Float32Array(n * dims);
    for (let t = 0; t < n; t++) for (let k = 1; k < K; k++) for (let c = 0; c < 3; c++) rest[t * dims + c * coefficients + k - 1] = s.sh[(order[t] * K + k) * 3 + c];
    const palette = shPalette(rest, n, dims, Uint32Array.from({ length: n }, (_, t) => t));
    const codebook = scalarCodebook([palette.centroids]);
    const rows = Math.ceil(palette.entries / PALETTE_ROW);
    const centroids = new Uint8Array(PALETTE_ROW * coefficients * rows * 4).fill(255);
    for (let e = 0; e < palette.entries; e++) for (let j = 0; j < coefficients; j++) for (let c = 0; c < 3; c++) centroids[(e * coefficients + j) * 4 + c] = codebook.labels[0][e * dims + c * coefficients + j];
    const labels = texture();
    for (let t = 0; t < n; t++) {
      labels[4 * t] = palette.labels[t] & 0xff;
      labels[4 * t + 1] = palette.labels[t] >> 8;
      labels[4 * t + 2] = 0;
    }
    images.push(['shN_centroids.webp', centroids, PALETTE_ROW * coefficients, rows], ['shN_labels.webp', labels, width, height]);
    meta.shN = { count: palette.entries, bands: s.shDegree, codebook: Array.from(codebook.codebook), files: ['shN_centroids.webp', 'shN_labels.webp'] };
  }
  const encoded = await Promise.all(images.map(([, rgba, w, h]) => webp(rgba, w, h))); // libvips encodes them on its own threads
  images.forEach(([name], k) => { files[name] = encoded[k]; });
  // WebP is compressed already: stored, not deflated.
  return zipSync({ 'meta.json': [new TextEncoder().encode(JSON.stringify(meta)), { level: 6 }], ...Object.fromEntries(Object.entries(files).map(([k, v]) => [k, [v, { level: 0 }]])) });
}

export async function writeSogFile(path: string, splats: SplatSet, options: { antialiased?: boolean } = {}): Promise<number> {
  const bytes = await serializeSog(splats, options);
  await writeFileAtomic(path, bytes);
  return bytes.byteLength;
}

const isNumbers = (v: unknown, length?: number): v is number[] => Array.isArray(v) && (length === undefined || v.length === length) && v.every((x) => typeof x === 'number' && Number.isFinite(x));
const isFiles = (v: unknown, length: number): v is string[] => Array.isArray(v) && v.length === length && v.every((x) => typeof x === 'string');

/** meta.json checked field by field, so a bad one is named rather than crashing the decode. */
function checkMeta(meta: unknown, file: string): SogMeta {
  const m = meta as Partial<SogMeta> | null;
  if (!m || typeof m !== 'object') throw badInput(file, 'meta.json is not a JSON object');
  if (m.version !== 2) throw badInput(file, `SOG version ${String(m.version)} is not supported (2 is)`);
  if (!Number.isInteger(m.count) || (m.count as number) < 0 || (m.count as number) > MAX_SPLATS) throw badInput(file, `meta.json: count ${String(m.count)} is not a splat count we read (0 to ${MAX_SPLATS})`);
  if (!m.means || !isNumbers(m.means.mins, 3) || !isNumbers(m.means.maxs, 3) || !isFiles(m.means.files, 2)) throw badInput(file, 'meta.json: means needs mins and maxs (3 finite numbers each) and 2 files');
  for (const key of ['scales', 'sh0'] as const) {
    const entry = m[key];
    if (!entry || !isNumbers(entry.codebook) || entry.codebook.length === 0 || entry.codebook.length > CODEBOOK_SIZE || !isFiles(entry.files, 1)) throw badInput(file, `meta.json: ${key} needs a codebook of 1 to 256 finite numbers and 1 file`);
  }
  if (!m.quats || !isFiles(m.quats.files, 1)) throw badInput(file, 'meta.json: quats needs 1 file');
  if (m.shN !== undefined) {
    const shN = m.shN;
    if (![1, 2, 3].includes(shN.bands) || !Number.isInteger(shN.count) || shN.count < 1 || shN.count > MAX_PALETTE || !isNumbers(shN.codebook) || shN.codebook.length === 0 || shN.codebook.length > CODEBOOK_SIZE || !isFiles(shN.files, 2)) {
      throw badInput(file, 'meta.json: shN needs bands 1 to 3, a palette count of 1 to 65536, a codebook of 1 to 256 finite numbers and 2 files');
    }
  }
  return m as SogMeta;
}

/** Reads a .sog bundle back to splats. */
export async function parseSog(bytes: Uint8Array, file: string): Promise<SplatSet & { antialiased: boolean }> {
  if (bytes.length < 4 || bytes[0] !== 0x50 || bytes[1] !== 0x4b || bytes[2] !== 3 || bytes[3] !== 4) throw badInput(file, 'not a SOG bundle: not a zip (wrong magic)');
  // One zip reader for the product (zip.ts: central directory, CRC-32, bounds); a bomb is refused
  // from the sizes the archive declares, before anything is inflated.
  let entries: Record<string, Uint8Array>;
  try {
    entries = Object.fromEntries(readZipEntries(bytes, file, { maxEntryBytes: 1 << 30 }));
  } catch (error) {
    const detail = (error as Error).message.startsWith(`${file}: `) ? (error as Error).message.slice(file.length + 2) : (error as Error).message;
    throw badInput(file, `not a SOG bundle: not a zip, or a damaged one (${detail})`);
  }
  if (!entries['meta.json']) throw badInput(file, 'not a SOG bundle: no meta.json inside');
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(entries['meta.json']));
  } catch (error) {
    throw badInput(file, `meta.json does not parse (${(error as Error).message})`);
  }
  const meta = checkMeta(parsed, file);
  const n = meta.count;
  const image = async (name: string, minimumTexels: number, expectedWidth?: number): Promise<Uint8Array> => {
    const data = entries[name];
    if (!data) throw badInput(file, `${name}, named by meta.json, is not in the bundle`);
    const sharp = await loadSharp(); // outside the try: a missing library is not a bad file
    let decoded: { data: Buffer; info: { width: number; height: number } };
    try {
      decoded = await sharp(data, { limitInputPixels: MAX_SIDE * MAX_SIDE }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    } catch (error) {
      throw badInput(file, `${name} is not an image sharp decodes (${(error as Error).message})`);
    }
    const { width, height } = decoded.info;
    if (width * height < minimumTexels) throw badInput(file, `${name} has ${width * height} texels, ${minimumTexels} needed`);
    if (expectedWidth !== undefined && width !== expectedWidth) throw badInput(file, `${name} is ${width} texels wide, expected ${expectedWidth}`);
    return new Uint8Array(decoded.data.buffer, decoded.data.byteOffset, decoded.data.byteLength);
  };
  const degree = meta.shN?.bands ?? 0;
  const K = shCoefficientCount(degree);
  const s = emptySplats(n, degree);
  const [low, high] = [await image(meta.means.files[0], n), await image(meta.means.files[1], n)];
  const quats = await image(meta.quats.files[0], n);
  const scales = await image(meta.scales.files[0], n);
  const sh0 = await image(meta.sh0.files[0], n);
  const codebookValue = (codebook: number[], index: number, what: string) => {
    if (index >= codebook.length) throw badInput(file, `${what}: index ${index} lies outside its codebook of ${codebook.length}`);
    return codebook[index];
  };
  for (let i = 0; i < n; i++) {
    for (let a = 0; a < 3; a++) {
      const v = low[4 * i + a] | (high[4 * i + a] << 8);
      s.means[3 * i + a] = invLogTransform(meta.means.mins[a] + (meta.means.maxs[a] - meta.means.mins[a]) * (v / 65535));
    }
    const tag = quats[4 * i + 3];
    if (tag < 252) throw badInput(file, `splat ${i}: rotation tag ${tag} is not 252 to 255`);
    const q = [0, 0, 0, 0];
    let sum = 0;
    KEPT[tag - 252].forEach((c, j) => {
      q[c] = (quats[4 * i + j] / 255 * 2 - 1) / Math.SQRT2;
      sum += q[c] * q[c];
    });
    q[tag - 252] = Math.sqrt(Math.max(0, 1 - sum));
    s.quats.set(q, 4 * i);
    for (let a = 0; a < 3; a++) s.logScales[3 * i + a] = codebookValue(meta.scales.codebook, scales[4 * i + a], 'scales');
    for (let c = 0; c < 3; c++) s.sh[i * K * 3 + c] = codebookValue(meta.sh0.codebook, sh0[4 * i + c], 'sh0');
    const alpha = Math.min(1 - 1e-6, Math.max(1e-6, sh0[4 * i + 3] / 255));
    s.opacityLogits[i] = Math.log(alpha / (1 - alpha));
  }
  if (meta.shN) {
    const coefficients = K - 1;
    const centroids = await image(meta.shN.files[0], meta.shN.count * coefficients, PALETTE_ROW * coefficients);
    const labels = await image(meta.shN.files[1], n);
    for (let i = 0; i < n; i++) {
      const e = labels[4 * i] | (labels[4 * i + 1] << 8);
      if (e >= meta.shN.count) throw badInput(file, `splat ${i}: SH palette entry ${e} is not below the palette's ${meta.shN.count}`);
      for (let j = 0; j < coefficients; j++) for (let c = 0; c < 3; c++) s.sh[(i * K + j + 1) * 3 + c] = codebookValue(meta.shN.codebook, centroids[(e * coefficients + j) * 4 + c], 'shN');
    }
  }
  return { ...s, antialiased: meta.model === 'antialiased' };
}
