import { describe, expect, it } from 'vitest';
import { freshSeed, rng } from '../../../helpers/random.js';
import { randomDescriptor } from '../../../parity/match.parity.js';
import { referenceNearest } from '../../../reference/match.js';
import { assignWordsOnCpu, quantizeWord, sampleDescriptors, trainVocabulary } from '../../../../main/engine/sfm/retrieval-vocabulary.js';

/** `clusters` well-separated centres, `per` noisy copies of each, in cluster order. */
function clustered(random: () => number, clusters: number, per: number): Uint8Array {
  const out = new Uint8Array(clusters * per * 128);
  for (let c = 0; c < clusters; c++) {
    const centre = randomDescriptor(random);
    for (let i = 0; i < per; i++) out.set(centre.map((x) => Math.max(0, Math.min(255, x + Math.round((random() - 0.5) * 8)))), (c * per + i) * 128);
  }
  return out;
}

describe('visual vocabulary', () => {
  it('assigns each descriptor to the word of largest dot product, ties to the lower word (the float64 reference)', () => {
    const seed = freshSeed();
    const random = rng(seed);
    const descriptors = Uint8Array.from({ length: 300 * 128 }, () => Math.floor(random() * 256));
    const words = new Uint8Array(20 * 128);
    for (let w = 0; w < 20; w++) words.set(randomDescriptor(random), w * 128);
    words.copyWithin(7 * 128, 3 * 128, 4 * 128); // word 7 = word 3: a tie, which 3 wins
    const got = assignWordsOnCpu(descriptors, words);
    const want = referenceNearest(descriptors, words);
    expect(Array.from(got.index), `seed ${seed}`).toEqual(want.index);
    expect(Array.from(got.best), `seed ${seed}`).toEqual(want.best);
    expect(got.index.includes(7)).toBe(false);
  });

  it('recovers well-separated clusters: every cluster one word, the same words for the same seed', async () => {
    const seed = freshSeed();
    const sample = clustered(rng(seed), 6, 50);
    const vocabulary = await trainVocabulary(sample, { words: 6, seed });
    expect(vocabulary.converged, `seed ${seed}`).toBe(true);
    const { index } = assignWordsOnCpu(sample, vocabulary.words);
    const wordOf = new Set<number>();
    for (let c = 0; c < 6; c++) {
      const words = new Set(index.subarray(c * 50, (c + 1) * 50));
      expect(words.size, `cluster ${c}, seed ${seed}`).toBe(1);
      wordOf.add([...words][0]);
    }
    expect(wordOf.size, `seed ${seed}`).toBe(6);
    expect(Array.from((await trainVocabulary(sample, { words: 6, seed })).words)).toEqual(Array.from(vocabulary.words));
  });

  it('keeps every word in use and every word a unit vector at the byte scale', async () => {
    const seed = freshSeed();
    const random = rng(seed);
    const sample = new Uint8Array(400 * 128);
    for (let i = 0; i < 400; i++) sample.set(randomDescriptor(random), i * 128);
    const vocabulary = await trainVocabulary(sample, { words: 32, seed, iterations: 4 });
    expect(new Set(assignWordsOnCpu(sample, vocabulary.words).index).size, `seed ${seed}`).toBeGreaterThanOrEqual(31);
    for (let w = 0; w < 32; w++) {
      const norm = Math.hypot(...vocabulary.words.subarray(w * 128, (w + 1) * 128)) / 512;
      expect(Math.abs(norm - 1), `word ${w}, seed ${seed}`).toBeLessThan(0.01);
    }
    const other = await trainVocabulary(sample, { words: 32, seed: seed + 1, iterations: 4 });
    expect(Array.from(other.words)).not.toEqual(Array.from(vocabulary.words));
  });

  it('refuses more words than sample descriptors, naming both', async () => {
    await expect(trainVocabulary(new Uint8Array(3 * 128), { words: 4 })).rejects.toThrow(/3 sample descriptors for 4 words/);
    await expect(trainVocabulary(new Uint8Array(3 * 128), { words: 0 })).rejects.toThrow(/words must be a positive integer, got 0/);
  });

  it('samples every image in proportion, seeded', () => {
    const images = [10, 30, 60].map((n, k) => ({ descriptors: new Uint8Array(n * 128).fill(k + 1) }));
    const sample = sampleDescriptors(images, 50, 5);
    const counts = [1, 2, 3].map((v) => sample.filter((x) => x === v).length / 128);
    expect(counts).toEqual([5, 15, 30]);
    expect(Array.from(sampleDescriptors(images, 50, 5))).toEqual(Array.from(sample));
    expect(sampleDescriptors(images, 1000, 5)).toHaveLength(100 * 128);
  });

  it('quantizes a sum to a unit vector of bytes, clamped to 255', () => {
    const out = new Uint8Array(128);
    const sum = new Float64Array(128);
    sum.set([1, 2, 2]); // norm 3
    quantizeWord(sum, out, 0);
    expect([out[0], out[1], out[2], out[3]]).toEqual([171, 255, 255, 0]); // 512 / 3, 1024 / 3 clamped
  });
});
