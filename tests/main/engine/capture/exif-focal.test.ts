import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { focalFromExif, readExifFocal } from '../../../../main/engine/capture/exif-focal.js';
import { cleanedTempDirs } from '../../../helpers/datasets.js';

const tempDir = cleanedTempDirs(afterAll);

/** A 64 x 48 JPEG, with the EXIF given (sharp's withExif: IFD0 = the main directory, IFD2 = the Exif one). */
async function jpeg(exif?: Record<string, Record<string, string>>): Promise<Buffer> {
  const image = sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 120, g: 60, b: 30 } } }).jpeg();
  return (exif ? image.withExif(exif) : image).toBuffer();
}

describe("EXIF focal length, COLMAP 3.8's rule (Bitmap::ExifFocalLength)", () => {
  it('FocalLengthIn35mmFilm first: f35 / 35 x the long side, whichever side is long', () => {
    expect(focalFromExif({ FocalLengthIn35mmFilm: 28, FocalLength: 4.2 }, 4000, 3000)).toEqual({ focal: 3200, from: 'FocalLengthIn35mmFilm' });
    expect(focalFromExif({ FocalLengthIn35mmFilm: 28 }, 3000, 4000)!.focal).toBe(3200);
  });

  it('else FocalLength over the focal-plane sensor width (PixelXDimension / FocalPlaneXResolution, cm or inches), x the long side', () => {
    // 6000 px at 2000 px/cm: a 3 cm = 30 mm sensor; 50 mm -> 50 / 30 of the long side
    const cm = focalFromExif({ FocalLengthIn35mmFilm: 0, FocalLength: 50, PixelXDimension: 6000, FocalPlaneXResolution: 2000, FocalPlaneResolutionUnit: 3 }, 1500, 1000);
    expect(cm!.from).toBe('FocalLength and focal plane');
    expect(cm!.focal).toBeCloseTo((50 / 30) * 1500, 9);
    // 6000 px at 5080 px/inch: 1.1811 inches = 30 mm
    expect(focalFromExif({ FocalLength: 50, PixelXDimension: 6000, FocalPlaneXResolution: 5080, FocalPlaneResolutionUnit: 2 }, 1500, 1000)!.focal).toBeCloseTo((50 / 30) * 1500, 9);
  });

  it('nothing it can use: null (the caller guesses 1.2 x the long side, without a prior)', () => {
    expect(focalFromExif({}, 640, 480)).toBeNull();
    expect(focalFromExif({ FocalLength: 50 }, 640, 480)).toBeNull();
    // unit 1 (none) is not a length: COLMAP reads only cm and inches
    expect(focalFromExif({ FocalLength: 50, PixelXDimension: 6000, FocalPlaneXResolution: 2000, FocalPlaneResolutionUnit: 1 }, 640, 480)).toBeNull();
    expect(focalFromExif({ FocalLengthIn35mmFilm: -3, FocalLength: 0, PixelXDimension: 6000, FocalPlaneXResolution: 2000, FocalPlaneResolutionUnit: 3 }, 640, 480)).toBeNull();
  });

  it('reads a JPEG written with EXIF, and gives null for one without', async () => {
    const dir = await tempDir('exif-focal');
    const withExif = path.join(dir, 'with exif.jpg');
    const without = path.join(dir, 'without.jpg');
    const planeOnly = path.join(dir, 'plane.jpg');
    await writeFile(withExif, await jpeg({ IFD0: { Make: 'Argonaut', Model: 'Test' }, IFD2: { FocalLengthIn35mmFilm: '28', FocalLength: '50/1' } }));
    await writeFile(without, await jpeg());
    // libvips writes the image's own width as PixelXDimension (64): a 64 / 1000 cm = 0.64 mm sensor
    await writeFile(planeOnly, await jpeg({ IFD2: { FocalLength: '4/1', FocalPlaneXResolution: '1000/1', FocalPlaneResolutionUnit: '3' } }));
    expect(await readExifFocal(withExif, 64, 48)).toEqual({ focal: (28 / 35) * 64, from: 'FocalLengthIn35mmFilm' });
    expect(await readExifFocal(without, 64, 48)).toBeNull();
    const plane = await readExifFocal(planeOnly, 64, 48);
    expect(plane?.from).toBe('FocalLength and focal plane');
    expect(plane!.focal).toBeCloseTo((4 / 0.64) * 64, 6);
  });
});
