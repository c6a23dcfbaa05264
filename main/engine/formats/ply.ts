/**
 * 3DGS PLY files: the layout of the original implementation (and of gsplat, Brush, SuperSplat's
 * uncompressed export): one `vertex` element with float properties
 *   x y z nx ny nz f_dc_0..2 f_rest_0..(3(K-1)-1) opacity scale_0..2 rot_0..3
 * where f_rest is channel-major (all rest coefficients of R, then of G, then of B), opacity is a
 * logit, scales are logs and rot is (w, x, y, z), not necessarily normalized.
 *
 * Reading accepts ascii, binary_little_endian and binary_big_endian, float or double properties
 * in any order, extra properties and elements (ignored); the SH degree follows from the number of
 * f_rest properties (0, 9, 24, 45). Writing produces the standard binary little-endian layout
 * (normals written as zeros), atomically. Every malformed file is a `bad_input` naming the file
 * and the problem.
 */
import { writeFileAtomic } from './atomic-file.js';
import { readInputFile } from './input-file.js';
import { ArgonautError, badInput } from '../../../shared/rpc/errors.js';
import { emptySplats, shCoefficientCount, type SplatSet } from '../../../shared/scene/splats.js';
import { latin1, parsePlyHeader, PLY_TYPE_SIZE, type PlyElement, type PlyHeader, type PlyScalarType } from './ply-header.js';

const BASE_PROPERTIES = ['x', 'y', 'z', 'f_dc_0', 'f_dc_1', 'f_dc_2', 'opacity', 'scale_0', 'scale_1', 'scale_2', 'rot_0', 'rot_1', 'rot_2', 'rot_3'] as const;
/** Number of f_rest properties for SH degree 0..3: 3 * ((d + 1)^2 - 1). */
const REST_COUNTS = [0, 9, 24, 45] as const;

/** Where each property of the vertex element goes in the SplatSet. */
interface VertexLayout {
  degree: number;
  /** Per vertex property: index into the destination columns, or -1 to ignore. */
  column: Int32Array;
  columns: { name: string; array: Float32Array; stride: number; offset: number }[];
}

export function parsePly(bytes: Uint8Array, file: string): SplatSet {
  const header = parsePlyHeader(bytes, file);
  const vertexIndex = header.elements.findIndex((e) => e.name === 'vertex');
  if (vertexIndex < 0) throw badInput(file, 'no "element vertex" in the PLY header');
  const vertex = header.elements[vertexIndex];
  const layout = vertexLayout(vertex, file);
  checkBodyCanHold(bytes, header, vertexIndex, file);
  const splats = emptySplats(vertex.count, layout.degree);
  bindColumns(layout, vertex, splats);
  if (header.format === 'ascii') readAscii(bytes, header, vertexIndex, layout, file);
  else readBinary(bytes, header, vertexIndex, layout, file);
  return splats;
}

export async function readPly(path: string): Promise<SplatSet> {
  return parsePly(await readInputFile(path), path);
}

/** Refuses a vertex count the body cannot possibly hold, before allocating for it. */
function checkBodyCanHold(bytes: Uint8Array, header: PlyHeader, vertexIndex: number, file: string): void {
  const vertex = header.elements[vertexIndex];
  const available = bytes.length - header.bodyOffset;
  if (header.format === 'ascii') {
    const minimum = vertex.count * vertex.properties.length * 2 - 1;
    if (vertex.count > 0 && minimum > available) {
      throw badInput(file, `truncated body: the header declares ${vertex.count} vertices of ${vertex.properties.length} values, which needs at least ${minimum} bytes, got ${available}`);
    }
    return;
  }
  let minimum = 0;
  for (const element of header.elements.slice(0, vertexIndex + 1)) {
    const record = element.properties.reduce((sum, p) => sum + PLY_TYPE_SIZE[p.listCountType ?? p.type], 0);
    minimum += record * element.count;
  }
  if (minimum > available) throw truncated(file, minimum, available);
}

