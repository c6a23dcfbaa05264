import { describe, expect, it } from 'vitest';
import { toGrey, upsample2x } from '../../../../main/engine/sfm/grey-image.js';

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
});
