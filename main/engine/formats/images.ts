/**
 * Image files <-> pixels, through sharp (libvips: libjpeg-turbo, libpng). PNG (1-16 bit, grey,
 * grey+alpha, RGB, RGBA, palette, Adam7) and JPEG (baseline and progressive), detected from the
 * magic bytes, never the extension; EXIF orientation is applied. The result is 8-bit RGB, or RGBA
 * when the file has alpha, the stored sRGB values (embedded ICC profiles are ignored, as the
 * trainer and the published 3DGS numbers work on the stored values).
 *
 * Our own byte-level checks (image-headers.ts) run first: they word every structural problem
 * (truncated, bad CRC, not an image, absurd size) with the file and the byte, and refuse gigapixel
 * headers before libvips allocates. What only the codec can see (a corrupt Huffman table or zlib
 * stream) comes back from sharp and is worded here, as `corrupt PNG data: ...` / `corrupt JPEG data: ...`.
 *
 * sharp decodes on libuv's thread pool, so concurrent decodes run in parallel without a worker pool.
 * It is loaded on first use: commands that touch no image (bench raster, parity) start without its
 * native library, which the GPU machine then need not carry (scripts/gpu-prepare.sh).
 */
import { open, readFile, stat } from 'node:fs/promises';
import type { Metadata, OutputInfo, Sharp, SharpOptions } from 'sharp';
import { ArgonautError, badInput } from '../../../shared/rpc/errors.js';
import type { Image } from './image-ops.js';
import { inspectImage, inspectImagePrefix, MAX_IMAGE_PIXELS, type ImageFormat, type ImageHeader } from './image-headers.js';

export type { Image };

/** Turns a file's bytes into an Image (tests wrap it to count or fail decodes). */
export interface ImageDecoder {
  decode(bytes: Uint8Array, file: string): Promise<Image>;
}

/** Header facts of an image, its EXIF orientation included. */
export interface ImageInfo {
  format: ImageFormat;
  /** Size as stored in the file, before EXIF orientation. */
  storedWidth: number;
  storedHeight: number;
  /** EXIF orientation 1..8 (1 when absent or invalid; PNG is always 1). */
  orientation: number;
  /** Displayed size (after orientation; 5..8 swap width and height). */
  width: number;
  height: number;
}

type SharpFactory = (input?: Uint8Array | string, options?: SharpOptions) => Sharp;
let sharpModule: Promise<SharpFactory> | undefined;

/**
 * sharp itself, imported once, on first use (so a bundle loads where sharp is absent until an image
 * is touched); an install without its native parts is an `unavailable` error that says so. Every
 * user of sharp (images here, SOG's WebP textures) comes through this.
 */
export function loadSharp(): Promise<SharpFactory> {
  sharpModule ??= import('sharp').then(
    (m) => m.default as SharpFactory,
    (error: unknown) => {
      sharpModule = undefined;
      throw new ArgonautError('unavailable', `the image library (sharp) could not be loaded: ${error instanceof Error ? error.message : String(error)}`);
    },
  );
  return sharpModule;
}

/** The error for a codec failure. */
function codecFailure(file: string, format: ImageFormat, error: unknown): ArgonautError {
  const message = (error instanceof Error ? error.message : String(error)).trim().replace(/\s+/g, ' ');
  return badInput(file, `corrupt ${format === 'png' ? 'PNG' : 'JPEG'} data: ${message}`);
}

function sharpInput(sharp: SharpFactory, bytes: Uint8Array, header: ImageHeader, autoOrient: boolean): Sharp {
  // failOn 'error': libjpeg's warnings (extraneous bytes, a short restart interval) are common in
  // camera files whose pixels are fine; truncation is refused by image-headers.ts before this.
  return sharp(bytes.subarray(0, header.codecEnd), { failOn: 'error', limitInputPixels: MAX_IMAGE_PIXELS, ignoreIcc: true, autoOrient });
}

function orientationOf(metadata: Metadata): number {
  const o = metadata.orientation ?? 1;
  return Number.isInteger(o) && o >= 1 && o <= 8 ? o : 1;
}

/** Header checks, then sharp's metadata for the EXIF orientation (no pixels decoded). */
export async function inspectImageBytes(bytes: Uint8Array, file: string): Promise<ImageInfo> {
  const header = inspectImage(bytes, file);
  return infoOf(header, await readMetadata(bytes, header, file));
}

/** sharp's header read, from the bytes or (a probe, the bytes being a prefix) the file; PNG has no EXIF orientation. */
async function readMetadata(source: Uint8Array | string, header: ImageHeader, file: string): Promise<Metadata> {
  if (header.format === 'png') return {} as Metadata;
  const sharp = await loadSharp(); // outside the try: a missing library is not corrupt data
  try {
    const input = typeof source === 'string' ? sharp(source, { failOn: 'error', ignoreIcc: true }) : sharpInput(sharp, source, header, false);
    return await input.metadata();
  } catch (error) {
    throw codecFailure(file, header.format, error);
  }
}

function infoOf(header: ImageHeader, metadata: Metadata): ImageInfo {
  const orientation = header.format === 'png' ? 1 : orientationOf(metadata);
  const swap = orientation >= 5;
  return {
    format: header.format,
    storedWidth: header.storedWidth,
    storedHeight: header.storedHeight,
    orientation,
    width: swap ? header.storedHeight : header.storedWidth,
    height: swap ? header.storedWidth : header.storedHeight,
  };
}

