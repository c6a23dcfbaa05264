/**
 * On-disk cache of fully processed images (decoded, oriented, composited, undistorted, downscaled,
 * 8-bit), so that a reload costs a file read instead of a decode.
 *
 * One file per image, `<sha256(key)>.rgb8`: a 64-byte header (magic, version, size, channels,
 * the key's hash and a CRC-32 of the pixels) and the raw pixels. Any file that does not match its
 * header exactly (truncated, bit-flipped, another key, another version) is ignored and rebuilt.
 * Writes go to a temporary name and are renamed into place, so readers never see half a file.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import type { Image } from './images.js';

/** Bump when the pipeline's output for the same inputs changes: old files then stop matching. */
const CACHE_VERSION = 2; // 2: JPEGs decoded by libjpeg-turbo (sharp) instead of jpeg-js, which differ by a few levels
const MAGIC = 'ARGIMG\0\0';
const HEADER_BYTES = 64;

/** Everything the cached pixels depend on. */
export interface ImageCacheKey {
  absolutePath: string;
  size: number;
  mtimeMs: number;
  downscale: number;
  background: readonly number[] | null;
  /** Distortion model and parameters the image was undistorted with, or null. */
  undistortion: { model: string; params: readonly number[] } | null;
  /** The mask file the 4th channel came from. */
  mask?: { absolutePath: string; size: number; mtimeMs: number };
  /** What alpha became in the 4th channel ('mask' or 'coverage'; absent: composited only). */
  alpha?: string;
}

export function imageCacheKeyHash(key: ImageCacheKey): Buffer {
  const canonical = JSON.stringify([
    CACHE_VERSION,
    key.absolutePath,
    key.size,
    key.mtimeMs,
    key.downscale,
    key.background,
    // 'masked': undistorted images mark their invalid border (a 4th channel) since issue 14
    key.undistortion ? [key.undistortion.model, key.undistortion.params, 'masked'] : null,
    // appended only when set, so unmasked views keep their hashes
    ...(key.mask ? [['mask', key.mask.absolutePath, key.mask.size, key.mask.mtimeMs]] : []),
    ...(key.alpha ? [['alpha', key.alpha]] : []),
  ]);
  return createHash('sha256').update(canonical).digest();
}

function cacheFile(cacheDir: string, hash: Buffer): string {
  return path.join(cacheDir, `${hash.toString('hex')}.rgb8`);
}

/** The cached image for `key`, or null on a miss or an unusable file. */
export async function readCachedImage(cacheDir: string, key: ImageCacheKey): Promise<Image | null> {
  const hash = imageCacheKeyHash(key);
  let bytes: Buffer;
  try {
    bytes = await readFile(cacheFile(cacheDir, hash));
  } catch {
    return null; // a miss: absent or unreadable
  }
  if (bytes.length < HEADER_BYTES || bytes.toString('latin1', 0, 8) !== MAGIC) return null;
  const version = bytes.readUInt32LE(8);
  const width = bytes.readUInt32LE(12);
  const height = bytes.readUInt32LE(16);
  const channels = bytes.readUInt32LE(20);
  if (version !== CACHE_VERSION || (channels !== 3 && channels !== 4) || width < 1 || height < 1) return null;
  if (!bytes.subarray(24, 56).equals(hash)) return null;
  if (bytes.length !== HEADER_BYTES + width * height * channels) return null;
  const data = new Uint8Array(bytes.buffer, bytes.byteOffset + HEADER_BYTES, bytes.length - HEADER_BYTES);
  if (crc32(data) !== bytes.readUInt32LE(56)) return null;
  return { width, height, channels, data };
}

export async function writeCachedImage(cacheDir: string, key: ImageCacheKey, image: Image): Promise<void> {
  const hash = imageCacheKeyHash(key);
  const header = Buffer.alloc(HEADER_BYTES);
  header.write(MAGIC, 0, 'latin1');
  header.writeUInt32LE(CACHE_VERSION, 8);
  header.writeUInt32LE(image.width, 12);
  header.writeUInt32LE(image.height, 16);
  header.writeUInt32LE(image.channels, 20);
  hash.copy(header, 24);
  header.writeUInt32LE(crc32(image.data), 56);
  await mkdir(cacheDir, { recursive: true });
  const target = cacheFile(cacheDir, hash);
  const temp = `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temp, Buffer.concat([header, image.data]));
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** Where caches go when the dataset folder must not be written. */
export function fallbackCacheDir(): string {
  return path.join(os.tmpdir(), 'argonaut-cache');
}

/**
 * Whether we may create files in `dir`. The permission bits decide, even for root (who could write
 * anyway): a dataset someone marked read-only is never written into. Then a real probe file, for
 * read-only mounts and ACLs the bits do not show.
 */
export async function isWritableFolder(dir: string): Promise<boolean> {
  try {
    const s = await stat(dir);
    if (!s.isDirectory()) return false;
    const uid = process.getuid?.() ?? -1;
    const gid = process.getgid?.() ?? -1;
    const bits = uid === s.uid || uid === 0 ? 0o200 : gid === s.gid ? 0o020 : 0o002;
    if ((s.mode & bits) === 0) return false;
    const probe = path.join(dir, `.argonaut-write-probe-${process.pid}-${randomBytes(4).toString('hex')}`);
    await writeFile(probe, '');
    await rm(probe, { force: true });
    return true;
  } catch {
    return false;
  }
}

/**
 * `<dataset>/.argonaut-cache` when the dataset folder may be written (or that cache folder already
 * exists and may be), otherwise os.tmpdir()/argonaut-cache.
 */
export async function resolveCacheDir(datasetRoot: string): Promise<string> {
  const inDataset = path.join(path.resolve(datasetRoot), '.argonaut-cache');
  if (await isWritableFolder(inDataset)) return inDataset;
  if (await isWritableFolder(path.resolve(datasetRoot))) return inDataset;
  return fallbackCacheDir();
}
