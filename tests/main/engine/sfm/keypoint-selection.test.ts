import { describe, expect, it } from 'vitest';
import { selectSpread, unmasked } from '../../../../main/engine/sfm/keypoint-selection.js';
import { freshSeed, rng } from '../../../helpers/random.js';

describe('keypoint budget', () => {
  it('keeps everything under the budget', () => {
    const points = [{ x: 1, y: 1, response: 0.1 }, { x: 5, y: 5, response: 0.2 }];
    expect(selectSpread(points, 10, 10, 5)).toEqual([0, 1]);
  });

  it('spreads the budget: a dense strong cluster does not take it all', () => {
    const seed = freshSeed();
    const random = rng(seed);
    // 1000 strong points in the top-left corner, 200 weak ones everywhere
    const points = [
      ...Array.from({ length: 1000 }, () => ({ x: random() * 50, y: random() * 50, response: 1 + random() })),
      ...Array.from({ length: 200 }, () => ({ x: random() * 500, y: random() * 500, response: random() })),
    ];
    const kept = selectSpread(points, 500, 500, 160);
    expect(kept).toHaveLength(160);
    expect(kept).toEqual([...kept].sort((a, b) => a - b));
    const outside = kept.filter((i) => points[i].x > 60 || points[i].y > 60).length;
    expect(outside, `seed ${seed}`).toBeGreaterThan(80);
    // by response alone every kept point would be in the cluster
    expect(kept.filter((i) => i < 1000).length).toBeLessThan(80);
  });

  it('is reproducible under equal responses (the earlier point wins)', () => {
    const points = Array.from({ length: 100 }, (_, i) => ({ x: i, y: 0, response: 1 }));
    expect(selectSpread(points, 100, 1, 10)).toEqual(selectSpread(points, 100, 1, 10));
    expect(selectSpread(points, 100, 1, 10)).toHaveLength(10);
  });
});

describe('keypoint masks', () => {
  it("keep a keypoint by the pixel under it, COLMAP's rule: pixel floor(x + 0.5) with the first pixel's centre at 0; off the mask is dropped", () => {
    // 4 x 2 mask, only pixel (2, 1) kept
    const mask = { width: 4, height: 2, keep: Uint8Array.from([0, 0, 0, 0, 0, 0, 255, 0]) };
    const at = (x: number, y: number) => ({ x, y, response: 1 });
    const points = [at(2, 1), at(1.49, 1), at(1.51, 1), at(2.49, 0.6), at(2.51, 1), at(2, 0.49), at(2, 1.6), at(-0.6, 0)];
    expect(unmasked(points, mask)).toEqual([0, 2, 3]);
    expect(unmasked(points, undefined)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });
});
