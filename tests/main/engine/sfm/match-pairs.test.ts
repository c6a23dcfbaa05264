import { describe, expect, it } from 'vitest';
import { choosePairs, EXHAUSTIVE_MAX_IMAGES, exhaustivePairs, sequentialPairs } from '../../../../main/engine/sfm/match-pairs.js';

describe('image pairs to match', () => {
  it('exhaustive: every pair once, i < j', () => {
    expect(exhaustivePairs(4)).toEqual([[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]);
    expect(exhaustivePairs(30)).toHaveLength((30 * 29) / 2);
  });

  it('sequential: the next `window` frames, plus frames 2^k further with quadratic overlap', () => {
    expect(sequentialPairs(5, 2, false)).toEqual([[0, 1], [0, 2], [1, 2], [1, 3], [2, 3], [2, 4], [3, 4]]);
    const pairs = sequentialPairs(40, 3);
    expect(pairs).toContainEqual([0, 4]); // 2^2, beyond the window of 3
    expect(pairs).not.toContainEqual([0, 5]);
    expect(pairs).not.toContainEqual([0, 8]); // k < window
    expect(new Set(pairs.map((p) => p.join())).size).toBe(pairs.length);
    expect(pairs.every(([i, j]) => i < j && j < 40)).toBe(true);
    expect(() => sequentialPairs(10, 0)).toThrow(/window/);
  });

  it('by kind: video sequential, photo sets exhaustive up to the limit', () => {
    expect(choosePairs('video', 30)).toEqual(sequentialPairs(30));
    expect(choosePairs('photos', 30)).toEqual(exhaustivePairs(30));
    expect(choosePairs('photos', EXHAUSTIVE_MAX_IMAGES + 1)).toEqual(sequentialPairs(EXHAUSTIVE_MAX_IMAGES + 1));
  });
});
