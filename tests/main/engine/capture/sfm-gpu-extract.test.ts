/**
 * extractIntoDatabase (capture --features gpu's first stage) without COLMAP: a photo's EXIF focal
 * becomes its camera's with prior_focal_length = 1, a photo without gets COLMAP's guess; a mask
 * keeps keypoints off its zero pixels; names with spaces are stored as they are.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { mappingInputOf } from '../../../../main/engine/capture/sfm-argonaut-input.js';
import { extractIntoDatabase } from '../../../../main/engine/capture/sfm-gpu.js';
import { readColmapDatabase } from '../../../../main/engine/sfm/colmap-database.js';
import { cleanedTempDirs } from '../../../helpers/datasets.js';
import { testGpu } from '../../../helpers/gpu.js';
import { freshSeed, rng } from '../../../helpers/random.js';
import { blobImage } from '../sfm/sift-images.js';

const tempDir = cleanedTempDirs(afterAll);
const W = 240;
const H = 160;

async function photo(file: string, seed: number, exif?: Record<string, Record<string, string>>, width = W, height = H): Promise<void> {
  const grey = blobImage(width, height, rng(seed));
  const raw = Buffer.from(Uint8Array.from(grey.data, (v) => Math.round(v * 255)));
  const image = sharp(raw, { raw: { width, height, channels: 1 } }).toColourspace('srgb').jpeg({ quality: 95 });
  await writeFile(file, await (exif ? image.withExif(exif) : image).toBuffer());
}

describe('capture --features gpu: extraction into the database', () => {
  it('EXIF focal with a prior, COLMAP guess without; masks drop keypoints on zero pixels; names with spaces kept', async () => {
    const seed = freshSeed();
    const dir = await tempDir('sfm-gpu-extract');
    const imagesDir = path.join(dir, 'images');
    const maskDir = path.join(dir, 'masks');
    await mkdir(path.join(imagesDir, 'my photos'), { recursive: true });
    await mkdir(path.join(maskDir, 'my photos'), { recursive: true });
    const names = ['my photos/with exif.jpg', 'my photos/no exif.jpg'];
    await photo(path.join(imagesDir, names[0]), seed, { IFD2: { FocalLengthIn35mmFilm: '28' } });
    await photo(path.join(imagesDir, names[1]), seed + 1);
    // the second photo's left half is masked (0); the first has no mask file: no mask, as COLMAP
    const mask = Buffer.alloc(W * H);
    for (let y = 0; y < H; y++) mask.fill(255, y * W + W / 2, (y + 1) * W);
    await writeFile(path.join(maskDir, `${names[1]}.png`), await sharp(mask, { raw: { width: W, height: H, channels: 1 } }).png().toBuffer());
    const database = path.join(dir, 'database.db');
    const ctx = await testGpu();
    const result = await extractIntoDatabase(database, imagesDir, [{ name: 'my photos', kind: 'photos', images: names }], { gpu: ctx, cameraModel: 'SIMPLE_RADIAL', maxFeatures: 8192, maskDir });
    const db = await readColmapDatabase(database);
    expect(db.images.map((im) => im.name)).toEqual(names);
    expect(db.cameras.map((c) => [c.width, c.height, c.params[0], c.priorFocalLength])).toEqual([
      [W, H, (28 / 35) * W, true],
      [W, H, 1.2 * W, false],
    ]);
    expect(Array.from(db.cameras[0].params)).toEqual([(28 / 35) * W, W / 2, H / 2, 0]);
    const xs = (k: Float32Array) => Array.from({ length: k.length / 4 }, (_, i) => k[4 * i]);
    expect(xs(db.images[0]!.keypoints).filter((x) => x < W / 2).length, `seed ${seed}`).toBeGreaterThan(20);
    const masked = xs(db.images[1]!.keypoints);
    expect(masked.length, `seed ${seed}`).toBeGreaterThan(20);
    expect(masked.every((x) => Math.floor(x) >= W / 2), `seed ${seed}`).toBe(true);
    expect(result.features[names[1]]).toBe(masked.length);
  }, 120_000);

  it('photos of one size and one EXIF camera share a camera; another size, focal, make or model is another camera; the mapper gets one object per camera', async () => {
    const seed = freshSeed();
    const dir = await tempDir('sfm-gpu-camera-groups');
    const imagesDir = path.join(dir, 'images');
    await mkdir(path.join(imagesDir, 'p'), { recursive: true });
    const canon = { IFD0: { Make: 'Canon', Model: 'EOS 80D' }, IFD2: { FocalLengthIn35mmFilm: '28' } };
    const photos: [string, Record<string, Record<string, string>> | undefined, number][] = [
      ['p/a.jpg', undefined, W],
      ['p/b.jpg', undefined, W], // a's camera: same size, no EXIF
      ['p/c.jpg', canon, W],
      ['p/d.jpg', { ...canon, IFD0: { Make: 'Canon', Model: 'EOS 90D' } }, W], // another model
      ['p/e.jpg', canon, W], // c's camera
      ['p/f.jpg', { ...canon, IFD2: { FocalLengthIn35mmFilm: '50' } }, W], // another focal
      ['p/g.jpg', undefined, W + 16], // another size
    ];
    for (const [k, [name, exif, width]] of photos.entries()) await photo(path.join(imagesDir, name), seed + k, exif, width);
    const database = path.join(dir, 'database.db');
    const ctx = await testGpu();
    await extractIntoDatabase(database, imagesDir, [{ name: 'p', kind: 'photos', images: photos.map(([name]) => name) }], { gpu: ctx, cameraModel: 'SIMPLE_RADIAL', maxFeatures: 200 });
    const db = await readColmapDatabase(database);
    expect(db.images.map((im) => im.cameraId)).toEqual([1, 1, 2, 3, 2, 4, 5]);
    expect(db.cameras.map((c) => [c.width, c.params[0], c.priorFocalLength])).toEqual([
      [W, 1.2 * W, false],
      [W, (28 / 35) * W, true],
      [W, (28 / 35) * W, true],
      [W, (50 / 35) * W, true],
      [W + 16, 1.2 * (W + 16), false],
    ]);
    // what our mapper takes: one object per database camera, shared by its images
    const { cameras } = mappingInputOf(db, database);
    expect(cameras[0]).toBe(cameras[1]);
    expect(cameras[2]).toBe(cameras[4]);
    expect(new Set(cameras).size).toBe(5);
    expect(cameras[2]).toEqual({ focalX: (28 / 35) * W, focalY: (28 / 35) * W, principalX: W / 2, principalY: H / 2 });
  }, 120_000);

  it('a mask of another size is refused naming its file', async () => {
    const dir = await tempDir('sfm-gpu-extract');
    await mkdir(path.join(dir, 'images', 'p'), { recursive: true });
    await mkdir(path.join(dir, 'masks', 'p'), { recursive: true });
    await photo(path.join(dir, 'images', 'p', 'a.jpg'), freshSeed());
    const maskFile = path.join(dir, 'masks', 'p', 'a.jpg.png');
    await writeFile(maskFile, await sharp(Buffer.alloc(10 * 10, 255), { raw: { width: 10, height: 10, channels: 1 } }).png().toBuffer());
    const ctx = await testGpu();
    const run = extractIntoDatabase(path.join(dir, 'database.db'), path.join(dir, 'images'), [{ name: 'p', kind: 'photos', images: ['p/a.jpg'] }], { gpu: ctx, cameraModel: 'SIMPLE_RADIAL', maxFeatures: 100, maskDir: path.join(dir, 'masks') });
    await expect(run).rejects.toThrow(`${maskFile}: mask is 10x10 but its image is ${W}x${H}`);
  });
});
