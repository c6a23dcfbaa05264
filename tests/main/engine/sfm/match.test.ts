import { describe, expect, it } from 'vitest';
import { testGpu, variantsOf } from '../../../helpers/gpu.js';
import { freshSeed, rng } from '../../../helpers/random.js';
import { MATCH_CASES, descriptorSets, matchParity } from '../../../parity/match.parity.js';
import { referenceMatches, referenceNearest } from '../../../reference/match.js';
import { FeatureMatcher, MAX_DOTS_PER_DISPATCH, matchFeatures, matchImagePairs, passesRatioTest, MATCH_DEFAULTS, QUERIES_PER_WORKGROUP } from '../../../../main/engine/sfm/match.js';
import { exhaustivePairs } from '../../../../main/engine/sfm/match-pairs.js';
import { SiftExtractor } from '../../../../main/engine/sfm/features.js';
import { blobImage, crop } from './sift-images.js';

describe('matching kernel matches the float64 reference exactly', async () => {
  const ctx = await testGpu();
  for (const variant of variantsOf(ctx))
    for (const c of MATCH_CASES) {
      it(`${c.queries} x ${c.trains}, ${variant}`, async () => {
        const seed = freshSeed();
        const r = await matchParity(ctx, variant, seed, c);
        expect(r.ok, `seed ${seed}: ${r.detail}`).toBe(true);
      });
    }

  it('splits the queries into dispatches of bounded work, with the same answer', async () => {
    const seed = freshSeed();
    const { a, b } = descriptorSets(rng(seed), 3 * QUERIES_PER_WORKGROUP + 50, 200);
    const small = await FeatureMatcher.create(ctx, undefined, QUERIES_PER_WORKGROUP * 200);
    expect(small.queryBlock(200)).toBe(QUERIES_PER_WORKGROUP); // 4 dispatches, their column partials merged
    const whole = await FeatureMatcher.create(ctx);
    expect(whole.queryBlock(200)).toBeGreaterThanOrEqual(3 * QUERIES_PER_WORKGROUP + 50);
    expect(whole.queryBlock(4096) * 4096).toBeLessThanOrEqual(MAX_DOTS_PER_DISPATCH);
    const [da, db] = [small.upload(a), small.upload(b)];
    const split = await small.match(da, db);
    expect(Array.from(split), `seed ${seed}`).toEqual(referenceMatches(a, b).flat());
    expect(Array.from(await whole.match(da, db))).toEqual(Array.from(split));
    da.buffer.destroy();
    db.buffer.destroy();
  });

  it('splits the trains too where one workgroup of queries against all would pass the cap, with the same answer', async () => {
    const seed = freshSeed();
    const { a, b } = descriptorSets(rng(seed), QUERIES_PER_WORKGROUP + 70, 300);
    const small = await FeatureMatcher.create(ctx, undefined, QUERIES_PER_WORKGROUP * 64);
    expect(small.queryBlock(300)).toBe(QUERIES_PER_WORKGROUP);
    expect(small.trainBlock(300)).toBe(64); // 5 train blocks for each of 2 query blocks
    const [da, db] = [small.upload(a), small.upload(b)];
    const got = await small.nearestBoth(da, db, true);
    const forward = referenceNearest(a, b);
    const backward = referenceNearest(b, a);
    expect(Array.from(got.forward.index), `seed ${seed}`).toEqual(forward.index);
    expect(Array.from(got.forward.second), `seed ${seed}`).toEqual(forward.second);
    expect(Array.from(got.backward.index), `seed ${seed}`).toEqual(backward.index);
    expect(Array.from(got.backward.best), `seed ${seed}`).toEqual(backward.best);
    expect(Array.from(await small.match(da, db)), `seed ${seed}`).toEqual(referenceMatches(a, b).flat());
    da.buffer.destroy();
    db.buffer.destroy();
  });
});

describe('matching a set of images', () => {
  it('gives every pair what matching it alone gives, in pair order, with progress', async () => {
    const ctx = await testGpu();
    const seed = freshSeed();
    const random = rng(seed);
    const base = descriptorSets(random, 120, 150);
    const images = [base.a, base.b, descriptorSets(random, 90, 1).a].map((descriptors) => ({ descriptors }));
    const pairs = exhaustivePairs(3);
    const progress: number[] = [];
    const got = await matchImagePairs(ctx, images, pairs, {}, (done, total) => progress.push(done / total));
    expect(progress).toEqual([1 / 3, 2 / 3, 1]);
    for (const [k, [i, j]] of pairs.entries()) expect(Array.from(got[k]), `pair ${i}-${j}, seed ${seed}`).toEqual(referenceMatches(images[i].descriptors, images[j].descriptors).flat());
    expect(got[0].length, `seed ${seed}`).toBeGreaterThan(0);
    await expect(matchImagePairs(ctx, images, [[0, 3]])).rejects.toThrow(/pair names image 3, but there are 3/);
  });
});

describe('match acceptance', () => {
  it("is COLMAP's: the best angle under 0.7 rad and under 0.8 of the second's", () => {
    expect(passesRatioTest(Math.cos(0.3), Math.cos(0.5), MATCH_DEFAULTS)).toBe(true);
    expect(passesRatioTest(Math.cos(0.45), Math.cos(0.5), MATCH_DEFAULTS)).toBe(false); // ratio 0.9
    expect(passesRatioTest(Math.cos(0.75), Math.cos(1.4), MATCH_DEFAULTS)).toBe(false); // too far
    expect(passesRatioTest(1.0000001, Math.cos(0.1), MATCH_DEFAULTS)).toBe(true); // rounding above 1
  });

  it('without the mutual check keeps one-sided matches too', async () => {
    const ctx = await testGpu();
    const seed = freshSeed();
    const { a, b } = descriptorSets(rng(seed), 200, 300);
    const matcher = await FeatureMatcher.create(ctx);
    const [da, db] = [matcher.upload(a), matcher.upload(b)];
    const mutual = await matcher.match(da, db);
    const oneSided = await matcher.match(da, db, { mutual: false });
    expect(Array.from(oneSided)).toEqual(referenceMatches(a, b, 0.8, 0.7, false).flat());
    expect(oneSided.length).toBeGreaterThanOrEqual(mutual.length);
    da.buffer.destroy();
    db.buffer.destroy();
  });
});

describe('SIFT features match across views', () => {
  it('two overlapping crops of an image: the matches are the shift between them', async () => {
    const ctx = await testGpu();
    const seed = freshSeed();
    const image = blobImage(260, 200, rng(seed));
    const [dx, dy] = [37, 22];
    const extractor = await SiftExtractor.create(ctx);
    const a = await extractor.extract(crop(image, 0, 0, 200, 160));
    const b = await extractor.extract(crop(image, dx, dy, 200, 160));
    extractor.destroy();
    const pairs = await matchFeatures(ctx, a, b);
    let consistent = 0;
    for (let k = 0; k < pairs.length; k += 2) {
      const [i, j] = [pairs[k], pairs[k + 1]];
      if (Math.hypot(a.keypoints[4 * i] - dx - b.keypoints[4 * j], a.keypoints[4 * i + 1] - dy - b.keypoints[4 * j + 1]) < 1) consistent++;
    }
    expect(pairs.length / 2, `seed ${seed}`).toBeGreaterThan(20);
    expect(consistent / (pairs.length / 2), `seed ${seed}: ${consistent} of ${pairs.length / 2}`).toBeGreaterThan(0.9);
  });
});