function vertexLayout(vertex: PlyElement, file: string): VertexLayout {
  const names = new Set(vertex.properties.map((p) => p.name));
  for (const name of BASE_PROPERTIES) {
    if (!names.has(name)) throw badInput(file, `missing property ${name} in element vertex (a 3DGS PLY needs ${BASE_PROPERTIES.join(' ')} and f_rest_*)`);
  }
  const restIndices = vertex.properties.map((p) => /^f_rest_(\d+)$/.exec(p.name)).filter((m) => m !== null).map((m) => Number(m[1]));
  const restCount = restIndices.length;
  const degree = (REST_COUNTS as readonly number[]).indexOf(restCount);
  if (degree < 0) {
    throw badInput(file, `unsupported number of f_rest properties: ${restCount} (expected 0, 9, 24 or 45 for SH degree 0 to 3)`);
  }
  for (let k = 0; k < restCount; k++) {
    if (!names.has(`f_rest_${k}`)) throw badInput(file, `missing property f_rest_${k} in element vertex (f_rest must be numbered 0..${restCount - 1})`);
  }
  for (const p of vertex.properties) {
    const wanted = (BASE_PROPERTIES as readonly string[]).includes(p.name) || p.name.startsWith('f_rest_');
    if (wanted && (p.listCountType || (p.type !== 'float32' && p.type !== 'float64'))) {
      throw badInput(file, `property ${p.name} of element vertex is ${p.listCountType ? 'a list' : p.type}; expected float or double`);
    }
  }
  return { degree, column: new Int32Array(vertex.properties.length).fill(-1), columns: [] };
}

function bindColumns(layout: VertexLayout, vertex: PlyElement, s: SplatSet): void {
  const K = shCoefficientCount(layout.degree);
  const target = (name: string): { array: Float32Array; stride: number; offset: number } | undefined => {
    const axis = ['x', 'y', 'z'].indexOf(name);
    if (axis >= 0) return { array: s.means, stride: 3, offset: axis };
    let m = /^f_dc_([0-2])$/.exec(name);
    if (m) return { array: s.sh, stride: 3 * K, offset: Number(m[1]) };
    m = /^f_rest_(\d+)$/.exec(name);
    if (m) {
      // Channel-major: f_rest_j is channel floor(j / (K-1)), coefficient 1 + j % (K-1).
      const j = Number(m[1]);
      return { array: s.sh, stride: 3 * K, offset: (1 + (j % (K - 1))) * 3 + Math.floor(j / (K - 1)) };
    }
    if (name === 'opacity') return { array: s.opacityLogits, stride: 1, offset: 0 };
    m = /^scale_([0-2])$/.exec(name);
    if (m) return { array: s.logScales, stride: 3, offset: Number(m[1]) };
    m = /^rot_([0-3])$/.exec(name);
    if (m) return { array: s.quats, stride: 4, offset: Number(m[1]) };
    return undefined;
  };
  vertex.properties.forEach((p, k) => {
    const t = target(p.name);
    if (!t) return;
    layout.column[k] = layout.columns.length;
    layout.columns.push({ name: p.name, ...t });
  });
}

/** Stores a value read for vertex i, refusing NaN, infinities and doubles that overflow float32. */
function store(layout: VertexLayout, column: number, i: number, value: number, file: string): void {
  const c = layout.columns[column];
  const f32 = Math.fround(value);
  if (!Number.isFinite(f32)) {
    const what = Number.isFinite(value) ? `value ${value} overflows float32` : `${value}`;
    throw badInput(file, `NaN/Inf in property ${c.name} of vertex ${i} (${what})`, { property: c.name, vertex: i });
  }
  c.array[i * c.stride + c.offset] = f32;
}

function readScalar(view: DataView, at: number, type: PlyScalarType, little: boolean): number {
  switch (type) {
    case 'int8':
      return view.getInt8(at);
    case 'uint8':
      return view.getUint8(at);
    case 'int16':
      return view.getInt16(at, little);
    case 'uint16':
      return view.getUint16(at, little);
    case 'int32':
      return view.getInt32(at, little);
    case 'uint32':
      return view.getUint32(at, little);
    case 'float32':
      return view.getFloat32(at, little);
    case 'float64':
      return view.getFloat64(at, little);
  }
}

function fixedRecordSize(element: PlyElement): number | undefined {
  if (element.properties.some((p) => p.listCountType)) return undefined;
  return element.properties.reduce((sum, p) => sum + PLY_TYPE_SIZE[p.type], 0);
}

function truncated(file: string, expected: number, got: number): ArgonautError {
  return badInput(file, `truncated body (expected ${expected} bytes, got ${got})`, { expectedBytes: expected, gotBytes: got });
}

