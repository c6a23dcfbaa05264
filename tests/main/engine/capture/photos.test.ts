import { readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importPhotos } from '../../../../main/engine/capture/photos.js';
import { decodeImage, inspectImageBytes, probeImage } from '../../../../main/engine/formats/images.js';
import { tempDir } from '../../../helpers/datasets.js';
import { encodeJpeg, encodePng, withExifOrientation } from '../../../helpers/images.js';

const temps: string[] = [];
afterAll(async () => Promise.all(temps.map((t) => rm(t, { recursive: true, force: true }))));

/** RGBA with a red left half and a blue right half (flat 8x8 blocks survive JPEG). */
function halves(width: number, height: number): Uint8Array {
  const rgba = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) rgba.set(x < width / 2 ? [255, 0, 0, 255] : [0, 0, 255, 255], (y * width + x) * 4);
  return rgba;
}

async function photoFolder() {
  const dir = await tempDir('photos');
  temps.push(dir);
  const src = path.join(dir, 'src');
  await mkdir(src);
  // Stored 48x32 with "rotate 90 clockwise": displayed 32x48, the red half on top.
  await writeFile(path.join(src, 'a_rotated.jpg'), withExifOrientation(encodeJpeg(48, 32, halves(48, 32)), 6));
  await writeFile(path.join(src, 'b_big.jpg'), encodeJpeg(320, 160, halves(320, 160)));
  await writeFile(path.join(src, 'c_small.jpg'), encodeJpeg(64, 48, halves(64, 48)));
  await writeFile(path.join(src, 'd_wide.png'), encodePng({ width: 40, height: 16, colorType: 2, depth: 8, samples: Array.from({ length: 40 * 16 * 3 }, (_, i) => (i * 7) % 256) }));
  await writeFile(path.join(src, 'e_broken.jpg'), Buffer.from([0xff, 0xd8, 0xff, 0x00, 0x01]));
  await writeFile(path.join(src, 'notes.txt'), 'not a photo');
  const dest = path.join(dir, 'images');
  await mkdir(dest);
  return { src, dest };
}

describe('photo folders', () => {
  it('bakes EXIF orientation into the pixels, limits the size, copies what needs neither, skips unreadable files', async () => {
    const { src, dest } = await photoFolder();
    const warnings: string[] = [];
    const result = await importPhotos(src, dest, { maxSize: 100, onLog: (_, m) => warnings.push(m) });
    expect(result.names).toEqual(['a_rotated.jpg', 'b_big.jpg', 'c_small.jpg', 'd_wide.png']);
    expect(warnings.join('\n')).toMatch(/skipping .*e_broken\.jpg/);

    const rotated = await readFile(path.join(dest, 'a_rotated.jpg'));
    expect((await inspectImageBytes(new Uint8Array(rotated), 'a')).orientation).toBe(1); // no EXIF tag left to disagree with COLMAP
    const upright = await decodeImage(new Uint8Array(rotated), 'a');
    expect([upright.width, upright.height]).toEqual([32, 48]);
    const at = (x: number, y: number) => [...upright.data.subarray((y * 32 + x) * 3, (y * 32 + x) * 3 + 3)];
    expect(at(16, 4)[0]).toBeGreaterThan(200); // red on top
    expect(at(16, 44)[2]).toBeGreaterThan(200); // blue below
    expect(result.records['a_rotated.jpg']).toMatchObject({ action: 'reencoded', width: 32, height: 48 });

    expect(await probeImage(path.join(dest, 'b_big.jpg'))).toMatchObject({ width: 100, height: 50 });
    expect(result.records['b_big.jpg']).toMatchObject({ action: 'reencoded', width: 100, height: 50 });
    expect(Buffer.compare(await readFile(path.join(dest, 'c_small.jpg')), await readFile(path.join(src, 'c_small.jpg')))).toBe(0);
    expect(result.records['c_small.jpg'].action).toBe('copied');
    expect(await probeImage(path.join(dest, 'd_wide.png'))).toMatchObject({ format: 'png', width: 40, height: 16 });
  });

  it('resumes: photos already normalized with the same size limit are skipped', async () => {
    const { src, dest } = await photoFolder();
    const first = await importPhotos(src, dest, { maxSize: 100 });
    const second = await importPhotos(src, dest, { maxSize: 100, previous: first.records });
    expect(second.skipped).toEqual(first.names);
    const third = await importPhotos(src, dest, { maxSize: 60, previous: second.records });
    expect(third.skipped).toEqual([]); // another size limit: every photo is redone
    expect(await probeImage(path.join(dest, 'b_big.jpg'))).toMatchObject({ width: 60, height: 30 });
  });

  it('refuses a folder without photos, naming it', async () => {
    const dir = await tempDir('photos-empty');
    temps.push(dir);
    await expect(importPhotos(dir, dir, { maxSize: 100 })).rejects.toThrow(new RegExp(`${dir}: no photos here`));
  });
});
