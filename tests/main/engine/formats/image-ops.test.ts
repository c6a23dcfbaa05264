import { describe, expect, it } from 'vitest';
import {
  bytesToUnit,
  compositeToBytes,
  compositeToRgb,
  downscaleArea,
  downscaledSize,
  quantizeToBytes,
  type FloatImage,
} from '../../../../main/engine/formats/image-ops.js';
import { freshSeed, rng } from '../../../helpers/random.js';

function grey(width: number, height: number, values: number[]): FloatImage {
  return { width, height, channels: 1, data: Float32Array.from(values) };
}

/**
 * Reference area average by brute force: integrate the input over each output cell on a fine grid
 * of `sub` samples per input pixel (exact when the cell edges fall on the grid).
 */
function areaAverageReference(image: FloatImage, outW: number, outH: number, sub: number): number[] {
  const out: number[] = [];
  const rx = image.width / outW;
  const ry = image.height / outH;
  for (let oy = 0; oy < outH; oy++) {
    for (let ox = 0; ox < outW; ox++) {
      let sum = 0;
      let n = 0;
      for (let sy = Math.round(oy * ry * sub); sy < Math.round((oy + 1) * ry * sub); sy++) {
        for (let sx = Math.round(ox * rx * sub); sx < Math.round((ox + 1) * rx * sub); sx++) {
          sum += image.data[Math.floor(sy / sub) * image.width + Math.floor(sx / sub)];
          n++;
        }
      }
      out.push(sum / n);
    }
  }
  return out;
}

describe('area-averaging downscale', () => {
  it('output size is round(W / F) x round(H / F)', () => {
    expect(downscaledSize(1000, 658, 2)).toEqual({ width: 500, height: 329 });
    expect(downscaledSize(1000, 657, 2)).toEqual({ width: 500, height: 329 }); // 328.5 rounds up
    expect(downscaledSize(800, 800, 3)).toEqual({ width: 267, height: 267 });
    expect(downscaledSize(3, 3, 1.5)).toEqual({ width: 2, height: 2 });
  });

  it('factor 2 is the mean of each 2x2 block', () => {
    const image = grey(4, 2, [0, 4, 8, 12, 2, 6, 10, 14]);
    const out = downscaleArea(image, 2);
    expect([out.width, out.height]).toEqual([2, 1]);
    expect([...out.data]).toEqual([3, 11]);
  });

  it('factor 1.5 on 3x3 weights pixels by the fraction of them each output cell covers', () => {
    // Per axis, cell 0 covers [0, 1.5): pixel 0 fully, pixel 1 half -> weights 2/3, 1/3.
    const image = grey(3, 3, [9, 0, 0, 0, 0, 0, 0, 0, 0]);
    const out = downscaleArea(image, 1.5);
    expect(out.data[0]).toBeCloseTo(9 * (2 / 3) * (2 / 3), 6);
    expect(out.data[1]).toBeCloseTo(0, 6);
    const centre = downscaleArea(grey(3, 3, [0, 0, 0, 0, 9, 0, 0, 0, 0]), 1.5);
    for (const v of centre.data) expect(v).toBeCloseTo(9 * (1 / 3) * (1 / 3), 6);
  });

  const seed = freshSeed();
  it(`matches a brute-force area integral for random images and factors (seed ${seed})`, () => {
    const random = rng(seed);
    for (const [w, h, factor, sub] of [[10, 5, 2.5, 2], [12, 9, 1.5, 2], [9, 6, 3, 1], [15, 10, 1.25, 4], [12, 9, 2.4, 20], [7, 5, 7, 1]] as const) {
      const image = grey(w, h, Array.from({ length: w * h }, () => random()));
      const out = downscaleArea(image, factor);
      const reference = areaAverageReference(image, out.width, out.height, sub);
      // Only meaningful when the cell edges fall on the sub-sample grid.
      expect((w / out.width) * sub).toBeCloseTo(Math.round((w / out.width) * sub), 9);
      expect((h / out.height) * sub).toBeCloseTo(Math.round((h / out.height) * sub), 9);
      out.data.forEach((v, i) => expect(v).toBeCloseTo(reference[i], 5));
    }
  });

  it(`preserves the mean and constant images at any factor (seed ${seed})`, () => {
    const random = rng(seed ^ 0x5bd1e995);
    const w = 37;
    const h = 23;
    const rgb: FloatImage = { width: w, height: h, channels: 3, data: Float32Array.from({ length: w * h * 3 }, () => random()) };
    for (const factor of [1.1, 1.7, 2, 3.3, 5]) {
      const out = downscaleArea(rgb, factor);
      // The output tiles the input exactly, so the mean of every channel is preserved.
      for (let k = 0; k < 3; k++) {
        let inSum = 0;
        let outSum = 0;
        for (let i = k; i < rgb.data.length; i += 3) inSum += rgb.data[i];
        for (let i = k; i < out.data.length; i += 3) outSum += out.data[i];
        expect(outSum / (out.width * out.height)).toBeCloseTo(inSum / (w * h), 5);
      }
      const flat = downscaleArea({ width: w, height: h, channels: 1, data: new Float32Array(w * h).fill(0.25) }, factor);
      for (const v of flat.data) expect(v).toBeCloseTo(0.25, 6);
    }
  });

  it('factor 1 returns the image unchanged; factors below 1 are refused', () => {
    const image = grey(2, 2, [1, 2, 3, 4]);
    expect(downscaleArea(image, 1)).toBe(image);
    expect(() => downscaleArea(image, 0.5)).toThrow(/>= 1/);
    expect(() => downscaleArea(image, NaN)).toThrow(/>= 1/);
  });
});

