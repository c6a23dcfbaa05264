import { describe, expect, it } from 'vitest';
import { toGrey, upsample2x } from '../../../../main/engine/sfm/grey-image.js';
import { freshSeed, rng } from '../../../helpers/random.js';

describe('grey images', () => {
  it("are Rec. 709 luma of the 8-bit values / 255, alpha ignored", () => {
    const rgba = { width: 2, height: 1, channels: 4 as const, data: Uint8Array.from([255, 0, 0, 7, 10, 200, 30, 255]) };
    const grey = toGrey(rgba);
    expect(grey.data[0]).toBeCloseTo(0.2126, 6);
    expect(grey.data[1]).toBeCloseTo((0.2126 * 10 + 0.7152 * 200 + 0.0722 * 30) / 255, 6);
    const rgb = toGrey({ width: 1, height: 1, channels: 3, data: Uint8Array.from([255, 255, 255]) });
    expect(rgb.data[0]).toBeCloseTo(1, 6);
  });

  it('upsample 2x: even pixels are the input, odd ones the mean of their neighbours, the last column and row repeat', () => {
    const image = { width: 3, height: 2, data: Float32Array.from([0, 1, 2, 4, 5, 6]) };
    const up = upsample2x(image);
    expect([up.width, up.height]).toEqual([6, 4]);
    expect(Array.from(up.data.subarray(0, 6))).toEqual([0, 0.5, 1, 1.5, 2, 2]);
    expect(Array.from(up.data.subarray(6, 12))).toEqual([2, 2.5, 3, 3.5, 4, 4]);
    expect(Array.from(up.data.subarray(18, 24))).toEqual([4, 4.5, 5, 5.5, 6, 6]);
  });

  it('upsample 2x gives the bits of the per-output bilinear formula on random images (odd and even sizes)', () => {
    const seed = freshSeed();
    const random = rng(seed);
    for (const [width, height] of [[37, 23], [16, 9], [1, 1]]) {
      const data = Float32Array.from({ length: width * height }, () => random());
      const up = upsample2x({ width, height, data });
      const at = (x: number, y: number) => data[Math.min(y, height - 1) * width + Math.min(x, width - 1)];
      const want = new Float32Array(4 * width * height);
      for (let y = 0; y < 2 * height; y++)
        for (let x = 0; x < 2 * width; x++) {
          const [fx, fy] = [x & 1 ? 0.5 : 0, y & 1 ? 0.5 : 0];
          const top = at(x >> 1, y >> 1) * (1 - fx) + at((x >> 1) + 1, y >> 1) * fx;
          const bottom = at(x >> 1, (y >> 1) + 1) * (1 - fx) + at((x >> 1) + 1, (y >> 1) + 1) * fx;
          want[y * 2 * width + x] = top * (1 - fy) + bottom * fy;
        }
      expect(Buffer.from(up.data.buffer).equals(Buffer.from(want.buffer)), `${width}x${height}, seed ${seed}`).toBe(true);
    }
  });
});
