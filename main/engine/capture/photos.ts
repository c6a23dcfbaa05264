/**
 * A folder of photos (JPEG, PNG) normalized into a capture's images/ folder: EXIF orientation baked
 * into the pixels (COLMAP reads stored pixels and ignores the tag, while our loaders apply it; the
 * two would disagree about the size), the long side limited to maxSize. A photo that needs neither
 * is copied byte for byte, so nothing is re-encoded without a reason. Mixed sizes and orientations
 * are fine: each photo gets its own COLMAP camera.
 *
 * Resumable: photos.json in the work folder records each source's size and mtime and the maxSize
 * used; a photo whose record and output are both present is skipped.
 */
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { ArgonautError, badInput } from '../../../shared/rpc/errors.js';
import { copyFileAtomic, writeFileAtomic } from '../formats/atomic-file.js';
import { downscaleArea, quantizeToBytes, type FloatImage } from '../formats/image-ops.js';
import { decodeImage, encodeImage, inspectImageBytes, type Image } from '../formats/images.js';
import { isFile } from '../dataset/source-view.js';

export interface PhotoRecord {
  source: string;
  size: number;
  mtimeMs: number;
  maxSize: number;
  /** What was done: copied as is, or re-encoded (orientation, resize). */
  action: 'copied' | 'reencoded';
  width: number;
  height: number;
}

export interface PhotoImportResult {
  /** File names written into the destination folder, sorted. */
  names: string[];
  skipped: string[];
  records: Record<string, PhotoRecord>;
  /** Photos left out because they could not be read, with the reason (the source stays as it is). */
  unreadable: { file: string; reason: string }[];
}

export const PHOTO_EXTENSIONS = new Set(['.jpg', '.jpeg', '.png']);
export const JPEG_QUALITY = 95;

/** The photos of a folder (not recursive), sorted by name. */
export async function listPhotos(folder: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(folder, { withFileTypes: true });
  } catch (error) {
    throw badInput(folder, `cannot read the photo folder (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  return entries
    .filter((e) => e.isFile() && PHOTO_EXTENSIONS.has(path.extname(e.name).toLowerCase()))
    .map((e) => e.name)
    .sort();
}

function toFloat(image: Image): FloatImage {
  return { width: image.width, height: image.height, channels: image.channels, data: Float32Array.from(image.data, (v) => v / 255) };
}

/** One photo into `dest`: copied when already upright and small enough, else re-encoded in its own format. */
export async function normalizePhoto(source: string, dest: string, maxSize: number): Promise<Pick<PhotoRecord, 'action' | 'width' | 'height'>> {
  const buffer = await readFile(source).catch((error: NodeJS.ErrnoException) => {
    throw badInput(source, `cannot read the photo (${error.code ?? error.message})`);
  });
  const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  const info = await inspectImageBytes(bytes, source);
  const { width, height } = info;
  if (info.orientation <= 1 && Math.max(width, height) <= maxSize) {
    await copyFileAtomic(source, dest);
    return { action: 'copied', width, height };
  }
  const image = await decodeImage(bytes, source); // orientation applied
  const factor = Math.max(image.width, image.height) / maxSize;
  let out: Image = image;
  if (factor > 1) {
    const small = downscaleArea(toFloat(image), factor);
    out = { width: small.width, height: small.height, channels: image.channels, data: quantizeToBytes(small.data) };
  }
  await writeFileAtomic(dest, await encodeImage(info.format, out, JPEG_QUALITY));
  return { action: 'reencoded', width: out.width, height: out.height };
}

export interface PhotoImportOptions {
  maxSize: number;
  /** The previous run's records (photos.json), to skip what is done. */
  previous?: Record<string, PhotoRecord>;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number, name: string) => void;
  onLog?: (level: 'info' | 'warn', message: string) => void;
}

/** Every photo of `folder` into `destDir` (which must exist); files there that are not photos of `folder` are removed. */
export async function importPhotos(folder: string, destDir: string, options: PhotoImportOptions): Promise<PhotoImportResult> {
  const names = await listPhotos(folder);
  if (names.length === 0) throw badInput(folder, 'no photos here (expected .jpg, .jpeg or .png files)');
  const records: Record<string, PhotoRecord> = {};
  const skipped: string[] = [];
  const kept: string[] = [];
  const unreadable: PhotoImportResult['unreadable'] = [];
  for (let i = 0; i < names.length; i++) {
    if (options.signal?.aborted) throw new ArgonautError('cancelled', 'cancelled');
    const name = names[i];
    const source = path.join(folder, name);
    const dest = path.join(destDir, name);
    const info = await stat(source);
    const before = options.previous?.[name];
    if (before && before.size === info.size && before.mtimeMs === info.mtimeMs && before.maxSize === options.maxSize && (await isFile(dest))) {
      records[name] = before;
      skipped.push(name);
    } else {
      try {
        const done = await normalizePhoto(source, dest, options.maxSize);
        records[name] = { source, size: info.size, mtimeMs: info.mtimeMs, maxSize: options.maxSize, ...done };
      } catch (error) {
        if (!(error instanceof ArgonautError) || error.code !== 'bad_input') throw error;
        options.onLog?.('warn', `skipping ${source}: ${error.message}`);
        unreadable.push({ file: source, reason: error.message });
        await rm(dest, { force: true });
        options.onProgress?.(i + 1, names.length, name);
        continue;
      }
    }
    kept.push(name);
    options.onProgress?.(i + 1, names.length, name);
  }
  const keep = new Set(kept);
  for (const entry of await readdir(destDir)) if (!keep.has(entry)) await rm(path.join(destDir, entry), { recursive: true, force: true });
  if (kept.length === 0) throw badInput(folder, 'none of the photos here could be read');
  return { names: kept, skipped, records, unreadable };
}