/** Walks one record of an element with list properties; returns the offset after it. */
function skipListRecord(view: DataView, at: number, element: PlyElement, little: boolean, file: string, bodyOffset: number): number {
  for (const p of element.properties) {
    if (p.listCountType) {
      const countSize = PLY_TYPE_SIZE[p.listCountType];
      if (at + countSize > view.byteLength) throw truncated(file, at + countSize - bodyOffset, view.byteLength - bodyOffset);
      const n = readScalar(view, at, p.listCountType, little);
      at += countSize + n * PLY_TYPE_SIZE[p.type];
    } else {
      at += PLY_TYPE_SIZE[p.type];
    }
    if (at > view.byteLength) throw truncated(file, at - bodyOffset, view.byteLength - bodyOffset);
  }
  return at;
}

function readBinary(bytes: Uint8Array, header: PlyHeader, vertexIndex: number, layout: VertexLayout, file: string): void {
  const little = header.format === 'binary_little_endian';
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const body = header.bodyOffset;
  let at = body;
  for (const element of header.elements.slice(0, vertexIndex)) {
    const size = fixedRecordSize(element);
    if (size !== undefined) {
      at += size * element.count;
      if (at > bytes.length) throw truncated(file, at - body, bytes.length - body);
    } else {
      for (let r = 0; r < element.count; r++) at = skipListRecord(view, at, element, little, file, body);
    }
  }
  const vertex = header.elements[vertexIndex];
  const size = fixedRecordSize(vertex);
  if (size !== undefined) {
    const end = at + size * vertex.count;
    if (end > bytes.length) throw truncated(file, end - body, bytes.length - body);
    if (vertexIndex === header.elements.length - 1 && end < bytes.length) {
      throw badInput(file, `${bytes.length - end} unexpected bytes after the vertex data (expected exactly ${end - body} body bytes)`);
    }
  }
  const offsets = vertex.properties.map((p) => PLY_TYPE_SIZE[p.type]);
  for (let i = 0; i < vertex.count; i++) {
    if (size === undefined) {
      // Variable-size records: read scalars, step over lists.
      for (let k = 0; k < vertex.properties.length; k++) {
        const p = vertex.properties[k];
        if (p.listCountType) {
          at = skipListRecord(view, at, { ...vertex, properties: [p] }, little, file, body);
          continue;
        }
        if (at + offsets[k] > bytes.length) throw truncated(file, at + offsets[k] - body, bytes.length - body);
        if (layout.column[k] >= 0) store(layout, layout.column[k], i, readScalar(view, at, p.type, little), file);
        at += offsets[k];
      }
      continue;
    }
    for (let k = 0; k < vertex.properties.length; k++) {
      if (layout.column[k] >= 0) store(layout, layout.column[k], i, readScalar(view, at, vertex.properties[k].type, little), file);
      at += offsets[k];
    }
  }
}

/** Whitespace-separated tokens of an ascii body. */
class Tokens {
  private at: number;
  constructor(
    private readonly bytes: Uint8Array,
    start: number,
  ) {
    this.at = start;
  }

