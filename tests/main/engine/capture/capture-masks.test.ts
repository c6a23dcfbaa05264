/**
 * Masks for captures from photos (capture-masks.ts): each photo's mask resized exactly as the
 * photo is (a pixel kept only where every photo pixel under it was), written to the dataset's
 * masks/ where COLMAP (--ImageReader.mask_path) and training find it; bad masks and video inputs
 * refused by name. With a fake COLMAP: no real SfM.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { captureToDataset } from '../../../../main/engine/capture/capture.js';
import { capturedMasksDir, checkCaptureMasks, importCaptureMasks } from '../../../../main/engine/capture/capture-masks.js';
import { importPhotos } from '../../../../main/engine/capture/photos.js';
import { loadDataset } from '../../../../main/engine/dataset/dataset.js';
import { decodeImage } from '../../../../main/engine/formats/images.js';
import { blockTexture, crop, pngOf } from '../../../helpers/capture.js';
import { cleanedTempDirs } from '../../../helpers/datasets.js';
import { writeFakeColmap } from '../../../helpers/fake-colmap.js';
import { freshSeed } from '../../../helpers/random.js';

const temp = cleanedTempDirs(afterAll);

/** A mask of `width` x `height`, 0 where `hidden(x, y)`, else 255 (grey as RGB). */
function maskPng(width: number, height: number, hidden: (x: number, y: number) => boolean): Uint8Array {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.fill(hidden(x, y) ? 0 : 255, 3 * (y * width + x), 3 * (y * width + x) + 3);
  return pngOf({ width, height, channels: 3, data });
}

/** Three photos (64x48 unless asked) and their masks (the left 21 columns hidden: not a multiple of a 2x downscale). */
async function photosWithMasks(width = 64, height = 48) {
  const dir = await temp('capture-masks');
  const texture = blockTexture(width + 100, height, 4, freshSeed());
  const photos = path.join(dir, 'shots');
  const masks = path.join(dir, 'shot-masks');
  await mkdir(photos);
  await mkdir(masks);
  const names = ['p0.png', 'p1.png', 'p2.png'];
  for (let i = 0; i < names.length; i++) {
    await writeFile(path.join(photos, names[i]), pngOf(crop(texture, 40 * i, 0, width, height)));
    // both of COLMAP's names are found: p0.png.png and p1.png (without the photo's extension)
    await writeFile(path.join(masks, i === 1 ? 'p1.png' : `${names[i]}.png`), maskPng(width, height, (x) => x < 21));
  }
  return { dir, photos, masks, names };
}

async function firstChannel(file: string) {
  const image = await decodeImage(new Uint8Array(await readFile(file)), file);
  return { width: image.width, height: image.height, at: (x: number, y: number) => image.data[(y * image.width + x) * image.channels] };
}

describe('capture masks', () => {
  it('resizes each mask exactly as its photo, keeping a pixel only where every photo pixel under it was kept', async () => {
    const { dir, photos, masks, names } = await photosWithMasks();
    const images = path.join(dir, 'images');
    await mkdir(images);
    const imported = await importPhotos(photos, images, { maxSize: 32 }); // 64x48 -> 32x24
    const dest = path.join(dir, 'out-masks');
    await importCaptureMasks(masks, photos, imported.names, imported.records, 32, dest);
    for (const name of names) {
      const mask = await firstChannel(path.join(dest, `${name}.png`));
      expect([mask.width, mask.height]).toEqual([imported.records[name].width, imported.records[name].height]);
      expect([mask.width, mask.height]).toEqual([32, 24]);
      // columns 0..9 cover photo columns 0..19 (hidden); column 10 covers 20 (hidden) and 21 (kept): hidden too
      for (let y = 0; y < 24; y++) {
        for (let x = 0; x < 32; x++) expect(mask.at(x, y), `${name} (${x}, ${y})`).toBe(x <= 10 ? 0 : 255);
      }
    }
  });

  it('refuses a missing mask and a mask of the wrong size, naming the folder and the photo, or the mask file', async () => {
    const { dir, photos, masks, names } = await photosWithMasks();
    const images = path.join(dir, 'images');
    await mkdir(images);
    const imported = await importPhotos(photos, images, { maxSize: 64 });
    await rm(path.join(masks, 'p1.png'));
    await expect(importCaptureMasks(masks, photos, names, imported.records, 64, path.join(dir, 'm1'))).rejects.toMatchObject({
      code: 'bad_input',
      message: expect.stringMatching(new RegExp(`^${masks}: the mask folder has no mask for 1 of 3 photos: p1\\.png \\(p1\\.png\\.png or p1\\.png\\)`)),
    });
    await writeFile(path.join(masks, 'p1.png'), maskPng(48, 64, () => false));
    await expect(importCaptureMasks(masks, photos, names, imported.records, 64, path.join(dir, 'm2'))).rejects.toMatchObject({
      code: 'bad_input',
      message: `${path.join(masks, 'p1.png')}: mask is 48x64 but its photo ${path.join(photos, 'p1.png')} is 64x48`,
    });
  });

  it('refuses masks with a video input (by name), with several inputs, and a mask folder that is not there', async () => {
    const dir = await temp('capture-masks-refused');
    await expect(checkCaptureMasks(dir, [{ path: '/clips/walk.mp4', kind: 'video' }])).rejects.toMatchObject({ code: 'bad_input', message: expect.stringMatching(/^\/clips\/walk\.mp4: masks are not supported for video inputs/) });
    await expect(checkCaptureMasks(dir, [{ path: '/a', kind: 'photos' }, { path: '/b', kind: 'photos' }])).rejects.toMatchObject({ code: 'bad_input', message: expect.stringContaining('--masks takes one photo folder (got 2 inputs') });
    await expect(checkCaptureMasks(path.join(dir, 'none'), [{ path: '/a', kind: 'photos' }])).rejects.toMatchObject({ code: 'bad_input', message: `${path.join(dir, 'none')}: mask folder not found` });
  });

  it.runIf(process.platform !== 'win32')('a capture carries them: the dataset has masks/, COLMAP gets its mask path, training finds every mask; a capture without them removes them', async () => {
    const { dir, photos, masks, names } = await photosWithMasks(100, 100); // the fake mapper's camera is 100x100
    const bin = path.join(dir, 'bin');
    await mkdir(bin);
    await writeFakeColmap(bin);
    const calls = path.join(dir, 'calls.jsonl');
    const env = { ...process.env, PATH: [bin, process.env.PATH].join(path.delimiter), FAKE_COLMAP_CALLS: calls };
    const out = path.join(dir, 'dataset');
    await captureToDataset([photos], out, { sfm: 'colmap', env, masks, maxSize: 100 });
    const masksDir = capturedMasksDir(out, 'shots');
    for (const name of names) expect((await firstChannel(path.join(masksDir, `${name}.png`))).at(0, 0)).toBe(0);
    const extractor = (await readFile(calls, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as string[]).find((c) => c[0] === 'feature_extractor' && !c.includes('--help'))!;
    expect(extractor[extractor.indexOf('--ImageReader.mask_path') + 1]).toBe(path.join(out, 'masks'));
    const dataset = await loadDataset(out);
    expect(dataset.views.map((v) => v.maskPath)).toEqual(names.map((n) => path.join(masksDir, `${n}.png`)));
    await captureToDataset([photos], out, { sfm: 'colmap', env, maxSize: 100 });
    expect((await loadDataset(out)).views.every((v) => v.maskPath === undefined)).toBe(true);
  });
});
