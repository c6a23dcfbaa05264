/**
 * NumPy .npy arrays and .npz archives (a zip of .npy entries, stored or deflated).
 *
 * Supported: format versions 1.0 and 2.0; little-endian (or byte-order-free) dtypes
 * '<f4' '<f8' '<u1'/'|u1' '<i4' '<i8' '<u4'; C order only (fortran_order False). Anything else
 * is a `bad_input` naming the file, the entry and the problem. int64 data comes back as a
 * BigInt64Array; `npyNumbers` converts any array to float64 numbers, refusing int64 values that
 * do not fit exactly.
 */
import { endianness } from 'node:os';
import { ArgonautError, badInput } from '../../../shared/rpc/errors.js';
import { readInputFile } from './input-file.js';
import { readZipEntries } from './zip.js';

export type NpyDtype = 'float32' | 'float64' | 'uint8' | 'int32' | 'int64' | 'uint32';

export type NpyData = Float32Array | Float64Array | Uint8Array | Int32Array | BigInt64Array | Uint32Array;

export interface NpyArray {
  dtype: NpyDtype;
  /** Empty for a scalar. */
  shape: number[];
  /** C order, length = product of the shape (1 for a scalar). */
  data: NpyData;
}

const DTYPES: Readonly<Record<string, { dtype: NpyDtype; size: number; make: (b: ArrayBuffer) => NpyData }>> = {
  '<f4': { dtype: 'float32', size: 4, make: (b) => new Float32Array(b) },
  '<f8': { dtype: 'float64', size: 8, make: (b) => new Float64Array(b) },
  '<u1': { dtype: 'uint8', size: 1, make: (b) => new Uint8Array(b) },
  '|u1': { dtype: 'uint8', size: 1, make: (b) => new Uint8Array(b) },
  '<i4': { dtype: 'int32', size: 4, make: (b) => new Int32Array(b) },
  '<i8': { dtype: 'int64', size: 8, make: (b) => new BigInt64Array(b) },
  '<u4': { dtype: 'uint32', size: 4, make: (b) => new Uint32Array(b) },
};

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY

/** `where` names the array in messages, e.g. "means3d.npy". */
export function parseNpy(bytes: Uint8Array, file: string, where = 'array'): NpyArray {
  const fail = (problem: string): ArgonautError => badInput(file, `${where}: ${problem}`, { entry: where });
  if (bytes.length < 10 || MAGIC.some((b, k) => bytes[k] !== b)) throw fail('not a .npy array (wrong magic)');
  const major = bytes[6];
  const minor = bytes[7];
  if ((major !== 1 && major !== 2) || minor !== 0) throw fail(`unsupported .npy format version ${major}.${minor} (expected 1.0 or 2.0)`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = major === 1 ? view.getUint16(8, true) : bytes.length >= 12 ? view.getUint32(8, true) : -1;
  const headerStart = major === 1 ? 10 : 12;
  const dataStart = headerStart + headerLength;
  if (headerLength < 0 || dataStart > bytes.length) throw fail(`truncated .npy header (expected ${dataStart} bytes, got ${bytes.length})`);
  const header = new TextDecoder('latin1').decode(bytes.subarray(headerStart, dataStart));

  const descr = /['"]descr['"]\s*:\s*['"]([^'"]*)['"]/.exec(header)?.[1];
  if (descr === undefined) throw fail(`the header has no simple 'descr' (structured dtypes are not supported): ${header.trim()}`);
  const type = DTYPES[descr];
  if (!type) throw fail(`unsupported dtype '${descr}' (expected one of ${Object.keys(DTYPES).join(' ')})`);
  const fortran = /['"]fortran_order['"]\s*:\s*(True|False)/.exec(header)?.[1];
  if (fortran === undefined) throw fail(`the header has no 'fortran_order': ${header.trim()}`);
  if (fortran === 'True') throw fail('Fortran-order arrays are not supported (expected fortran_order False)');
  const shapeText = /['"]shape['"]\s*:\s*\(([^)]*)\)/.exec(header)?.[1];
  if (shapeText === undefined) throw fail(`the header has no 'shape': ${header.trim()}`);
  const shape = shapeText
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '')
    .map((t) => {
      const n = Number(t.replace(/L$/, ''));
      if (!Number.isSafeInteger(n) || n < 0) throw fail(`invalid shape (${shapeText})`);
      return n;
    });

  const count = shape.reduce((p, n) => p * n, 1);
  const expected = count * type.size;
  const got = bytes.length - dataStart;
  if (got < expected) throw fail(`truncated data (expected ${expected} bytes for shape (${shape.join(', ')}) of ${descr}, got ${got})`);
  if (got > expected) throw fail(`${got - expected} unexpected bytes after the data (shape (${shape.join(', ')}) of ${descr} is ${expected} bytes)`);
  // Copy into a fresh, aligned buffer; swap bytes on a big-endian host.
  // (Uint8Array.prototype.slice: on a Node Buffer, .slice is a view into a shared pool.)
  const copy = new Uint8Array(expected);
  copy.set(bytes.subarray(dataStart, dataStart + expected));
  if (endianness() === 'BE' && type.size > 1) {
    for (let at = 0; at < copy.length; at += type.size) copy.subarray(at, at + type.size).reverse();
  }
  return { dtype: type.dtype, shape, data: type.make(copy.buffer) };
}

/** All arrays of an .npz, by name without the .npy suffix. */
export function parseNpz(bytes: Uint8Array, file: string): Map<string, NpyArray> {
  const arrays = new Map<string, NpyArray>();
  for (const [name, data] of readZipEntries(bytes, file)) {
    if (!name.endsWith('.npy')) throw badInput(file, `npz entry ${name} is not a .npy array`);
    arrays.set(name.slice(0, -4), parseNpy(data, file, name));
  }
  return arrays;
}

export async function readNpz(path: string): Promise<Map<string, NpyArray>> {
  return parseNpz(await readInputFile(path), path);
}

/** The array named `name`, checked against an expected dtype set and shape (-1 = any length). */
export function npzArray(arrays: Map<string, NpyArray>, name: string, file: string, shape?: readonly number[], dtypes?: readonly NpyDtype[]): NpyArray {
  const array = arrays.get(name);
  if (!array) throw badInput(file, `missing array ${name} (has ${[...arrays.keys()].join(', ') || 'none'})`);
  if (dtypes && !dtypes.includes(array.dtype)) throw badInput(file, `array ${name} has dtype ${array.dtype}, expected ${dtypes.join(' or ')}`);
  if (shape && (shape.length !== array.shape.length || shape.some((n, k) => n >= 0 && n !== array.shape[k]))) {
    const want = shape.map((n) => (n < 0 ? '*' : String(n))).join(', ');
    throw badInput(file, `array ${name} has shape (${array.shape.join(', ')}), expected (${want})`);
  }
  return array;
}

/** The values as float64 numbers; int64 values beyond 2^53 are refused. */
export function npyNumbers(array: NpyArray, file: string, name: string): Float64Array {
  if (!(array.data instanceof BigInt64Array)) return Float64Array.from(array.data);
  const out = new Float64Array(array.data.length);
  for (let k = 0; k < out.length; k++) {
    const v = array.data[k];
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER)) throw badInput(file, `array ${name}: int64 value ${v} does not fit a float64 exactly`);
    out[k] = Number(v);
  }
  return out;
}
