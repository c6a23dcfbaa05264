import { describe, expect, it } from 'vitest';
import { isPinholeLens, lensOf, lensTerms, validRadius } from '../../../../main/engine/dataset/lens.js';

describe('lens coefficients', () => {
  it("lensTerms lists each projection's coefficients in order (perspective: k1..k6, p1, p2; fisheye: k1..k4)", () => {
    expect(lensTerms(lensOf({ model: 'FULL_OPENCV', params: [100, 100, 50, 40, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8] }))).toEqual([0.1, 0.2, 0.5, 0.6, 0.7, 0.8, 0.3, 0.4]);
    expect(lensTerms(lensOf({ model: 'OPENCV_FISHEYE', params: [100, 100, 50, 40, 0.1, 0.2, 0.3, 0.4] }))).toEqual([0.1, 0.2, 0.3, 0.4]);
    expect(lensTerms(lensOf({ model: 'SIMPLE_RADIAL', params: [100, 50, 40, 0.1] }))).toEqual([0.1, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('a perspective lens is a pinhole exactly when every coefficient is 0; a fisheye never is', () => {
    expect(isPinholeLens(lensOf({ model: 'OPENCV', params: [100, 100, 50, 40, 0, 0, 0, 0] }))).toBe(true);
    expect(isPinholeLens(lensOf({ model: 'OPENCV', params: [100, 100, 50, 40, 0, 0, 0, 1e-9] }))).toBe(false);
    expect(isPinholeLens(lensOf({ model: 'OPENCV_FISHEYE', params: [100, 100, 50, 40, 0, 0, 0, 0] }))).toBe(false);
  });

  it('only radial terms fold a perspective lens: tangential ones alone never do', () => {
    expect(validRadius(lensOf({ model: 'OPENCV', params: [100, 100, 50, 40, 0, 0, 0.01, -0.02] }))).toBe(Infinity);
    // r (1 + k1 r^2) with k1 < 0 turns back at r = 1 / sqrt(-3 k1): 1 here, found within one scan step
    expect(validRadius(lensOf({ model: 'SIMPLE_RADIAL', params: [100, 50, 40, -1 / 3] }))).toBeCloseTo(1, 2);
  });
});
