/**
 * Splats in glTF 2.0 binary (GLB) with Khronos' KHR_gaussian_splatting: one mesh primitive of
 * mode 0 (points) whose attributes are POSITION (VEC3 float, with min/max as glTF requires),
 * KHR_gaussian_splatting:ROTATION (VEC4 float, x y z w), :SCALE (VEC3 float, linear standard
 * deviations), :OPACITY (SCALAR float, sigmoid applied), :SH_DEGREE_l_COEF_n (VEC3 float per
 * coefficient, DC = l 0) and COLOR_0 (VEC4 u8 normalized, 0.5 + SH_C0 * DC) for viewers that
 * draw points. Everything but COLOR_0 is float32, so the file keeps what our splats hold (scales
 * and opacities up to the float rounding of exp and sigmoid).
 *
 * glTF's axes are +Y up, +Z forward, -X right; ours are RDF (OpenCV). The two differ by a 180°
 * turn about Z, written into the data (x and y negated, the quaternion multiplied by the turn,
 * SH coefficients odd in x and y negated): only sign flips and a permutation, so nothing is lost.
 * The antialiased flag has no place in the extension; it goes into the primitive's `extras`.
 * Files compressed with the sibling extensions (KHR_gaussian_splatting_compression_*) or Draco
 * and meshopt are refused by name.
 */
import { badInput } from '../../../shared/rpc/errors.js';
import { emptySplats, SH_C0, shCoefficientCount, type SplatSet } from '../../../shared/scene/splats.js';
import { writeFileAtomic } from './atomic-file.js';

const GLB_MAGIC = 0x46546c67; // "glTF"
const CHUNK_JSON = 0x4e4f534a;
const CHUNK_BIN = 0x004e4942;
const FLOAT = 5126;
const UNSIGNED_BYTE = 5121;
const EXTENSION = 'KHR_gaussian_splatting';
const MAX_SPLATS = 50_000_000;
/** Sign of SH coefficient k (k >= 1, 3DGS order) under a 180° turn about Z (x -> -x, y -> -y). */
const TURN_SH = [0, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1];
const COMPONENTS = { SCALAR: 1, VEC3: 3, VEC4: 4 } as const;

/** Coefficients per SH degree l: 2l + 1; attribute names in file order after the DC term. */
function shAttributeNames(degree: number): string[] {
  const names: string[] = [];
  for (let l = 0; l <= degree; l++) for (let n = 0; n < 2 * l + 1; n++) names.push(`${EXTENSION}:SH_DEGREE_${l}_COEF_${n}`);
  return names;
}

interface Attribute { name: string; type: keyof typeof COMPONENTS; componentType: number; normalized?: boolean; data: Float32Array | Uint8Array; min?: number[]; max?: number[] }

function attributesOf(s: SplatSet): Attribute[] {
  const n = s.count;
  const K = shCoefficientCount(s.shDegree);
  const position = new Float32Array(n * 3);
  const rotation = new Float32Array(n * 4);
  const scale = new Float32Array(n * 3);
  const opacity = new Float32Array(n);
  const colour = new Uint8Array(n * 4);
  const sh = Array.from({ length: K }, () => new Float32Array(n * 3));
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < n; i++) {
    position.set([-s.means[3 * i], -s.means[3 * i + 1], s.means[3 * i + 2]], 3 * i);
    for (let a = 0; a < 3; a++) {
      min[a] = Math.min(min[a], position[3 * i + a]);
      max[a] = Math.max(max[a], position[3 * i + a]);
    }
    const [w, x, y, z] = s.quats.subarray(4 * i, 4 * i + 4);
    const norm = Math.hypot(w, x, y, z) || 1;
    // (turn about Z) * q = (w, x, y, z) -> (-z, -y, x, w); stored x y z w.
    rotation.set([-y / norm, x / norm, w / norm, -z / norm], 4 * i);
    for (let a = 0; a < 3; a++) scale[3 * i + a] = Math.exp(s.logScales[3 * i + a]);
    opacity[i] = 1 / (1 + Math.exp(-s.opacityLogits[i]));
    for (let k = 0; k < K; k++) for (let c = 0; c < 3; c++) sh[k][3 * i + c] = (k === 0 ? 1 : TURN_SH[k]) * s.sh[(i * K + k) * 3 + c];
    for (let c = 0; c < 3; c++) colour[4 * i + c] = Math.min(255, Math.max(0, Math.round((0.5 + SH_C0 * s.sh[i * K * 3 + c]) * 255)));
    colour[4 * i + 3] = Math.round(opacity[i] * 255);
  }
  return [
    { name: 'POSITION', type: 'VEC3', componentType: FLOAT, data: position, ...(n ? { min, max } : { min: [0, 0, 0], max: [0, 0, 0] }) },
    { name: 'COLOR_0', type: 'VEC4', componentType: UNSIGNED_BYTE, normalized: true, data: colour },
    { name: `${EXTENSION}:ROTATION`, type: 'VEC4', componentType: FLOAT, data: rotation },
    { name: `${EXTENSION}:SCALE`, type: 'VEC3', componentType: FLOAT, data: scale },
    { name: `${EXTENSION}:OPACITY`, type: 'SCALAR', componentType: FLOAT, data: opacity },
    ...shAttributeNames(s.shDegree).map((name, k): Attribute => ({ name, type: 'VEC3', componentType: FLOAT, data: sh[k] })),
  ];
}

