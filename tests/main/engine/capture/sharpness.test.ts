import { describe, expect, it } from 'vitest';
import { laplacianVariance, meanAbsDifference, resizeGreyArea, thumbnail, toGrey, type GreyImage } from '../../../../main/engine/capture/sharpness.js';
import { blockTexture, boxBlur } from '../../../helpers/capture.js';
import { freshSeed } from '../../../helpers/random.js';

function grey(width: number, height: number, f: (x: number, y: number) => number): GreyImage {
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data[y * width + x] = f(x, y);
  return { width, height, data };
}

describe('variance of the Laplacian', () => {
  it('is zero on flat and linear images (the Laplacian of a plane is zero)', () => {
    expect(laplacianVariance(grey(16, 12, () => 90))).toBe(0);
    expect(laplacianVariance(grey(16, 12, (x, y) => 3 * x + 2 * y))).toBe(0);
  });

  it('matches a hand computation on a checkerboard: every interior response is +-4 x 100', () => {
    // 0/100 checkerboard: the 4-neighbour Laplacian is +400 on 0-cells and -400 on 100-cells, mean ~0.
    const image = grey(10, 10, (x, y) => ((x + y) % 2 ? 100 : 0));
    expect(laplacianVariance(image)).toBeCloseTo(400 * 400, 6);
  });

  it('drops by more than 5x when a textured image is box-blurred (radius 2)', () => {
    const seed = freshSeed();
    const sharp = blockTexture(96, 64, 3, seed);
    const blurred = boxBlur(sharp, 2);
    const ratio = laplacianVariance(toGrey(sharp)) / laplacianVariance(toGrey(blurred));
    expect(ratio, `seed ${seed}`).toBeGreaterThan(5);
  });
});

describe('thumbnails and duplicate distance', () => {
  it('area-averages exactly: a 4x2 image to 2x1 is the mean of each 2x2 block', () => {
    const image = { width: 4, height: 2, data: Uint8Array.from([0, 10, 20, 30, 40, 50, 60, 70]) };
    expect([...resizeGreyArea(image, 2, 1)]).toEqual([25, 45]);
  });

  it('keeps the aspect ratio with a 32-pixel long side', () => {
    const t = thumbnail(grey(480, 270, (x) => x % 256));
    expect([t.width, t.height]).toEqual([32, 18]);
  });

  it('measures the mean absolute difference in grey levels; different sizes never match', () => {
    const a = grey(4, 4, () => 10);
    const b = grey(4, 4, (x) => (x === 0 ? 14 : 10));
    expect(meanAbsDifference(a, a)).toBe(0);
    expect(meanAbsDifference(a, b)).toBe(1); // 4 pixels of 16 differ by 4
    expect(meanAbsDifference(a, grey(4, 3, () => 10))).toBe(Infinity);
  });
});
