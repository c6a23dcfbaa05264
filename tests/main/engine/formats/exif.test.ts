import { describe, expect, it } from 'vitest';
import { decodeImage, inspectImageBytes, type Image } from '../../../../main/engine/formats/images.js';
import { applyOrientation, encodeJpeg, exifApp1, sameImage, withExifOrientation, withApp1 } from '../../../helpers/images.js';

/**
 * A 32x16 stored image of four flat 8x8-aligned blocks per row of quadrants: top-left red,
 * top-right green, bottom-left blue, bottom-right white. Flat 8x8 blocks survive JPEG almost exactly.
 */
const W = 32;
const H = 16;
const COLORS = { red: [255, 0, 0], green: [0, 255, 0], blue: [0, 0, 255], white: [255, 255, 255] } as const;
type Color = keyof typeof COLORS;
function stored(): Uint8Array {
  const rgba = new Uint8Array(W * H * 4);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const c: Color = y < H / 2 ? (x < W / 2 ? 'red' : 'green') : x < W / 2 ? 'blue' : 'white';
      rgba.set([...COLORS[c], 255], (y * W + x) * 4);
    }
  }
  return rgba;
}

function colorAt(image: Image, x: number, y: number): Color {
  const i = (y * image.width + x) * image.channels;
  const px = [image.data[i], image.data[i + 1], image.data[i + 2]];
  const match = (Object.keys(COLORS) as Color[]).find((c) => COLORS[c].every((v, k) => Math.abs(v - px[k]) < 40));
  if (!match) throw new Error(`unexpected colour ${px} at ${x},${y}`);
  return match;
}

/** Displayed corners (top-left, top-right, bottom-left, bottom-right) per EXIF orientation (TIFF 6.0). */
const EXPECTED: Record<number, { size: [number, number]; corners: Color[] }> = {
  1: { size: [32, 16], corners: ['red', 'green', 'blue', 'white'] },
  2: { size: [32, 16], corners: ['green', 'red', 'white', 'blue'] }, // mirrored horizontally
  3: { size: [32, 16], corners: ['white', 'blue', 'green', 'red'] }, // rotated 180
  4: { size: [32, 16], corners: ['blue', 'white', 'red', 'green'] }, // mirrored vertically
  5: { size: [16, 32], corners: ['red', 'blue', 'green', 'white'] }, // transposed
  6: { size: [16, 32], corners: ['blue', 'red', 'white', 'green'] }, // rotated 90 clockwise
  7: { size: [16, 32], corners: ['white', 'green', 'blue', 'red'] }, // transversed
  8: { size: [16, 32], corners: ['green', 'white', 'red', 'blue'] }, // rotated 90 counter-clockwise
};

function corners(image: Image): Color[] {
  const [w, h] = [image.width, image.height];
  return [colorAt(image, 1, 1), colorAt(image, w - 2, 1), colorAt(image, 1, h - 2), colorAt(image, w - 2, h - 2)];
}

describe('EXIF orientation', () => {
  const jpeg = encodeJpeg(W, H, stored(), 95);

  for (const orientation of [1, 2, 3, 4, 5, 6, 7, 8]) {
    it(`orientation ${orientation} (big and little endian EXIF) shows the stored image as the camera saw it`, async () => {
      for (const little of [false, true]) {
        const file = withExifOrientation(jpeg, orientation, little);
        const image = await decodeImage(file, `o${orientation}.jpg`);
        expect(await inspectImageBytes(file, `o${orientation}.jpg`)).toMatchObject({ orientation, width: image.width, height: image.height });
        expect([image.width, image.height]).toEqual(EXPECTED[orientation].size);
        expect(corners(image)).toEqual(EXPECTED[orientation].corners);
      }
    });
  }

  it('a JPEG without EXIF is shown as stored', async () => {
    expect(corners(await decodeImage(jpeg, 'plain.jpg'))).toEqual(EXPECTED[1].corners);
  });

  it('orientation moves every pixel exactly as the tests\' applyOrientation (the same stored JPEG data, permuted)', async () => {
    const asStored = await decodeImage(jpeg, 'plain.jpg');
    for (const orientation of [2, 3, 4, 5, 6, 7, 8]) {
      const shown = await decodeImage(withExifOrientation(jpeg, orientation), `o${orientation}.jpg`);
      expect(sameImage(shown, applyOrientation(asStored, orientation)), `orientation ${orientation}`).toBe(true);
    }
  });

  it('applyOrientation (the tests\' reference) moves every pixel, not only the corners (6 then 8 is the identity)', () => {
    const image: Image = { width: 3, height: 2, channels: 3, data: Uint8Array.from({ length: 18 }, (_, i) => i) };
    const rotated = applyOrientation(image, 6);
    expect([rotated.width, rotated.height]).toEqual([2, 3]);
    // Stored row 0 (pixels 0,1,2) becomes the right column, top to bottom.
    expect([...rotated.data.subarray(3, 6)]).toEqual([0, 1, 2]);
    const back = applyOrientation(rotated, 8);
    expect([...back.data]).toEqual([...image.data]);
    expect([back.width, back.height]).toEqual([3, 2]);
  });

  it('malformed or out-of-range EXIF means no orientation, not an error', async () => {
    const good = exifApp1(6);
    expect((await inspectImageBytes(withApp1(jpeg, good), 'six.jpg')).orientation).toBe(6);
    const bad = good.slice();
    bad[6 + 18 + 1] = 9; // orientation 9 (big endian low byte)
    const notExif = good.slice();
    notExif[0] = 0x41;
    const cases: [string, Uint8Array][] = [['cut.jpg', withApp1(jpeg, good.subarray(0, 20))], ['nine.jpg', withApp1(jpeg, bad)], ['notexif.jpg', withApp1(jpeg, notExif)], ['zero.jpg', withExifOrientation(jpeg, 0)]];
    for (const [name, file] of cases) {
      expect((await inspectImageBytes(file, name)).orientation, name).toBe(1);
      expect(corners(await decodeImage(file, name)), name).toEqual(EXPECTED[1].corners);
    }
  });
});
