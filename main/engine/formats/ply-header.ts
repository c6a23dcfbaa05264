/**
 * The header of a PLY file: format, elements, their properties and where the body starts.
 * Only the structure is checked here; what the 3DGS layout requires is checked by ply.ts.
 */
import { badInput } from '../../../shared/rpc/errors.js';

export type PlyFormat = 'ascii' | 'binary_little_endian' | 'binary_big_endian';

export type PlyScalarType = 'int8' | 'uint8' | 'int16' | 'uint16' | 'int32' | 'uint32' | 'float32' | 'float64';

/** Byte sizes; PLY's old names (char, uchar, ...) map onto these. */
export const PLY_TYPE_SIZE: Readonly<Record<PlyScalarType, number>> = {
  int8: 1,
  uint8: 1,
  int16: 2,
  uint16: 2,
  int32: 4,
  uint32: 4,
  float32: 4,
  float64: 8,
};

const TYPE_NAMES: Readonly<Record<string, PlyScalarType>> = {
  char: 'int8',
  int8: 'int8',
  uchar: 'uint8',
  uint8: 'uint8',
  short: 'int16',
  int16: 'int16',
  ushort: 'uint16',
  uint16: 'uint16',
  int: 'int32',
  int32: 'int32',
  uint: 'uint32',
  uint32: 'uint32',
  float: 'float32',
  float32: 'float32',
  double: 'float64',
  float64: 'float64',
};

export interface PlyProperty {
  name: string;
  type: PlyScalarType;
  /** For `property list <countType> <type> <name>`: the type of the item count. */
  listCountType?: PlyScalarType;
}

export interface PlyElement {
  name: string;
  count: number;
  properties: PlyProperty[];
}

export interface PlyHeader {
  format: PlyFormat;
  elements: PlyElement[];
  /** Offset of the first body byte. */
  bodyOffset: number;
}

/** Longest header we look through for end_header. */
const MAX_HEADER_BYTES = 1 << 20;

export function parsePlyHeader(bytes: Uint8Array, file: string): PlyHeader {
  const magic = latin1(bytes.subarray(0, 4));
  if (magic !== 'ply\n' && !(magic === 'ply\r' && bytes[4] === 0x0a)) {
    throw badInput(file, `not a PLY file (wrong magic: expected "ply" on the first line, got ${JSON.stringify(latin1(bytes.subarray(0, 16)))})`);
  }
  const end = findEndHeader(bytes);
  if (!end) {
    throw badInput(file, `PLY header has no end_header line within the first ${Math.min(bytes.length, MAX_HEADER_BYTES)} bytes`);
  }
  const lines = latin1(bytes.subarray(0, end.lineStart))
    .split('\n')
    .map((l) => l.replace(/\r$/, '').trim());
  let format: PlyFormat | undefined;
  const elements: PlyElement[] = [];
  for (let n = 1; n < lines.length; n++) {
    const line = lines[n];
    const parts = line.split(/\s+/);
    const where = `PLY header line ${n + 1}`;
    switch (parts[0]) {
      case '':
      case 'comment':
      case 'obj_info':
        break;
      case 'format': {
        if (parts[1] !== 'ascii' && parts[1] !== 'binary_little_endian' && parts[1] !== 'binary_big_endian') {
          throw badInput(file, `unsupported PLY format "${parts[1] ?? ''}" (expected ascii, binary_little_endian or binary_big_endian)`);
        }
        if (parts[2] !== '1.0') throw badInput(file, `unsupported PLY format version "${parts[2] ?? ''}" (expected 1.0)`);
        format = parts[1];
        break;
      }
      case 'element': {
        const count = Number(parts[2]);
        if (parts.length !== 3 || !Number.isSafeInteger(count) || count < 0) {
          throw badInput(file, `${where}: expected "element <name> <count>", got "${line}"`);
        }
        elements.push({ name: parts[1], count, properties: [] });
        break;
      }
      case 'property': {
        const element = elements.at(-1);
        if (!element) throw badInput(file, `${where}: property before any element`);
        const property = parseProperty(parts, file, where, line);
        if (element.properties.some((p) => p.name === property.name)) {
          throw badInput(file, `${where}: duplicate property ${property.name} in element ${element.name}`);
        }
        element.properties.push(property);
        break;
      }
      default:
        throw badInput(file, `${where}: unknown header keyword "${parts[0]}"`);
    }
  }
  if (!format) throw badInput(file, 'PLY header has no format line');
  return { format, elements, bodyOffset: end.bodyOffset };
}

function parseProperty(parts: string[], file: string, where: string, line: string): PlyProperty {
  if (parts[1] === 'list') {
    const countType = TYPE_NAMES[parts[2]];
    const type = TYPE_NAMES[parts[3]];
    if (parts.length !== 5 || !countType || !type) {
      throw badInput(file, `${where}: expected "property list <count type> <type> <name>", got "${line}"`);
    }
    if (countType === 'float32' || countType === 'float64') throw badInput(file, `${where}: a list count must be an integer type, got ${parts[2]}`);
    return { name: parts[4], type, listCountType: countType };
  }
  const type = TYPE_NAMES[parts[1]];
  if (parts.length !== 3 || !type) throw badInput(file, `${where}: expected "property <type> <name>" with a PLY type, got "${line}"`);
  return { name: parts[2], type };
}

function findEndHeader(bytes: Uint8Array): { lineStart: number; bodyOffset: number } | null {
  const limit = Math.min(bytes.length, MAX_HEADER_BYTES);
  const needle = 'end_header';
  for (let at = 0; at + needle.length <= limit; at++) {
    // end_header must start a line.
    if (at > 0 && bytes[at - 1] !== 0x0a) continue;
    let match = true;
    for (let k = 0; k < needle.length && match; k++) match = bytes[at + k] === needle.charCodeAt(k);
    if (!match) continue;
    let next = at + needle.length;
    while (next < bytes.length && (bytes[next] === 0x20 || bytes[next] === 0x09)) next++;
    if (bytes[next] === 0x0d && bytes[next + 1] === 0x0a) return { lineStart: at, bodyOffset: next + 2 };
    if (bytes[next] === 0x0a) return { lineStart: at, bodyOffset: next + 1 };
    if (next >= bytes.length) return { lineStart: at, bodyOffset: next };
  }
  return null;
}

export function latin1(bytes: Uint8Array): string {
  return new TextDecoder('latin1').decode(bytes);
}
