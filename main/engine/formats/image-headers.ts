/**
 * Byte-level checks of PNG and JPEG files before the codec (sharp) sees them: the format from the
 * magic bytes, the stored size and bit depth, truncation and (PNG) chunk CRCs. libvips would report
 * most of these as a generic read error, some (a cut JPEG) only as a warning over grey pixels; here
 * each is worded with the file and the byte. Every read is bounds-checked,
 * so a hostile or cut file yields a `bad_input` naming the file and the byte, never a crash, and a
 * header claiming billions of pixels is refused before any codec allocates for it.
 */
import { crc32 } from 'node:zlib';
import { badInput } from '../../../shared/rpc/errors.js';

export type ImageFormat = 'png' | 'jpeg';

/** Limits that keep a hostile header from allocating gigabytes (also sharp's limitInputPixels). */
export const MAX_IMAGE_PIXELS = 200_000_000;

export interface ImageHeader {
  format: ImageFormat;
  /** Size as stored in the file, before EXIF orientation. */
  storedWidth: number;
  storedHeight: number;
  /** Bits per sample: PNG 1..16, JPEG 8. */
  bitDepth: number;
  /** The bytes the codec should see: a PNG is cut after IEND, so trailing junk is tolerated. */
  codecEnd: number;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

export function detectImageFormat(bytes: Uint8Array): ImageFormat | null {
  if (bytes.length >= 8 && PNG_SIGNATURE.every((b, i) => bytes[i] === b)) return 'png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  return null;
}

function hexPrefix(bytes: Uint8Array): string {
  return [...bytes.subarray(0, 4)].map((b) => b.toString(16).padStart(2, '0')).join(' ');
}

/** Reads and checks the header of a whole PNG or JPEG file. */
export function inspectImage(bytes: Uint8Array, file: string): ImageHeader {
  return inspectImagePrefix(bytes, file, true)!;
}

/**
 * Reads the header from the first bytes of a file (a size probe): truncation is then not an error,
 * and null means the size lies beyond the prefix. `complete` says the prefix is the whole file.
 */
export function inspectImagePrefix(bytes: Uint8Array, file: string, complete: boolean): ImageHeader | null {
  if (complete && bytes.length === 0) throw badInput(file, 'empty file (0 bytes), expected a PNG or JPEG image');
  const format = detectImageFormat(bytes);
  if (!format) throw badInput(file, `not a PNG or JPEG file (starts with ${hexPrefix(bytes) || 'nothing'})`);
  return format === 'png' ? inspectPng(bytes, file, complete) : inspectJpeg(bytes, file, complete);
}

function checkSize(file: string, what: string, width: number, height: number): void {
  if (width < 1 || height < 1) throw badInput(file, `${what} declares an empty image (${width}x${height})`);
  if (width * height > MAX_IMAGE_PIXELS) {
    throw badInput(file, `${what} declares ${width}x${height} pixels, more than the ${MAX_IMAGE_PIXELS / 1e6} megapixel limit`);
  }
}

const PNG_DEPTHS: Record<number, number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };

function inspectPng(bytes: Uint8Array, file: string, complete: boolean): ImageHeader {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 8;
  let width = 0;
  let height = 0;
  let bitDepth = 8;
  let sawIdat = false;
  while (true) {
    if (offset + 8 > bytes.length) {
      if (!complete && width > 0) break;
      throw badInput(file, `truncated PNG: file ends at byte ${bytes.length} before the IEND chunk`);
    }
    const length = view.getUint32(offset);
    const type = String.fromCharCode(bytes[offset + 4], bytes[offset + 5], bytes[offset + 6], bytes[offset + 7]);
    if (!/^[A-Za-z]{4}$/.test(type)) throw badInput(file, `corrupt PNG: invalid chunk type at byte ${offset + 4}`);
    if (length > 0x7fffffff) throw badInput(file, `corrupt PNG: chunk ${type} at byte ${offset} claims ${length} bytes`);
    const end = offset + 12 + length;
    if (offset === 8) {
      if (type !== 'IHDR' || length !== 13) throw badInput(file, 'corrupt PNG: the first chunk is not a 13-byte IHDR');
      if (offset + 8 + 13 > bytes.length) throw badInput(file, `truncated PNG: file ends at byte ${bytes.length} inside IHDR`);
      width = view.getUint32(16);
      height = view.getUint32(20);
      bitDepth = bytes[24];
      const colorType = bytes[25];
      if (!PNG_DEPTHS[colorType]?.includes(bitDepth)) throw badInput(file, `corrupt PNG: colour type ${colorType} with bit depth ${bitDepth} is not valid`);
      checkSize(file, 'PNG header', width, height);
      if (!complete) break;
    }
    if (end > bytes.length) {
      throw badInput(file, `truncated PNG: chunk ${type} at byte ${offset} needs ${12 + length} bytes, the file ends at byte ${bytes.length}`);
    }
    // libpng reports a CRC mismatch as a bare "IDAT: CRC error": check it here, with the chunk and byte.
    const storedCrc = view.getUint32(end - 4);
    if (crc32(bytes.subarray(offset + 4, end - 4)) !== storedCrc) {
      throw badInput(file, `corrupt PNG: CRC mismatch in chunk ${type} at byte ${offset}`);
    }
    if (type === 'IDAT') sawIdat = true;
    offset = end;
    if (type === 'IEND') {
      if (!sawIdat) throw badInput(file, 'corrupt PNG: no IDAT (image data) chunk before IEND');
      break;
    }
  }
  return { format: 'png', storedWidth: width, storedHeight: height, bitDepth, codecEnd: complete ? offset : bytes.length };
}

