/**
 * The product's one ZIP reader (numpy's .npz, SOG bundles; fflate writes SOG's zip): entries stored or deflated, ZIP64
 * sizes and offsets, no encryption, no multi-disk archives. Sizes come from the central
 * directory (numpy's streamed entries leave them out of the local headers); every entry is
 * checked against its CRC-32.
 *
 * Why not fflate (0.8.3, MIT, weighed for issue 12): its `unzipSync` checks no CRC-32, ignores the
 * encryption flag and reads entries without checking them against the file's length, so each
 * bad-input case below (tests/main/engine/formats/npz.test.ts) would need this central-directory
 * walk anyway; and the inflating here is already node:zlib's, not code of our own.
 */
import { crc32, inflateRawSync } from 'node:zlib';
import { badInput } from '../../../shared/rpc/errors.js';

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  crc: number;
  localOffset: number;
}

/** All entries of the archive, uncompressed, by name (in central-directory order). */
export function readZipEntries(bytes: Uint8Array, file: string, options: { maxEntryBytes?: number } = {}): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  const entries = listZipEntries(bytes, file);
  const limit = options.maxEntryBytes ?? Number.MAX_SAFE_INTEGER;
  for (const entry of entries) {
    if (entry.size > limit) throw badInput(file, `zip entry ${entry.name} says it holds ${entry.size} bytes (at most ${limit} accepted)`);
  }
  for (const entry of entries) {
    if (out.has(entry.name)) throw badInput(file, `zip entry ${entry.name} appears twice`);
    out.set(entry.name, extractZipEntry(bytes, entry, file));
  }
  return out;
}

export function listZipEntries(bytes: Uint8Array, file: string): ZipEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const eocd = findEocd(view);
  if (eocd < 0) throw badInput(file, 'not a zip archive (no end-of-central-directory record)');
  let count = view.getUint16(eocd + 10, true);
  let cdSize = view.getUint32(eocd + 12, true);
  let cdOffset = view.getUint32(eocd + 16, true);
  if (view.getUint16(eocd + 4, true) !== 0 || view.getUint16(eocd + 6, true) !== 0) throw badInput(file, 'multi-disk zip archives are not supported');
  if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) {
    const locator = eocd - 20;
    if (locator < 0 || view.getUint32(locator, true) !== ZIP64_LOCATOR) throw badInput(file, 'zip64 archive without its end-of-central-directory locator');
    const record = u64(view, locator + 8, file, 'zip64 record offset');
    if (record + 56 > bytes.length || view.getUint32(record, true) !== ZIP64_EOCD) throw badInput(file, 'zip64 end-of-central-directory record is missing or truncated');
    count = u64(view, record + 32, file, 'entry count');
    cdSize = u64(view, record + 40, file, 'central directory size');
    cdOffset = u64(view, record + 48, file, 'central directory offset');
  }
  if (cdOffset + cdSize > bytes.length) {
    throw badInput(file, `truncated zip archive (central directory at ${cdOffset}+${cdSize} bytes, file is ${bytes.length} bytes)`);
  }
  const entries: ZipEntry[] = [];
  let at = cdOffset;
  for (let k = 0; k < count; k++) {
    if (at + 46 > cdOffset + cdSize || view.getUint32(at, true) !== CENTRAL) throw badInput(file, `corrupt zip central directory at entry ${k}`);
    const flags = view.getUint16(at + 8, true);
    const method = view.getUint16(at + 10, true);
    const crc = view.getUint32(at + 16, true);
    let compressedSize = view.getUint32(at + 20, true);
    let size = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    let localOffset = view.getUint32(at + 42, true);
    const name = new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength));
    if (flags & 1) throw badInput(file, `zip entry ${name} is encrypted`);
    // ZIP64 extended information: the 64-bit values of the fields saturated above, in order.
    let extra = at + 46 + nameLength;
    const extraEnd = extra + extraLength;
    while (extra + 4 <= extraEnd) {
      const id = view.getUint16(extra, true);
      const length = view.getUint16(extra + 2, true);
      if (id === 0x0001) {
        let field = extra + 4;
        if (size === 0xffffffff) {
          size = u64(view, field, file, `size of ${name}`);
          field += 8;
        }
        if (compressedSize === 0xffffffff) {
          compressedSize = u64(view, field, file, `compressed size of ${name}`);
          field += 8;
        }
        if (localOffset === 0xffffffff) localOffset = u64(view, field, file, `offset of ${name}`);
      }
      extra += 4 + length;
    }
    entries.push({ name, method, compressedSize, size, crc, localOffset });
    at = extraEnd + commentLength;
  }
  return entries;
}

export function extractZipEntry(bytes: Uint8Array, entry: ZipEntry, file: string): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const { name } = entry;
  if (entry.localOffset + 30 > bytes.length || view.getUint32(entry.localOffset, true) !== LOCAL) {
    throw badInput(file, `zip entry ${name}: local header missing at offset ${entry.localOffset}`);
  }
  const start = entry.localOffset + 30 + view.getUint16(entry.localOffset + 26, true) + view.getUint16(entry.localOffset + 28, true);
  if (start + entry.compressedSize > bytes.length) {
    throw badInput(file, `zip entry ${name} is truncated (expected ${entry.compressedSize} bytes, got ${Math.max(0, bytes.length - start)})`);
  }
  const raw = bytes.subarray(start, start + entry.compressedSize);
  let data: Uint8Array;
  if (entry.method === 0) data = raw;
  else if (entry.method === 8) {
    try {
      // Never inflate past the declared size: a lying header cannot make this a bomb.
      data = inflateRawSync(raw, { maxOutputLength: Math.max(1, entry.size) });
    } catch (error) {
      throw badInput(file, `zip entry ${name}: corrupt deflate data (${(error as Error).message})`);
    }
  } else throw badInput(file, `zip entry ${name}: unsupported compression method ${entry.method} (expected 0 stored or 8 deflate)`);
  if (data.length !== entry.size) throw badInput(file, `zip entry ${name}: expected ${entry.size} bytes uncompressed, got ${data.length}`);
  if (crc32(data) >>> 0 !== entry.crc) throw badInput(file, `zip entry ${name}: CRC-32 mismatch (the archive is corrupt)`);
  return data;
}

function findEocd(view: DataView): number {
  const last = view.byteLength - 22;
  const first = Math.max(0, last - 0xffff);
  for (let at = last; at >= first; at--) {
    if (view.getUint32(at, true) === EOCD && at + 22 + view.getUint16(at + 20, true) <= view.byteLength) return at;
  }
  return -1;
}

function u64(view: DataView, at: number, file: string, what: string): number {
  if (at + 8 > view.byteLength) throw badInput(file, `truncated zip archive while reading the ${what}`);
  const value = view.getBigUint64(at, true);
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw badInput(file, `zip ${what} ${value} is out of range`);
  return Number(value);
}
