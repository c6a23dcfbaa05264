/**
 * kernels/match-nearest.wgsl against tests/reference/match.ts: descriptor bytes / 512 make every
 * dot product exact in float32, so nearest indices, dot products and accepted pairs must be
 * identical (ties included: both keep the lower index), in both directions of the one pass (each
 * query's nearest trains, each train's nearest queries). The outputs are poisoned first, so an
 * answer the kernels leave unwritten shows. Each case runs twice: the pair alone (nearestBoth) and
 * batched (nearestBatch: both directions of the pair as two segments of one dispatch over one
 * buffer holding both images, as matchImagePairs batches pairs on a GPU).
 */
import type { GpuContext } from '../../main/engine/gpu/context.js';
import type { KernelVariant } from '../../main/engine/gpu/kernels.js';
import { FeatureMatcher, type Nearest } from '../../main/engine/sfm/match.js';
import { rng } from '../helpers/random.js';
import { referenceMatches, referenceNearest, type ReferenceNearest } from '../reference/match.js';
import type { ParityResult } from './types.js';

export interface MatchCase {
  queries: number;
  trains: number;
}

export const MATCH_CASES: readonly MatchCase[] = [
  { queries: 1, trains: 1 },
  { queries: 77, trains: 130 },
  { queries: 700, trains: 500 },
  { queries: 300, trains: 1 },
];

/** RootSIFT-like bytes: non-negative, unit L2 norm at scale 512. */
export function randomDescriptor(random: () => number): Uint8Array {
  const v = Float64Array.from({ length: 128 }, () => (random() < 0.3 ? 0 : random() ** 2));
  const n = Math.hypot(...v) || 1;
  return Uint8Array.from(v, (x) => Math.min(255, Math.round((512 * x) / n)));
}

/** Two sets where a share of `b` are noisy copies of `a`'s (true matches) and the rest unrelated; a few exact duplicates (ties). */
export function descriptorSets(random: () => number, na: number, nb: number): { a: Uint8Array; b: Uint8Array } {
  const a = new Uint8Array(na * 128);
  for (let i = 0; i < na; i++) a.set(randomDescriptor(random), i * 128);
  const b = new Uint8Array(nb * 128);
  for (let j = 0; j < nb; j++) {
    const source = Math.floor(random() * na);
    if (random() < 0.5) b.set(a.subarray(source * 128, source * 128 + 128).map((x) => Math.max(0, Math.min(255, x + Math.round((random() - 0.5) * 12)))), j * 128);
    else if (random() < 0.05 && j > 0) b.copyWithin(j * 128, (j - 1) * 128, j * 128);
    else b.set(randomDescriptor(random), j * 128);
  }
  return { a, b };
}

export async function matchParity(ctx: GpuContext, variant: KernelVariant, seed: number, c: MatchCase): Promise<ParityResult> {
  const random = rng(seed);
  const { a, b } = descriptorSets(random, c.queries, c.trains);
  const matcher = await FeatureMatcher.create(ctx, variant);
  const da = matcher.upload(a);
  const db = matcher.upload(b);
  try {
    const got = await matcher.nearestBoth(da, db, true);
    let mismatches = 0;
    let first = '';
    const compare = (direction: string, gpu: Nearest, want: ReferenceNearest, others: number) => {
      for (let i = 0; i < want.index.length; i++) {
        if (gpu.index[i] !== want.index[i] || gpu.best[i] !== want.best[i] || gpu.second[i] !== (others > 1 ? want.second[i] : -1)) {
          if (!mismatches) first = `${direction} ${i}: GPU (${gpu.index[i]}, ${gpu.best[i]}, ${gpu.second[i]}) reference (${want.index[i]}, ${want.best[i]}, ${want.second[i]})`;
          mismatches++;
        }
      }
    };
    const forward = referenceNearest(a, b);
    const backward = referenceNearest(b, a);
    compare('query', got.forward, forward, c.trains);
    compare('train', got.backward, backward, c.queries);
    const both = new Uint8Array(a.length + b.length);
    both.set(a);
    both.set(b, a.length);
    const arena = matcher.upload(both);
    try {
      const [ab, ba] = await matcher.nearestBatch(arena.buffer, [{ queryFirst: 0, queryCount: c.queries, trainFirst: c.queries, trainCount: c.trains }, { queryFirst: c.queries, queryCount: c.trains, trainFirst: 0, trainCount: c.queries }], true);
      compare('batched query', ab.forward, forward, c.trains);
      compare('batched train', ab.backward, backward, c.queries);
      compare('batched reversed query', ba.forward, backward, c.queries);
      compare('batched reversed train', ba.backward, forward, c.trains);
    } finally {
      arena.buffer.destroy();
    }
    const pairs = await matcher.match(da, db);
    const wantPairs = referenceMatches(a, b).flat();
    const samePairs = pairs.length === wantPairs.length && wantPairs.every((v, k) => pairs[k] === v);
    if (!samePairs) mismatches++;
    return { name: `match ${c.queries}x${c.trains} (${pairs.length / 2} matches)`, variant, seed, ok: mismatches === 0, error: mismatches, tolerance: 0, detail: first || (samePairs ? '' : `pairs differ: GPU ${pairs.length / 2}, reference ${wantPairs.length / 2}`) };
  } finally {
    da.buffer.destroy();
    db.buffer.destroy();
  }
}