const align4 = (x: number) => (x + 3) & ~3;

export function serializeGlb(splats: SplatSet, options: { antialiased?: boolean } = {}): Uint8Array {
  const attributes = attributesOf(splats);
  let binLength = 0;
  const offsets = attributes.map((a) => {
    const at = binLength;
    binLength += align4(a.data.byteLength);
    return at;
  });
  const json = {
    asset: { version: '2.0', generator: 'Argonaut Studio' },
    extensionsUsed: [EXTENSION],
    scene: 0,
    scenes: [{ nodes: [0] }],
    nodes: [{ mesh: 0 }],
    meshes: [{
      primitives: [{
        mode: 0,
        attributes: Object.fromEntries(attributes.map((a, i) => [a.name, i])),
        extensions: { [EXTENSION]: { kernel: 'ellipse', colorSpace: 'srgb_rec709_display', projection: 'perspective', sortingMethod: 'cameraDistance' } },
        extras: { antialiased: Boolean(options.antialiased) },
      }],
    }],
    buffers: [{ byteLength: binLength }],
    bufferViews: attributes.map((a, i) => ({ buffer: 0, byteOffset: offsets[i], byteLength: a.data.byteLength })),
    accessors: attributes.map((a, i) => ({ bufferView: i, componentType: a.componentType, count: splats.count, type: a.type, ...(a.normalized ? { normalized: true } : {}), ...(a.min ? { min: a.min, max: a.max } : {}) })),
  };
  const text = new TextEncoder().encode(JSON.stringify(json));
  const jsonLength = align4(text.length);
  const total = 12 + 8 + jsonLength + 8 + binLength;
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, GLB_MAGIC, true);
  view.setUint32(4, 2, true);
  view.setUint32(8, total, true);
  view.setUint32(12, jsonLength, true);
  view.setUint32(16, CHUNK_JSON, true);
  out.set(text, 20);
  out.fill(0x20, 20 + text.length, 20 + jsonLength); // JSON pads with spaces
  view.setUint32(20 + jsonLength, binLength, true);
  view.setUint32(24 + jsonLength, CHUNK_BIN, true);
  const bin = 28 + jsonLength;
  attributes.forEach((a, i) => out.set(new Uint8Array(a.data.buffer, a.data.byteOffset, a.data.byteLength), bin + offsets[i]));
  return out;
}

export async function writeGlbFile(path: string, splats: SplatSet, options: { antialiased?: boolean } = {}): Promise<number> {
  const bytes = serializeGlb(splats, options);
  await writeFileAtomic(path, bytes);
  return bytes.byteLength;
}

interface GltfJson {
  extensionsRequired?: string[];
  meshes?: { primitives?: { attributes?: Record<string, number>; extensions?: Record<string, unknown>; extras?: { antialiased?: unknown } }[] }[];
  accessors?: { bufferView?: number; byteOffset?: number; componentType?: number; count?: number; type?: string; normalized?: boolean }[];
  bufferViews?: { buffer?: number; byteOffset?: number; byteLength?: number; byteStride?: number }[];
}

/** The GLB's JSON and BIN chunks, checked against the file's length. */
function chunksOf(bytes: Uint8Array, file: string): { json: GltfJson; bin: Uint8Array } {
  if (bytes.length < 20) throw badInput(file, `${bytes.length} bytes is too short for a GLB header`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== GLB_MAGIC) throw badInput(file, 'not a GLB file (wrong magic; .gltf text files are not read, only binary .glb)');
  if (view.getUint32(4, true) !== 2) throw badInput(file, `GLB version ${view.getUint32(4, true)} is not supported (2 is)`);
  if (view.getUint32(8, true) > bytes.length) throw badInput(file, `the header says ${view.getUint32(8, true)} bytes, the file has ${bytes.length}: truncated?`);
  const jsonLength = view.getUint32(12, true);
  if (view.getUint32(16, true) !== CHUNK_JSON || 20 + jsonLength > bytes.length) throw badInput(file, 'the first chunk is not a complete JSON chunk');
  let json: GltfJson;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + jsonLength))) as GltfJson;
  } catch (error) {
    throw badInput(file, `its JSON chunk does not parse (${(error as Error).message})`);
  }
  const binAt = 20 + align4(jsonLength);
  if (binAt + 8 > bytes.length || view.getUint32(binAt + 4, true) !== CHUNK_BIN) throw badInput(file, 'no binary chunk after the JSON (external buffers are not read)');
  const binLength = view.getUint32(binAt, true);
  if (binAt + 8 + binLength > bytes.length) throw badInput(file, `the binary chunk says ${binLength} bytes, the file ends before: truncated?`);
  return { json: json && typeof json === 'object' ? json : {}, bin: bytes.subarray(binAt + 8, binAt + 8 + binLength) };
}

