/** Test image builders: raw PNGs of any colour type and depth, JPEGs, and EXIF orientation. */
import jpegJs from 'jpeg-js';
import { crc32, deflateSync } from 'node:zlib';

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  Buffer.from(data).copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

export interface RawPng {
  width: number;
  height: number;
  /** 0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA */
  colorType: 0 | 2 | 3 | 4 | 6;
  depth: 1 | 2 | 4 | 8 | 16;
  /** Samples per pixel in channel order, one number per sample (palette: the index). */
  samples: number[];
  palette?: [number, number, number][];
  /** tRNS chunk payload, as bytes. */
  trns?: number[];
  /** Adam7 interlacing. */
  interlace?: boolean;
}

const CHANNELS = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 } as const;

const ADAM7 = [[0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2]];

/** Scanlines (filter byte 0 + packed samples) of the pixels at (x0 + i dx, y0 + j dy). */
function scanlines(png: RawPng, x0: number, y0: number, dx: number, dy: number): Buffer {
  const channels = CHANNELS[png.colorType];
  const w = Math.ceil((png.width - x0) / dx);
  const h = Math.ceil((png.height - y0) / dy);
  if (w <= 0 || h <= 0) return Buffer.alloc(0);
  const rowBytes = Math.ceil((w * channels * png.depth) / 8);
  const raw = Buffer.alloc((rowBytes + 1) * h);
  for (let j = 0; j < h; j++) {
    const rowStart = j * (rowBytes + 1) + 1;
    for (let i = 0; i < w; i++) {
      for (let c = 0; c < channels; c++) {
        const value = png.samples[((y0 + j * dy) * png.width + x0 + i * dx) * channels + c];
        const s = i * channels + c;
        if (png.depth === 16) raw.writeUInt16BE(value, rowStart + s * 2);
        else if (png.depth === 8) raw[rowStart + s] = value;
        else raw[rowStart + ((s * png.depth) >> 3)] |= value << (8 - png.depth - ((s * png.depth) & 7));
      }
    }
  }
  return raw;
}

/** Encodes a PNG byte for byte (filter 0 on every row), so tests control every header field. */
export function encodePng(png: RawPng): Uint8Array {
  const raw = png.interlace
    ? Buffer.concat(ADAM7.map(([x0, y0, dx, dy]) => scanlines(png, x0, y0, dx, dy)))
    : scanlines(png, 0, 0, 1, 1);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(png.width, 0);
  ihdr.writeUInt32BE(png.height, 4);
  ihdr[8] = png.depth;
  ihdr[9] = png.colorType;
  ihdr[12] = png.interlace ? 1 : 0;
  const parts = [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr)];
  if (png.palette) parts.push(chunk('PLTE', Uint8Array.from(png.palette.flat())));
  if (png.trns) parts.push(chunk('tRNS', Uint8Array.from(png.trns)));
  parts.push(chunk('IDAT', deflateSync(raw)), chunk('IEND', new Uint8Array(0)));
  return new Uint8Array(Buffer.concat(parts));
}

/** RGB(A) pixels -> JPEG bytes (jpeg-js encoder, always 3 channels out). */
export function encodeJpeg(width: number, height: number, rgba: Uint8Array, quality = 95): Uint8Array {
  const encoded = jpegJs.encode({ width, height, data: Buffer.from(rgba) }, quality);
  return new Uint8Array(encoded.data);
}

/** An APP1 payload ("Exif\0\0" + TIFF) holding only IFD0 Orientation. */
export function exifApp1(orientation: number, littleEndian = false): Uint8Array {
  const tiff = Buffer.alloc(8 + 2 + 12 + 4);
  if (littleEndian) tiff.write('II', 0, 'latin1');
  else tiff.write('MM', 0, 'latin1');
  const u16 = (v: number, o: number): number => (littleEndian ? tiff.writeUInt16LE(v, o) : tiff.writeUInt16BE(v, o));
  const u32 = (v: number, o: number): number => (littleEndian ? tiff.writeUInt32LE(v, o) : tiff.writeUInt32BE(v, o));
  u16(42, 2);
  u32(8, 4); // IFD0 offset
  u16(1, 8); // one entry
  u16(0x0112, 10); // Orientation
  u16(3, 12); // SHORT
  u32(1, 14); // count
  u16(orientation, 18);
  u32(0, 22); // no next IFD
  return new Uint8Array(Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]));
}

/** An APP1 segment with `payload`, inserted right after SOI. */
export function withApp1(jpeg: Uint8Array, payload: Uint8Array): Uint8Array {
  const segment = Buffer.alloc(4);
  segment.writeUInt16BE(0xffe1, 0);
  segment.writeUInt16BE(payload.length + 2, 2);
  return new Uint8Array(Buffer.concat([Buffer.from(jpeg.subarray(0, 2)), segment, payload, Buffer.from(jpeg.subarray(2))]));
}

/** An APP1 segment holding only IFD0 Orientation, inserted right after SOI. */
export function withExifOrientation(jpeg: Uint8Array, orientation: number, littleEndian = false): Uint8Array {
  return withApp1(jpeg, exifApp1(orientation, littleEndian));
}

/**
 * The displayed pixels for EXIF orientation 1..8 (TIFF 6.0 tag 274), a reference independent of
 * sharp's: 2 mirror horizontal, 3 rotate 180, 4 mirror vertical, 5 transpose, 6 rotate 90
 * clockwise, 7 transverse, 8 rotate 90 counter-clockwise. 5..8 swap width and height.
 */
export function applyOrientation<T extends { width: number; height: number; channels: number; data: Uint8Array }>(image: T, orientation: number): T {
  if (orientation <= 1 || orientation > 8) return image;
  const { width: w, height: h, channels: c, data } = image;
  const swap = orientation >= 5;
  const outW = swap ? h : w;
  const outH = swap ? w : h;
  const out = new Uint8Array(data.length);
  // (sx, sy) = stored pixel shown at displayed (x, y).
  for (let y = 0; y < outH; y++) {
    for (let x = 0; x < outW; x++) {
      let sx: number;
      let sy: number;
      switch (orientation) {
        case 2: sx = w - 1 - x; sy = y; break;
        case 3: sx = w - 1 - x; sy = h - 1 - y; break;
        case 4: sx = x; sy = h - 1 - y; break;
        case 5: sx = y; sy = x; break;
        case 6: sx = y; sy = h - 1 - x; break;
        case 7: sx = w - 1 - y; sy = h - 1 - x; break;
        default: sx = w - 1 - y; sy = x; break; // 8
      }
      const from = (sy * w + sx) * c;
      const to = (y * outW + x) * c;
      for (let k = 0; k < c; k++) out[to + k] = data[from + k];
    }
  }
  return { ...image, width: outW, height: outH, data: out };
}

/** Byte-exact image equality without a slow element-by-element deep compare of megapixel arrays. */
export function sameImage(a: { width: number; height: number; channels: number; data: Uint8Array }, b: typeof a): boolean {
  return a.width === b.width && a.height === b.height && a.channels === b.channels && Buffer.from(a.data.buffer, a.data.byteOffset, a.data.byteLength).equals(Buffer.from(b.data.buffer, b.data.byteOffset, b.data.byteLength));
}