/** SOF markers we accept (libjpeg-turbo decodes more, but these are what cameras and our tests write): baseline, extended sequential, progressive (Huffman). */
const SUPPORTED_SOF = new Set([0xc0, 0xc1, 0xc2]);
const OTHER_SOF = new Set([0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

function inspectJpeg(bytes: Uint8Array, file: string, complete: boolean): ImageHeader | null {
  let offset = 2;
  let width = 0;
  let height = 0;
  let scanStart = -1;
  while (offset < bytes.length) {
    if (bytes[offset] !== 0xff) throw badInput(file, `corrupt JPEG data: expected a marker at byte ${offset}, found ${bytes[offset].toString(16)}`);
    while (offset < bytes.length && bytes[offset] === 0xff) offset++; // fill bytes
    if (offset >= bytes.length) break;
    const marker = bytes[offset];
    offset++;
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) continue; // no payload
    if (marker === 0xd9) throw badInput(file, `corrupt JPEG data: end-of-image marker at byte ${offset - 2} before any scan`);
    if (offset + 2 > bytes.length) break;
    const length = (bytes[offset] << 8) | bytes[offset + 1];
    if (length < 2) throw badInput(file, `corrupt JPEG data: segment FF${marker.toString(16).toUpperCase()} at byte ${offset - 2} has length ${length}`);
    const payload = offset + 2;
    const end = offset + length;
    if (marker === 0xda) {
      scanStart = end;
      break;
    }
    if (end > bytes.length) break;
    if (SUPPORTED_SOF.has(marker) || OTHER_SOF.has(marker)) {
      if (OTHER_SOF.has(marker)) {
        throw badInput(file, `unsupported JPEG coding (SOF marker FF${marker.toString(16).toUpperCase()}: lossless, hierarchical or arithmetic); re-save as baseline or progressive JPEG`);
      }
      if (length < 8) throw badInput(file, `corrupt JPEG data: frame header at byte ${offset - 2} is too short`);
      height = (bytes[payload + 1] << 8) | bytes[payload + 2];
      width = (bytes[payload + 3] << 8) | bytes[payload + 4];
      if (height === 0) throw badInput(file, 'unsupported JPEG: height 0 in the frame header (defined later by a DNL marker)');
      checkSize(file, 'JPEG frame header', width, height);
    }
    offset = end;
  }
  if (width === 0) {
    if (!complete) return null;
    throw badInput(file, scanStart < 0 ? `truncated JPEG: file ends at byte ${bytes.length} before the image data` : 'corrupt JPEG data: no frame header (SOF) before the scan');
  }
  if (complete) {
    if (scanStart < 0) throw badInput(file, `truncated JPEG: file ends at byte ${bytes.length} before the image data`);
    // Inside entropy-coded data 0xFF is always followed by 0x00 or a restart marker, so the first
    // FF D9 after the first scan header is the end of the image: without it the file was cut.
    if (!hasEndOfImage(bytes, scanStart)) {
      throw badInput(file, `truncated JPEG: no end-of-image marker after the scan data that starts at byte ${scanStart} (file is ${bytes.length} bytes)`);
    }
  }
  return { format: 'jpeg', storedWidth: width, storedHeight: height, bitDepth: 8, codecEnd: bytes.length };
}

function hasEndOfImage(bytes: Uint8Array, from: number): boolean {
  for (let i = bytes.length - 2; i >= from; i--) if (bytes[i] === 0xff && bytes[i + 1] === 0xd9) return true;
  return false;
}
