import { describe, expect, it } from 'vitest';
import { blurSigmas, gaussianKernel, levelSigma, octaveLayout, siftOptions, CAMERA_BLUR, SIGMA0 } from '../../../../main/engine/sfm/sift-options.js';

describe('SIFT options and layout', () => {
  it("default to COLMAP's thresholds with the first octave at 0", () => {
    const o = siftOptions();
    expect(o.peakThreshold).toBeCloseTo(0.02 / 3, 12);
    expect([o.firstOctave, o.numOctaves, o.scalesPerOctave, o.edgeThreshold, o.maxOrientations]).toEqual([0, 4, 3, 10, 2]);
  });

  it('refuse values they cannot run, naming the option', () => {
    expect(() => siftOptions({ maxFeatures: 0 })).toThrow(/maxFeatures/);
    expect(() => siftOptions({ firstOctave: 1 as 0 })).toThrow(/firstOctave/);
    expect(() => siftOptions({ scalesPerOctave: 7 })).toThrow(/scalesPerOctave/);
    expect(() => siftOptions({ maxOrientations: 5 })).toThrow(/maxOrientations/);
  });

  it('halve each octave (floor) and stop before one under 16 px', () => {
    expect(octaveLayout(1000, 656, siftOptions()).map((o) => [o.width, o.height, o.step])).toEqual([[1000, 656, 1], [500, 328, 2], [250, 164, 4], [125, 82, 8]]);
    expect(octaveLayout(70, 40, siftOptions()).map((o) => [o.width, o.height])).toEqual([[70, 40], [35, 20]]);
    expect(octaveLayout(100, 80, siftOptions({ firstOctave: -1 })).map((o) => [o.width, o.step])).toEqual([[200, 0.5], [100, 1], [50, 2], [25, 4]]);
  });

  it('blur each level from the one before to sigma0 2^(s/S) in total, from the camera blur', () => {
    for (const firstOctave of [0, -1] as const) {
      const options = siftOptions({ firstOctave });
      const { base, levels } = blurSigmas(options);
      const camera = firstOctave === -1 ? 2 * CAMERA_BLUR : CAMERA_BLUR;
      let total = Math.hypot(camera, base);
      expect(total).toBeCloseTo(SIGMA0, 12);
      levels.forEach((sigma, i) => {
        total = Math.hypot(total, sigma);
        expect(total).toBeCloseTo(levelSigma(i + 1, options), 12);
      });
      expect(levels).toHaveLength(options.scalesPerOctave + 2);
    }
  });

  it('sample normalized Gaussians to ceil(4 sigma), refusing radii the kernel cannot hold', () => {
    const k = gaussianKernel(1.5);
    expect(k).toHaveLength(2 * 6 + 1);
    expect(k.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 14);
    expect(k[6] / k[5]).toBeCloseTo(Math.exp(1 / (2 * 1.5 * 1.5)), 12);
    expect(() => gaussianKernel(4.1)).toThrow(/radius 17 > 16/);
  });
});
