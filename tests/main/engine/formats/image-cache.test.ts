import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fallbackCacheDir,
  imageCacheKeyHash,
  isWritableFolder,
  readCachedImage,
  resolveCacheDir,
  writeCachedImage,
  type ImageCacheKey,
} from '../../../../main/engine/formats/image-cache.js';
import type { Image } from '../../../../main/engine/formats/images.js';
import { sharedDataset } from '../../../helpers/shared-data.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'argonaut-cache-test-'));
});
afterAll(async () => {
  await chmod(dir, 0o755).catch(() => {});
  await rm(dir, { recursive: true, force: true });
});

const key: ImageCacheKey = {
  absolutePath: '/data/scene/images/a.jpg',
  size: 1234,
  mtimeMs: 1700000000000.5,
  downscale: 2,
  background: [1, 1, 1],
  undistortion: { model: 'SIMPLE_RADIAL', params: [100, 50, 40, -0.1] },
};
const image: Image = { width: 3, height: 2, channels: 3, data: Uint8Array.from({ length: 18 }, (_, i) => i * 13) };

async function onlyCacheFile(cacheDir: string): Promise<string> {
  const files = (await readdir(cacheDir)).filter((f) => f.endsWith('.rgb8'));
  expect(files).toHaveLength(1);
  return path.join(cacheDir, files[0]);
}

describe('decoded-image cache', () => {
  it('returns exactly the bytes written, and leaves no temporary file', async () => {
    const cacheDir = path.join(dir, 'roundtrip');
    await writeCachedImage(cacheDir, key, image);
    const hit = await readCachedImage(cacheDir, key);
    expect(hit).toEqual({ width: 3, height: 2, channels: 3, data: image.data });
    expect((await readdir(cacheDir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('misses when any part of the key changes', async () => {
    const cacheDir = path.join(dir, 'keys');
    await writeCachedImage(cacheDir, key, image);
    const variants: Partial<ImageCacheKey>[] = [
      { absolutePath: '/data/scene/images/b.jpg' },
      { size: 1235 },
      { mtimeMs: 1700000000001 },
      { downscale: 2.5 },
      { background: [0, 0, 0] },
      { undistortion: null },
      { undistortion: { model: 'SIMPLE_RADIAL', params: [100, 50, 40, -0.2] } },
    ];
    for (const change of variants) {
      expect(imageCacheKeyHash({ ...key, ...change }).equals(imageCacheKeyHash(key))).toBe(false);
      expect(await readCachedImage(cacheDir, { ...key, ...change })).toBeNull();
    }
    expect(await readCachedImage(cacheDir, { ...key })).not.toBeNull();
  });

  it('ignores truncated, bit-flipped, foreign and empty files, and a rewrite repairs them', async () => {
    const cacheDir = path.join(dir, 'corrupt');
    await writeCachedImage(cacheDir, key, image);
    const file = await onlyCacheFile(cacheDir);
    const good = await readFile(file);
    const damaged: Buffer[] = [
      good.subarray(0, good.length - 1), // truncated pixels
      good.subarray(0, 30), // truncated header
      Buffer.alloc(0),
      Buffer.concat([good, Buffer.from([0])]), // trailing byte
      Buffer.from(good.map((b, i) => (i === good.length - 3 ? b ^ 0x10 : b))), // a pixel bit flipped
      Buffer.from(good.map((b, i) => (i === 0 ? b ^ 0x20 : b))), // wrong magic
      Buffer.from(good.map((b, i) => (i === 12 ? b + 1 : b))), // wrong width
      Buffer.from(good.map((b, i) => (i === 30 ? b ^ 1 : b))), // another key's hash
    ];
    for (const bytes of damaged) {
      await writeFile(file, bytes);
      expect(await readCachedImage(cacheDir, key)).toBeNull();
    }
    await writeCachedImage(cacheDir, key, image);
    expect((await readCachedImage(cacheDir, key))?.data).toEqual(image.data);
  });

  it('is a miss, not an error, when the folder does not exist', async () => {
    expect(await readCachedImage(path.join(dir, 'never-created'), key)).toBeNull();
  });
});

describe('cache folder choice', () => {
  it('uses <dataset>/.argonaut-cache when the dataset folder is writable', async () => {
    const dataset = path.join(dir, 'writable-dataset');
    await mkdir(dataset);
    expect(await resolveCacheDir(dataset)).toBe(path.join(dataset, '.argonaut-cache'));
    // The write probe leaves nothing behind.
    expect(await readdir(dataset)).toEqual([]);
  });

  it('falls back to os.tmpdir()/argonaut-cache for a folder marked read-only, even when running as root', async () => {
    const dataset = path.join(dir, 'read-only-dataset');
    await mkdir(dataset);
    await chmod(dataset, 0o555);
    try {
      expect(await isWritableFolder(dataset)).toBe(false);
      expect(await resolveCacheDir(dataset)).toBe(fallbackCacheDir());
      expect(await readdir(dataset)).toEqual([]);
    } finally {
      await chmod(dataset, 0o755);
    }
  });

  const statue = sharedDataset('colmap_statue');
  it.runIf(statue.available)('never writes into the shared (read-only) test data', async () => {
    const before = await readdir(statue.dir);
    expect(await resolveCacheDir(statue.dir)).toBe(fallbackCacheDir());
    expect(await readdir(statue.dir)).toEqual(before);
  });
});