/** Reads the KHR_gaussian_splatting primitive of a GLB back to RDF splats. */
export function parseGlb(bytes: Uint8Array, file: string): SplatSet & { antialiased: boolean } {
  const { json, bin } = chunksOf(bytes, file);
  const unsupported = (json.extensionsRequired ?? []).filter((e) => e !== EXTENSION);
  if (unsupported.length) throw badInput(file, `needs ${unsupported.join(', ')}, which is not supported (uncompressed ${EXTENSION} only)`);
  const primitives = (json.meshes ?? []).flatMap((m) => m.primitives ?? []).filter((p) => p.extensions && EXTENSION in p.extensions);
  if (primitives.length !== 1) throw badInput(file, `${primitives.length} primitives with ${EXTENSION}; one is read`);
  const [primitive] = primitives;
  const attributes = primitive.attributes ?? {};
  const floats = (name: string, type: keyof typeof COMPONENTS, count?: number): Float32Array => {
    const accessor = json.accessors?.[attributes[name]];
    if (!accessor) throw badInput(file, `no ${name} attribute`);
    if (accessor.componentType !== FLOAT || accessor.type !== type || accessor.normalized) throw badInput(file, `${name} is not a ${type} of floats (quantized attributes are not supported)`);
    const n = accessor.count ?? -1;
    if (!Number.isInteger(n) || n < 0 || n > MAX_SPLATS) throw badInput(file, `${name}: ${n} splats is not a count we read (0 to ${MAX_SPLATS})`);
    if (count !== undefined && n !== count) throw badInput(file, `${name} has ${n} values, POSITION ${count}`);
    const bufferView = json.bufferViews?.[accessor.bufferView ?? -1];
    const elementBytes = 4 * COMPONENTS[type];
    if (!bufferView || (bufferView.buffer ?? 0) !== 0 || (bufferView.byteStride !== undefined && bufferView.byteStride !== elementBytes)) throw badInput(file, `${name}: its buffer view is missing, external or interleaved`);
    const start = (bufferView.byteOffset ?? 0) + (accessor.byteOffset ?? 0);
    const length = n * elementBytes;
    if (!Number.isInteger(start) || start < 0 || start + length > bin.length || length > (bufferView.byteLength ?? 0)) throw badInput(file, `${name}: ${n} values do not fit its buffer view or the binary chunk`);
    const values = new Float32Array(n * COMPONENTS[type]);
    new Uint8Array(values.buffer).set(bin.subarray(start, start + length)); // copied: the chunk need not be 4-byte aligned in memory
    for (let i = 0; i < values.length; i++) if (!Number.isFinite(values[i])) throw badInput(file, `${name}: value ${i} is ${values[i]}`);
    return values;
  };
  const position = floats('POSITION', 'VEC3');
  const n = position.length / 3;
  const rotation = floats(`${EXTENSION}:ROTATION`, 'VEC4', n);
  const scale = floats(`${EXTENSION}:SCALE`, 'VEC3', n);
  const opacity = floats(`${EXTENSION}:OPACITY`, 'SCALAR', n);
  let degree = 0;
  while (degree < 3 && `${EXTENSION}:SH_DEGREE_${degree + 1}_COEF_0` in attributes) degree++;
  const sh = shAttributeNames(degree).map((name) => floats(name, 'VEC3', n));
  const s = emptySplats(n, degree);
  const K = shCoefficientCount(degree);
  for (let i = 0; i < n; i++) {
    s.means.set([-position[3 * i], -position[3 * i + 1], position[3 * i + 2]], 3 * i);
    const [x, y, z, w] = rotation.subarray(4 * i, 4 * i + 4);
    // The inverse turn: stored (x, y, z, w) = (-y0, x0, w0, -z0) of ours (w0, x0, y0, z0).
    s.quats.set([z, y, -x, -w], 4 * i);
    for (let a = 0; a < 3; a++) {
      if (!(scale[3 * i + a] > 0)) throw badInput(file, `splat ${i}: scale ${scale[3 * i + a]} is not positive`);
      s.logScales[3 * i + a] = Math.log(scale[3 * i + a]);
    }
    const a = Math.min(1 - 1e-7, Math.max(1e-7, opacity[i]));
    s.opacityLogits[i] = Math.log(a / (1 - a));
    for (let k = 0; k < K; k++) for (let c = 0; c < 3; c++) s.sh[(i * K + k) * 3 + c] = (k === 0 ? 1 : TURN_SH[k]) * sh[k][3 * i + c];
  }
  return { ...s, antialiased: primitive.extras?.antialiased === true };
}
