/**
 * Word assignment on the GPU: the matcher's nearest-neighbour kernel (match.ts,
 * kernels/match-nearest.wgsl) with the descriptors as queries and the words as the other image.
 * Its integer dot products and ties to the lower index are the CPU assignment's
 * (retrieval-vocabulary.ts), so either gives the same words, VLADs and pairs.
 */
import type { GpuContext } from '../gpu/context.js';
import type { KernelVariant } from '../gpu/kernels.js';
import { FeatureMatcher } from './match.js';
import type { AssignWords } from './retrieval-vocabulary.js';

/** An AssignWords on `ctx` (compiles the kernel once; each call uploads its descriptors and words). */
export async function gpuWordAssigner(ctx: GpuContext, variant?: KernelVariant): Promise<AssignWords> {
  const matcher = await FeatureMatcher.create(ctx, variant);
  return async (descriptors, words) => {
    const query = matcher.upload(descriptors, 'retrieval.descriptors');
    const train = matcher.upload(words, 'retrieval.words');
    try {
      const { index, best } = await matcher.nearest(query, train);
      return { index, best };
    } finally {
      query.buffer.destroy();
      train.buffer.destroy();
    }
  };
}