  next(): string | undefined {
    const b = this.bytes;
    while (this.at < b.length && isSpace(b[this.at])) this.at++;
    if (this.at >= b.length) return undefined;
    const start = this.at;
    while (this.at < b.length && !isSpace(b[this.at])) this.at++;
    return latin1(b.subarray(start, this.at));
  }
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function readAscii(bytes: Uint8Array, header: PlyHeader, vertexIndex: number, layout: VertexLayout, file: string): void {
  const tokens = new Tokens(bytes, header.bodyOffset);
  const need = (element: string, r: number, property: string): string => {
    const t = tokens.next();
    if (t === undefined) throw badInput(file, `truncated body: ${element} ${r} ends before property ${property}`, { element, record: r });
    return t;
  };
  const listCount = (element: string, r: number, property: string): number => {
    const t = need(element, r, property);
    const n = Number(t);
    if (!Number.isSafeInteger(n) || n < 0) throw badInput(file, `${element} ${r}: list length of property ${property} is not a count ("${t}")`);
    return n;
  };
  for (const element of header.elements.slice(0, vertexIndex)) {
    for (let r = 0; r < element.count; r++) {
      for (const p of element.properties) {
        const n = p.listCountType ? listCount(element.name, r, p.name) : 1;
        for (let k = 0; k < n; k++) need(element.name, r, p.name);
      }
    }
  }
  const vertex = header.elements[vertexIndex];
  for (let i = 0; i < vertex.count; i++) {
    for (let k = 0; k < vertex.properties.length; k++) {
      const p = vertex.properties[k];
      if (p.listCountType) {
        const n = listCount('vertex', i, p.name);
        for (let j = 0; j < n; j++) need('vertex', i, p.name);
        continue;
      }
      const t = need('vertex', i, p.name);
      if (layout.column[k] < 0) continue;
      if (/^[-+]?(nan|inf|infinity)$/i.test(t)) throw badInput(file, `NaN/Inf in property ${p.name} of vertex ${i} ("${t}")`, { property: p.name, vertex: i });
      const value = Number(t);
      if (t === '' || Number.isNaN(value)) throw badInput(file, `property ${p.name} of vertex ${i} is not a number ("${t}")`, { property: p.name, vertex: i });
      store(layout, layout.column[k], i, value, file);
    }
  }
  if (vertexIndex === header.elements.length - 1) {
    const extra = tokens.next();
    if (extra !== undefined) throw badInput(file, `unexpected data after the last vertex ("${extra}"): the header declares ${vertex.count} vertices`);
  }
}

/** The standard 3DGS layout, binary little-endian, float32. */
export function serializePly(splats: SplatSet): Uint8Array {
  checkSplats(splats);
  const K = shCoefficientCount(splats.shDegree);
  const rest = 3 * (K - 1);
  const names = [
    'x', 'y', 'z', 'nx', 'ny', 'nz', 'f_dc_0', 'f_dc_1', 'f_dc_2',
    ...Array.from({ length: rest }, (_, j) => `f_rest_${j}`),
    'opacity', 'scale_0', 'scale_1', 'scale_2', 'rot_0', 'rot_1', 'rot_2', 'rot_3',
  ];
  const headerText = ['ply', 'format binary_little_endian 1.0', `element vertex ${splats.count}`, ...names.map((n) => `property float ${n}`), 'end_header', ''].join('\n');
  const head = new TextEncoder().encode(headerText);
  const stride = names.length * 4;
  const out = new Uint8Array(head.length + stride * splats.count);
  out.set(head, 0);
  const view = new DataView(out.buffer, head.length);
  const { means, sh, opacityLogits, logScales, quats } = splats;
  for (let i = 0; i < splats.count; i++) {
    let at = i * stride;
    const put = (v: number): void => {
      view.setFloat32(at, v, true);
      at += 4;
    };
    put(means[3 * i]);
    put(means[3 * i + 1]);
    put(means[3 * i + 2]);
    put(0);
    put(0);
    put(0);
    for (let c = 0; c < 3; c++) put(sh[i * K * 3 + c]);
    for (let c = 0; c < 3; c++) for (let k = 1; k < K; k++) put(sh[(i * K + k) * 3 + c]);
    put(opacityLogits[i]);
    for (let a = 0; a < 3; a++) put(logScales[3 * i + a]);
    for (let a = 0; a < 4; a++) put(quats[4 * i + a]);
  }
  return out;
}

function checkSplats(s: SplatSet): void {
  const fail = (problem: string): never => {
    throw new ArgonautError('invalid_argument', `cannot write PLY: ${problem}`);
  };
  if (!Number.isSafeInteger(s.count) || s.count < 0) fail(`count must be a non-negative integer, got ${s.count}`);
  if (!Number.isInteger(s.shDegree) || s.shDegree < 0 || s.shDegree > 3) fail(`shDegree must be 0..3, got ${s.shDegree}`);
  const K = shCoefficientCount(s.shDegree);
  const expected = { means: 3, logScales: 3, quats: 4, opacityLogits: 1, sh: 3 * K } as const;
  for (const [field, per] of Object.entries(expected) as [keyof typeof expected, number][]) {
    const array = s[field];
    if (array.length !== per * s.count) fail(`${field} has ${array.length} values, expected ${per * s.count} (${per} per splat)`);
    for (let j = 0; j < array.length; j++) {
      if (!Number.isFinite(array[j])) fail(`NaN/Inf in ${field} of splat ${Math.floor(j / per)}`);
    }
  }
}

/** Writes atomically (temporary file, fsync, rename): see atomic-file.ts. */
export async function writePly(path: string, splats: SplatSet): Promise<void> {
  await writeFileAtomic(path, serializePly(splats));
}
