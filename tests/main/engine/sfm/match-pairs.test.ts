import { describe, expect, it } from 'vitest';
import { freshSeed, rng } from '../../../helpers/random.js';
import { EXHAUSTIVE_MAX_IMAGES, exhaustivePairs, mergePairs, selectPairs, sequentialPairs, type ImagePair } from '../../../../main/engine/sfm/match-pairs.js';
import { loopVideo, photoSet, recall } from './retrieval-sets.js';

describe('image pairs to match', () => {
  it('exhaustive: every pair once, i < j', () => {
    expect(exhaustivePairs(4)).toEqual([[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]);
    expect(exhaustivePairs(30)).toHaveLength((30 * 29) / 2);
  });

  it("sequential, COLMAP 3.8's rule: frames i + k for 0 < k < window, plus frames 2^k further (k < window) with quadratic overlap", () => {
    expect(sequentialPairs(5, 3, false)).toEqual([[0, 1], [0, 2], [1, 2], [1, 3], [2, 3], [2, 4], [3, 4]]);
    const pairs = sequentialPairs(40, 3);
    expect(pairs).toContainEqual([0, 2]);
    expect(pairs).not.toContainEqual([0, 3]); // window 3: the next 2 frames, and 3 is no power of 2
    expect(pairs).toContainEqual([0, 4]); // 2^2, beyond the window
    expect(pairs).not.toContainEqual([0, 5]);
    expect(pairs).not.toContainEqual([0, 8]); // k < window
    expect(new Set(pairs.map((p) => p.join())).size).toBe(pairs.length);
    expect(pairs.every(([i, j]) => i < j && j < 40)).toBe(true);
    expect(() => sequentialPairs(10, 0)).toThrow(/window/);
    // COLMAP 3.8's sequential_matcher over the apple clip's 24 frames verified exactly these 179
    // pairs (measured: docs/sfm.md): the next 9 frames and the frame 16 further, none 10 apart
    const apple = sequentialPairs(24);
    expect(apple).toHaveLength(179);
    expect(apple).toContainEqual([0, 9]);
    expect(apple).toContainEqual([7, 23]);
    expect(apple.some(([i, j]) => j - i === 10)).toBe(false);
  });

  it('merges pair lists: the union, ascending, each once', () => {
    expect(mergePairs([[0, 2], [1, 3]], [[0, 1], [1, 3]])).toEqual([[0, 1], [0, 2], [1, 3]]);
  });
});

describe('pair selection by capture kind', () => {
  it('photo sets up to the limit: every pair, without retrieval', async () => {
    const images = Array.from({ length: 30 }, () => ({ descriptors: new Uint8Array(0) }));
    expect(EXHAUSTIVE_MAX_IMAGES).toBe(100);
    expect(await selectPairs('photos', images)).toEqual({ pairs: exhaustivePairs(30), method: 'exhaustive', retrieved: 0 });
  });

  it('larger photo sets: each image with its top-k by VLAD, finding the images of the same place', async () => {
    const seed = freshSeed();
    const { images, place } = photoSet(rng(seed), 12, 10); // 120 photos > EXHAUSTIVE_MAX_IMAGES
    const selection = await selectPairs('photos', images, { retrieval: { words: 32, neighbours: 9, seed } });
    expect(selection.method).toBe('retrieval');
    const truth: ImagePair[] = exhaustivePairs(images.length).filter(([i, j]) => place[i] === place[j]);
    expect(recall(selection.pairs, truth), `seed ${seed}`).toBeGreaterThanOrEqual(0.95);
    // 9 neighbours a photo: at most 120 x 9 pairs, far fewer than exhaustive's 7,140
    expect(selection.pairs.length).toBeLessThanOrEqual(120 * 9);
    expect(selection.pairs.length).toBeGreaterThanOrEqual(truth.length * 0.95);
    // and few wasted: the top 9 of a photo are its place's other 9 (measured: all of them, seeds 1-3)
    expect(selection.pairs.filter(([i, j]) => place[i] === place[j]).length / selection.pairs.length, `seed ${seed}`).toBeGreaterThanOrEqual(0.9);
    expect(selection.pairs.every(([i, j]) => i < j)).toBe(true);
  });

  it('video: the sequential window plus loop candidates that close the second lap on the first', async () => {
    const seed = freshSeed();
    const positions = 30;
    const frames = loopVideo(rng(seed), positions); // 60 frames, frame t and t + 30 see the same
    const selection = await selectPairs('video', frames, { retrieval: { words: 32, seed }, loopCandidates: 5 });
    expect(selection.method).toBe('sequential+loops');
    const sequential = sequentialPairs(frames.length);
    expect(recall(selection.pairs, sequential)).toBe(1);
    const loops: ImagePair[] = Array.from({ length: positions }, (_, t) => [t, t + positions]);
    expect(recall(sequential, loops)).toBeLessThan(0.2); // what the window alone misses (only 2^k steps reach)
    expect(recall(selection.pairs, loops), `seed ${seed}`).toBeGreaterThanOrEqual(0.9);
    expect(selection.retrieved).toBe(selection.pairs.length - sequential.length);
    expect(selection.pairs.length).toBeLessThanOrEqual(sequential.length + frames.length * 5);
    const without = await selectPairs('video', frames, { loopCandidates: 0 });
    expect(without).toEqual({ pairs: sequential, method: 'sequential', retrieved: 0 });
  });
});
