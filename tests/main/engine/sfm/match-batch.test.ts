import { describe, expect, it } from 'vitest';
import { planMatchBatches, QUERIES_PER_WORKGROUP } from '../../../../main/engine/sfm/match-batch.js';
import { FeatureMatcher, matchImagePairs } from '../../../../main/engine/sfm/match.js';
import { exhaustivePairs } from '../../../../main/engine/sfm/match-pairs.js';
import { testGpu, variantsOf } from '../../../helpers/gpu.js';
import { freshSeed, rng } from '../../../helpers/random.js';
import { descriptorSets } from '../../../parity/match.parity.js';
import { referenceMatches, referenceNearest } from '../../../reference/match.js';

const LIMITS = { maxDotsPerDispatch: 4 * QUERIES_PER_WORKGROUP * 1000, maxDescriptorBytes: 1 << 20, maxWorkgroups: 65535 };

describe('batching pairs for one dispatch', () => {
  it('groups consecutive pairs up to the cap, and matches alone the pairs too big for it or with an empty side', () => {
    // images of 1000 descriptors: a pair is 2 x 512 x 1000 dots, so two pairs fill the cap
    const counts = [1000, 1000, 1000, 0, 1000, 5000];
    const pairs = [[0, 1], [0, 2], [1, 2], [0, 3], [1, 4], [0, 5], [2, 4]] as const;
    expect(planMatchBatches(pairs, counts, LIMITS)).toEqual([
      { kind: 'batch', pairs: [0, 1], images: [0, 1, 2] },
      { kind: 'batch', pairs: [2], images: [1, 2] },
      { kind: 'alone', pair: 3 }, // image 3 has no descriptors
      { kind: 'batch', pairs: [4], images: [1, 4] },
      { kind: 'alone', pair: 5 }, // 2 x 512 x 5000 dots: over the cap by itself
      { kind: 'batch', pairs: [6], images: [2, 4] },
    ]);
  });

  it('closes a batch when its images would pass the binding or its workgroups the dispatch', () => {
    const counts = [60, 60, 60, 60]; // a pair: one workgroup of queries, one of merges
    const pairs = exhaustivePairs(4);
    const byBytes = planMatchBatches(pairs, counts, { ...LIMITS, maxDescriptorBytes: 3 * 60 * 128 });
    for (const b of byBytes) if (b.kind === 'batch') expect(b.images.length).toBeLessThanOrEqual(3);
    expect(byBytes.flatMap((b) => (b.kind === 'batch' ? b.pairs : [b.pair]))).toEqual(pairs.map((_, k) => k));
    const byWorkgroups = planMatchBatches(pairs, counts, { ...LIMITS, maxWorkgroups: 2 });
    expect(byWorkgroups.every((b) => b.kind === 'batch' && b.pairs.length <= 2)).toBe(true);
    expect(byWorkgroups).toHaveLength(3);
  });
});

describe('matching pairs batched in one dispatch', async () => {
  const ctx = await testGpu();
  for (const variant of variantsOf(ctx)) {
    it(`gives each pair the float64 reference's nearest neighbours exactly, outputs poisoned first (${variant})`, async () => {
      const seed = freshSeed();
      const random = rng(seed);
      // sizes across workgroup edges (512 queries, 64 merge threads, 8 trains a tile); a pair of one image with itself
      const sets = [descriptorSets(random, 700, 300), descriptorSets(random, 1, 65), descriptorSets(random, 513, 8)];
      const images = sets.flatMap((s) => [s.a, s.b]);
      const pairs: [number, number][] = [[0, 1], [1, 0], [2, 3], [4, 5], [0, 5], [3, 3]];
      const matcher = await FeatureMatcher.create(ctx, variant, 1 << 26);
      const first: number[] = [];
      let total = 0;
      for (const d of images) {
        first.push(total);
        total += d.length / 128;
      }
      const all = new Uint8Array(total * 128);
      images.forEach((d, k) => all.set(d, first[k] * 128));
      const arena = matcher.upload(all);
      try {
        const got = await matcher.nearestBatch(arena.buffer, pairs.map(([i, j]) => ({ queryFirst: first[i], queryCount: images[i].length / 128, trainFirst: first[j], trainCount: images[j].length / 128 })), true);
        pairs.forEach(([i, j], k) => {
          const forward = referenceNearest(images[i], images[j]);
          const backward = referenceNearest(images[j], images[i]);
          const label = `pair ${i}-${j}, seed ${seed}`;
          expect(Array.from(got[k].forward.index), label).toEqual(forward.index);
          expect(Array.from(got[k].forward.best), label).toEqual(forward.best);
          // the second of a single candidate is none (-1) on the GPU; the reference's is its own
          if (images[j].length > 128) expect(Array.from(got[k].forward.second), label).toEqual(forward.second);
          expect(Array.from(got[k].backward.index), label).toEqual(backward.index);
          expect(Array.from(got[k].backward.best), label).toEqual(backward.best);
          if (images[i].length > 128) expect(Array.from(got[k].backward.second), label).toEqual(backward.second);
        });
      } finally {
        arena.buffer.destroy();
      }
    });
  }

  it('matchImagePairs gives the same bytes batched as pair by pair, in pair order, with progress', async () => {
    const seed = freshSeed();
    const random = rng(seed);
    const sets = [descriptorSets(random, 300, 260), descriptorSets(random, 200, 90)];
    const images = [...sets.flatMap((s) => [s.a, s.b]), new Uint8Array(0)].map((descriptors) => ({ descriptors }));
    const pairs = exhaustivePairs(images.length);
    const progress: number[] = [];
    const batched = await matchImagePairs(ctx, images, pairs, {}, (done) => progress.push(done), 1 << 26);
    const alone = await matchImagePairs(ctx, images, pairs, {}, undefined, 1); // every pair over a cap of 1: alone
    expect(progress).toEqual(pairs.map((_, k) => k + 1));
    pairs.forEach(([i, j], k) => {
      expect(Array.from(batched[k]), `pair ${i}-${j}, seed ${seed}`).toEqual(Array.from(alone[k]));
      expect(Array.from(batched[k]), `pair ${i}-${j}, seed ${seed}`).toEqual(referenceMatches(images[i].descriptors, images[j].descriptors).flat());
    });
    expect(batched[0].length, `seed ${seed}`).toBeGreaterThan(0);
  });
});
