/**
 * Image files -> pixels. PNG (1-16 bit, grey, grey+alpha, RGB, RGBA, palette) and JPEG (baseline
 * and progressive), detected from the magic bytes, never the extension; JPEG EXIF orientation is
 * applied. The result is 8-bit RGB, or RGBA when the file has alpha.
 *
 * Decoding is split in three so that the decode pool runs the same code: `prepareImage` (header
 * checks, here), the codec (codecs.mjs, here or in a worker), `finishImage` (here). Every failure
 * is a `bad_input` that names the file and the problem.
 */
import { open, readFile, stat } from 'node:fs/promises';
import { ArgonautError, badInput } from '../../../shared/rpc/errors.js';
import { decodePixels, type CodecPixels } from './codecs.mjs';
import { inspectImage, inspectImagePrefix, orientedSize, type ImageFormat, type ImageHeader } from './image-headers.js';
import { applyOrientation } from './image-ops.js';

export interface Image {
  width: number;
  height: number;
  channels: 3 | 4;
  /** Row-major, interleaved, 8 bits per channel. */
  data: Uint8Array;
}

/** Turns a file's bytes into an Image. The main-thread decoder and the worker pool both implement it. */
export interface ImageDecoder {
  decode(bytes: Uint8Array, file: string): Promise<Image>;
}

export interface PreparedImage {
  header: ImageHeader;
  /** What the codec decodes (a view of the file's bytes). */
  codecBytes: Uint8Array;
}

export function prepareImage(bytes: Uint8Array, file: string): PreparedImage {
  const header = inspectImage(bytes, file);
  return { header, codecBytes: bytes.subarray(0, header.codecEnd) };
}

/** The error for a codec failure, worded the same whichever thread the codec ran on. */
export function codecFailure(file: string, format: ImageFormat, message: string): ArgonautError {
  return badInput(file, `corrupt ${format === 'png' ? 'PNG' : 'JPEG'} data: ${message}`);
}

export function finishImage(prepared: PreparedImage, pixels: CodecPixels, file: string): Image {
  const { header } = prepared;
  if (pixels.width !== header.storedWidth || pixels.height !== header.storedHeight) {
    throw badInput(file, `corrupt image: the header says ${header.storedWidth}x${header.storedHeight} but the data decodes to ${pixels.width}x${pixels.height}`);
  }
  return applyOrientation(pixels, header.orientation);
}

/** Runs the codec on this thread, mapping any library error to `bad_input`. */
export function runCodec(prepared: PreparedImage, file: string): CodecPixels {
  try {
    return decodePixels(prepared.header.format, prepared.codecBytes);
  } catch (error) {
    throw codecFailure(file, prepared.header.format, error instanceof Error ? error.message : String(error));
  }
}

/** Synchronous decode on the calling thread. */
export function decodeImage(bytes: Uint8Array, file: string): Image {
  const prepared = prepareImage(bytes, file);
  return finishImage(prepared, runCodec(prepared, file), file);
}

export const mainThreadDecoder: ImageDecoder = {
  decode: async (bytes, file) => decodeImage(bytes, file),
};

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

export async function readImage(file: string, decoder: ImageDecoder = mainThreadDecoder): Promise<Image> {
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
  return { format: header.format, ...orientedSize(header) };
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