/**
 * 16-bit samples -> 8-bit by rounding v * 255 / 65535 (libvips would shift right by 8, which
 * differs for about half the values: pngjs rounded, and the cached pixels must not change).
 */
function sixteenToEight(samples: Uint16Array): Uint8Array {
  const out = new Uint8Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = Math.floor((samples[i] * 255) / 65535 + 0.5);
  return out;
}

/** Decodes a whole file's bytes; every failure is a `bad_input` naming the file and the problem. */
export async function decodeImage(bytes: Uint8Array, file: string): Promise<Image> {
  const header = inspectImage(bytes, file);
  const sixteen = header.bitDepth === 16;
  const sharp = await loadSharp(); // outside the try: a missing library is not corrupt data
  let decoded: { data: Buffer; info: OutputInfo };
  try {
    decoded = await sharpInput(sharp, bytes, header, true)
      .toColourspace(sixteen ? 'rgb16' : 'srgb')
      .raw(sixteen ? { depth: 'ushort' } : {})
      .toBuffer({ resolveWithObject: true });
  } catch (error) {
    throw codecFailure(file, header.format, error);
  }
  const { width, height, channels } = decoded.info;
  const stored = `${header.storedWidth}x${header.storedHeight}`;
  if (`${width}x${height}` !== stored && `${height}x${width}` !== stored) {
    throw badInput(file, `corrupt image: the header says ${stored} but the data decodes to ${width}x${height}`);
  }
  if (channels !== 3 && channels !== 4) throw badInput(file, `unsupported image: decodes to ${channels} channels, expected RGB or RGBA`);
  const { data } = decoded;
  const pixels = sixteen
    ? sixteenToEight(new Uint16Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength)))
    : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return { width, height, channels, data: pixels };
}

export const imageDecoder: ImageDecoder = { decode: decodeImage };

/** 8-bit RGB or RGBA pixels -> PNG or JPEG bytes (JPEG drops alpha: the caller composited it). */
export async function encodeImage(format: ImageFormat, image: Image, jpegQuality = 95): Promise<Uint8Array> {
  const sharp = await loadSharp();
  const raw = sharp(image.data, { raw: { width: image.width, height: image.height, channels: image.channels } });
  // JPEG with full-resolution chroma, as jpeg-js wrote it (photos re-encoded for SfM and training
  // keep their colour edges); PNG at zlib level 9 with adaptive row filters, as pngjs wrote them
  // (the GPU machine's precomposited mic views are sized by it).
  const out = format === 'jpeg' ? raw.removeAlpha().jpeg({ quality: jpegQuality, chromaSubsampling: '4:4:4' }) : raw.png({ compressionLevel: 9, adaptiveFiltering: true });
  const buffer = await out.toBuffer();
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

/** Float images in [0, 1] to 8-bit RGB PNGs (renders, training photos for the viewer); 4 channels: alpha dropped. */
export async function encodePngRgb(values: Float32Array, width: number, height: number, channels: 3 | 4 = 4): Promise<Uint8Array> {
  const rgb = new Uint8Array(width * height * 3);
  for (let p = 0; p < width * height; p++) {
    for (let c = 0; c < 3; c++) rgb[3 * p + c] = Math.round(Math.min(1, Math.max(0, values[channels * p + c])) * 255);
  }
  return encodeImage('png', { width, height, channels: 3, data: rgb });
}

function fileError(file: string, error: unknown): ArgonautError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return badInput(file, 'image file not found');
  if (code === 'EISDIR') return badInput(file, 'is a folder, expected an image file');
  if (code === 'EACCES' || code === 'EPERM') return badInput(file, 'image file is not readable (permission denied)');
  return badInput(file, `cannot read image file: ${error instanceof Error ? error.message : String(error)}`);
}

export async function readImageBytes(file: string): Promise<Uint8Array> {
  try {
    const buffer = await readFile(file);
    return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  } catch (error) {
    throw fileError(file, error);
  }
}

export async function readImage(file: string, decoder: ImageDecoder = imageDecoder): Promise<Image> {
  return decoder.decode(await readImageBytes(file), file);
}

/** Bytes read for a size probe; a JPEG whose frame header lies further (big EXIF/ICC blocks) is read whole. */
const PROBE_BYTES = 64 * 1024;

/** Format and displayed size (after EXIF orientation) from the header alone. */
export async function probeImage(file: string): Promise<{ format: ImageFormat; width: number; height: number }> {
  let bytes: Uint8Array;
  let size: number;
  try {
    const handle = await open(file, 'r');
    try {
      size = (await handle.stat()).size;
      const buffer = Buffer.alloc(Math.min(size, PROBE_BYTES));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, bytesRead);
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw fileError(file, error);
  }
  const header = inspectImagePrefix(bytes, file, bytes.length === size) ?? inspectImage(await readImageBytes(file), file);
  const { format, width, height } = infoOf(header, await readMetadata(file, header, file));
  return { format, width, height };
}

/** Size and modification time of an image file, for cache keys; `bad_input` when it is missing. */
export async function imageFileStat(file: string): Promise<{ size: number; mtimeMs: number }> {
  try {
    const s = await stat(file);
    if (!s.isFile()) throw badInput(file, 'is not a regular file, expected an image file');
    return { size: s.size, mtimeMs: s.mtimeMs };
  } catch (error) {
    if (error instanceof ArgonautError) throw error;
    throw fileError(file, error);
  }
}
