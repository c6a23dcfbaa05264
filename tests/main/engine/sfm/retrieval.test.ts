import { describe, expect, it } from 'vitest';
import { freshSeed, rng } from '../../../helpers/random.js';
import { neighbourPairs, retrieveSimilarity, similarityMatrix, topNeighbours, vladDescriptor } from '../../../../main/engine/sfm/retrieval.js';
import { assignWordsOnCpu, trainVocabulary } from '../../../../main/engine/sfm/retrieval-vocabulary.js';
import { photoSet } from './retrieval-sets.js';

/** VLAD written out in float64 from its definition: residual sums per word, intra L2, signed sqrt, L2. */
function referenceVlad(descriptors: Uint8Array, words: Uint8Array): number[] {
  const k = words.length / 128;
  const { index } = assignWordsOnCpu(descriptors, words);
  const blocks = Array.from({ length: k }, () => new Array<number>(128).fill(0));
  for (let i = 0; i < descriptors.length / 128; i++) for (let c = 0; c < 128; c++) blocks[index[i]][c] += descriptors[i * 128 + c] / 512 - words[index[i] * 128 + c] / 512;
  const v = blocks.flatMap((b) => {
    const n = Math.hypot(...b);
    return b.map((x) => (n > 0 ? x / n : 0));
  });
  const p = v.map((x) => Math.sign(x) * Math.sqrt(Math.abs(x)));
  const n = Math.hypot(...p);
  return p.map((x) => x / n);
}

describe('VLAD', () => {
  it('is the float64 definition: residuals per word, intra-normalised, power-normalised, unit length', async () => {
    const seed = freshSeed();
    const { images } = photoSet(rng(seed), 4, 3, 60);
    const vocabulary = await trainVocabulary(images.map((im) => im.descriptors).reduce((a, b) => Uint8Array.from([...a, ...b])), { words: 8, seed });
    const got = await vladDescriptor(images[0].descriptors, vocabulary);
    const want = referenceVlad(images[0].descriptors, vocabulary.words);
    expect(got).toHaveLength(8 * 128);
    let worst = 0;
    for (let j = 0; j < got.length; j++) worst = Math.max(worst, Math.abs(got[j] - want[j]));
    expect(worst, `seed ${seed}`).toBeLessThan(1e-6);
    expect(await vladDescriptor(new Uint8Array(0), vocabulary)).toEqual(new Float32Array(8 * 128));
  });

  it('similarity: symmetric, 1 on the diagonal, higher within a place than across places', async () => {
    const seed = freshSeed();
    const { images, place } = photoSet(rng(seed), 5, 6);
    const { similarity } = await retrieveSimilarity(images, { words: 16, seed });
    const n = images.length;
    let within = 0;
    let across = 0;
    for (let i = 0; i < n; i++) {
      expect(similarity[i * n + i]).toBeCloseTo(1, 5);
      for (let j = 0; j < n; j++) {
        expect(similarity[i * n + j]).toBe(similarity[j * n + i]);
        if (i === j) continue;
        if (place[i] === place[j]) within += similarity[i * n + j] / (n * 5);
        else across += similarity[i * n + j] / (n * 24);
      }
    }
    expect(within, `seed ${seed}`).toBeGreaterThan(across + 0.1);
  });
});

describe('neighbours to pairs', () => {
  it('takes the k most similar others, ties to the lower index, within what is allowed', () => {
    const s = similarityMatrix([[1, 0], [0.8, 0.6], [0.8, 0.6], [0, 1]].map((v) => Float32Array.from(v)));
    expect(topNeighbours(s, 4, 2)).toEqual([[1, 2], [2, 0], [1, 0], [1, 2]]);
    expect(topNeighbours(s, 4, 1, (i, j) => Math.abs(i - j) > 1)).toEqual([[2], [3], [0], [1]]);
    expect(() => topNeighbours(s, 3, 1)).toThrow(/16 values is not 3 x 3/);
  });

  it('makes the lists symmetric pairs (i < j), each once, ascending', () => {
    expect(neighbourPairs([[2, 1], [0], [0, 3], [1]])).toEqual([[0, 1], [0, 2], [1, 3], [2, 3]]);
  });

  it('refuses a set without descriptors, saying so', async () => {
    await expect(retrieveSimilarity([{ descriptors: new Uint8Array(0) }, { descriptors: new Uint8Array(0) }])).rejects.toThrow(/none of the 2 images has descriptors/);
  });
});