describe('compositing and quantization', () => {
  it('RGBA over a background uses straight alpha: c * a + bg * (1 - a)', () => {
    const data = Uint8Array.from([255, 0, 0, 255, 255, 0, 0, 0, 0, 0, 255, 51]);
    const out = compositeToRgb({ width: 3, height: 1, channels: 4, data }, [1, 1, 1]);
    expect([...out.data.subarray(0, 3)]).toEqual([1, 0, 0]); // opaque: the pixel
    expect([...out.data.subarray(3, 6)]).toEqual([1, 1, 1]); // transparent: the background
    const a = 51 / 255;
    [0 * a + (1 - a), 0 * a + (1 - a), 1 * a + (1 - a)].forEach((v, k) => expect(out.data[6 + k]).toBeCloseTo(v, 6));
    const overBlack = compositeToRgb({ width: 3, height: 1, channels: 4, data }, [0, 0, 0]);
    expect(overBlack.data[8]).toBeCloseTo(a, 6);
  });

  it('RGB ignores the background and maps bytes to [0, 1]', () => {
    const out = compositeToRgb({ width: 1, height: 1, channels: 3, data: Uint8Array.from([0, 128, 255]) }, [1, 0, 1]);
    expect([...out.data]).toEqual([0, 128 / 255, 1].map(Math.fround));
  });

  const seed = freshSeed();
  it(`compositeToBytes gives exactly quantize(compositeToRgb) (seed ${seed})`, () => {
    const random = rng(seed);
    const n = 5000;
    const rgba = { width: n, height: 1, channels: 4 as const, data: Uint8Array.from({ length: n * 4 }, () => Math.floor(random() * 256)) };
    for (const background of [[1, 1, 1], [0, 0, 0], [random(), random(), random()]] as [number, number, number][]) {
      expect([...compositeToBytes(rgba, background)]).toEqual([...quantizeToBytes(compositeToRgb(rgba, background).data)]);
    }
    const rgb = { width: n, height: 1, channels: 3 as const, data: Uint8Array.from({ length: n * 3 }, () => Math.floor(random() * 256)) };
    expect([...compositeToBytes(rgb, [1, 0, 1])]).toEqual([...quantizeToBytes(compositeToRgb(rgb, [1, 0, 1]).data)]);
  });

  it('quantizes to the nearest byte, clamped, and back', () => {
    expect([...quantizeToBytes(Float32Array.from([-0.1, 0, 0.5 / 255, 0.499, 1, 1.2]))]).toEqual([0, 0, 1, 127, 255, 255]);
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect([...quantizeToBytes(bytesToUnit(bytes))]).toEqual([...bytes]);
  });
});
