/**
 * Point clouds from PLY for dataset initialization (nerfstudio's `ply_file_path`): the vertex
 * element's x, y, z and, when present, red, green, blue (8-bit; float colours in [0, 1] are scaled).
 * ascii, binary_little_endian and binary_big_endian; the vertex element must come first (it does
 * in every SfM export). Bounds-checked: a short file is a `bad_input`, never a crash.
 */
import { readFile } from 'node:fs/promises';
import { badInput } from '../../../shared/rpc/errors.js';

const TYPES: Record<string, { size: number; get: (v: DataView, o: number, le: boolean) => number; float: boolean }> = {
  char: { size: 1, get: (v, o) => v.getInt8(o), float: false },
  uchar: { size: 1, get: (v, o) => v.getUint8(o), float: false },
  short: { size: 2, get: (v, o, le) => v.getInt16(o, le), float: false },
  ushort: { size: 2, get: (v, o, le) => v.getUint16(o, le), float: false },
  int: { size: 4, get: (v, o, le) => v.getInt32(o, le), float: false },
  uint: { size: 4, get: (v, o, le) => v.getUint32(o, le), float: false },
  float: { size: 4, get: (v, o, le) => v.getFloat32(o, le), float: true },
  double: { size: 8, get: (v, o, le) => v.getFloat64(o, le), float: true },
};
const ALIASES: Record<string, string> = { int8: 'char', uint8: 'uchar', int16: 'short', uint16: 'ushort', int32: 'int', uint32: 'uint', float32: 'float', float64: 'double' };

export async function readPlyPoints(file: string): Promise<{ positions: Float32Array; colors: Uint8Array }> {
  let buffer: Buffer;
  try {
    buffer = await readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw badInput(file, code === 'ENOENT' ? 'point cloud file not found' : `cannot read point cloud: ${(error as Error).message}`);
  }
  return parsePlyPoints(new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength), file);
}

export function parsePlyPoints(bytes: Uint8Array, file: string): { positions: Float32Array; colors: Uint8Array } {
  const headText = Buffer.from(bytes.subarray(0, Math.min(bytes.length, 64 * 1024))).toString('latin1');
  const endMatch = /end_header\r?\n/.exec(headText);
  if (!headText.startsWith('ply') || !endMatch) throw badInput(file, 'not a PLY file (no "ply" magic or no end_header)');
  const headerLines = headText.slice(0, endMatch.index).split(/\r?\n/).map((l) => l.trim().split(/\s+/));
  const format = headerLines.find((l) => l[0] === 'format')?.[1];
  if (format !== 'ascii' && format !== 'binary_little_endian' && format !== 'binary_big_endian') throw badInput(file, `unsupported PLY format ${format}`);
  const firstElement = headerLines.find((l) => l[0] === 'element');
  if (!firstElement || firstElement[1] !== 'vertex') throw badInput(file, 'the first PLY element must be "vertex"');
  const count = Number(firstElement[2]);
  if (!Number.isSafeInteger(count) || count < 0) throw badInput(file, `vertex count "${firstElement[2]}" is not a count`);
  const props: { name: string; type: string }[] = [];
  for (const l of headerLines.slice(headerLines.indexOf(firstElement) + 1)) {
    if (l[0] === 'element') break;
    if (l[0] !== 'property') continue;
    if (l[1] === 'list') throw badInput(file, 'list properties in the vertex element are not supported');
    const type = ALIASES[l[1]] ?? l[1];
    if (!TYPES[type]) throw badInput(file, `unknown PLY property type ${l[1]}`);
    props.push({ name: l[2], type });
  }
  const index = (name: string): number => props.findIndex((p) => p.name === name);
  const xyz = ['x', 'y', 'z'].map(index);
  if (xyz.some((i) => i < 0)) throw badInput(file, 'the vertex element has no x, y, z properties');
  const rgb = ['red', 'green', 'blue'].map(index);
  const hasColor = rgb.every((i) => i >= 0);
  const positions = new Float32Array(count * 3);
  const colors = new Uint8Array(count * 3).fill(255);
  const toByte = (value: number, type: string): number => (TYPES[type].float ? Math.round(Math.min(1, Math.max(0, value)) * 255) : Math.min(255, Math.max(0, value)));
  const bodyStart = Buffer.byteLength(headText.slice(0, endMatch.index + endMatch[0].length), 'latin1');
  const values = new Float64Array(props.length);
  const store = (i: number): void => {
    for (let k = 0; k < 3; k++) {
      const v = values[xyz[k]];
      if (!Number.isFinite(v)) throw badInput(file, `vertex ${i}: ${'xyz'[k]} is ${v}, expected a finite number`);
      positions[i * 3 + k] = v;
    }
    if (hasColor) for (let k = 0; k < 3; k++) colors[i * 3 + k] = toByte(values[rgb[k]], props[rgb[k]].type);
  };
  if (format === 'ascii') {
    const lines = Buffer.from(bytes.subarray(bodyStart)).toString('latin1').split(/\r?\n/);
    for (let i = 0; i < count; i++) {
      const tokens = (lines[i] ?? '').trim().split(/\s+/);
      if (tokens.length < props.length) throw badInput(file, `truncated: vertex ${i} has ${tokens[0] === '' ? 0 : tokens.length} of ${props.length} values`);
      for (let k = 0; k < props.length; k++) values[k] = Number(tokens[k]);
      store(i);
    }
  } else {
    const little = format === 'binary_little_endian';
    const stride = props.reduce((s, p) => s + TYPES[p.type].size, 0);
    if (bodyStart + count * stride > bytes.length) {
      throw badInput(file, `truncated at byte ${bytes.length}: ${count} vertices of ${stride} bytes need ${bodyStart + count * stride}`);
    }
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let offset = bodyStart;
    for (let i = 0; i < count; i++) {
      for (let k = 0; k < props.length; k++) {
        const t = TYPES[props[k].type];
        values[k] = t.get(view, offset, little);
        offset += t.size;
      }
      store(i);
    }
  }
  return { positions, colors };
}
