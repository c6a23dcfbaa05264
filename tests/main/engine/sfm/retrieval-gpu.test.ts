import { describe, expect, it } from 'vitest';
import { testGpu, variantsOf } from '../../../helpers/gpu.js';
import { freshSeed, rng } from '../../../helpers/random.js';
import { randomDescriptor } from '../../../parity/match.parity.js';
import { referenceNearest } from '../../../reference/match.js';
import { selectPairs } from '../../../../main/engine/sfm/match-pairs.js';
import { gpuWordAssigner } from '../../../../main/engine/sfm/retrieval-gpu.js';
import { assignWordsOnCpu, trainVocabulary } from '../../../../main/engine/sfm/retrieval-vocabulary.js';
import { photoSet } from './retrieval-sets.js';

describe('word assignment on the GPU (the matcher kernel) is the float64 reference exactly', async () => {
  const ctx = await testGpu();
  for (const variant of variantsOf(ctx))
    it(`${variant}: 1500 descriptors, 64 words with a tie`, async () => {
      const seed = freshSeed();
      const random = rng(seed);
      const descriptors = new Uint8Array(1500 * 128);
      for (let i = 0; i < 1500; i++) descriptors.set(randomDescriptor(random), i * 128);
      const words = new Uint8Array(64 * 128);
      for (let w = 0; w < 64; w++) words.set(randomDescriptor(random), w * 128);
      words.copyWithin(40 * 128, 9 * 128, 10 * 128); // word 40 = word 9: ties go to 9
      const assign = await gpuWordAssigner(ctx, variant);
      const got = await assign(descriptors, words);
      const want = referenceNearest(descriptors, words);
      expect(Array.from(got.index), `seed ${seed}`).toEqual(want.index);
      expect(Array.from(got.best), `seed ${seed}`).toEqual(want.best);
      expect(got.index.includes(40)).toBe(false);
    });

  it('gives the CPU assignment\'s vocabulary and pairs, bit for bit', async () => {
    const seed = freshSeed();
    const { images } = photoSet(rng(seed), 4, 8, 60); // 32 photos: retrieval forced below
    const assign = await gpuWordAssigner(ctx);
    const sample = images.slice(0, 10).reduce((a, b) => Uint8Array.from([...a, ...b.descriptors]), new Uint8Array(0));
    const [onGpu, onCpu] = [await trainVocabulary(sample, { words: 16, seed }, assign), await trainVocabulary(sample, { words: 16, seed })];
    expect(Array.from(onGpu.words), `seed ${seed}`).toEqual(Array.from(onCpu.words));
    expect(Array.from((await assign(images[3].descriptors, onGpu.words)).index)).toEqual(Array.from(assignWordsOnCpu(images[3].descriptors, onGpu.words).index));
    const options = { exhaustiveMaxImages: 10, retrieval: { words: 16, neighbours: 7, seed } };
    expect(await selectPairs('photos', images, options, assign), `seed ${seed}`).toMatchObject({ pairs: (await selectPairs('photos', images, options)).pairs, method: 'retrieval' });
  });
});
