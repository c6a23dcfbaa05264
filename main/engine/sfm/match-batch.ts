/**
 * Which pairs matchImagePairs (match.ts) matches together in one dispatch: consecutive pairs of
 * its list, as long as the batch stays within the dispatch's cap on dot products (counted as the
 * kernel does the work: whole workgroups of 512 queries against every train), its images fit one
 * storage binding, and its workgroups one dispatch dimension. A pair too big for the cap alone, or
 * with no descriptors on one side, is matched alone (FeatureMatcher.nearestBoth splits it).
 */

/** Queries of one nearest_two workgroup (kernels/match-nearest.wgsl QUERIES_PER_WORKGROUP): a dispatch's block is a multiple. */
export const QUERIES_PER_WORKGROUP = 512;
/** Trains of one merge_columns workgroup (its workgroup size). */
export const MERGE_WORKGROUP = 64;

export type MatchBatch = { kind: 'alone'; pair: number } | { kind: 'batch'; pairs: number[]; images: number[] };

export interface BatchLimits {
  maxDotsPerDispatch: number;
  /** Bytes the batch's images may take together (one storage binding). */
  maxDescriptorBytes: number;
  /** Workgroups one dispatch may have in x. */
  maxWorkgroups: number;
}

const DESCRIPTOR_BYTES = 128;

/** Batches in pair order: every pair in exactly one, the pairs of a batch ascending. */
export function planMatchBatches(pairs: readonly (readonly [number, number])[], counts: readonly number[], limits: BatchLimits): MatchBatch[] {
  const batches: MatchBatch[] = [];
  let current: { pairs: number[]; images: Set<number>; dots: number; bytes: number; rows: number; merges: number } | undefined;
  const flush = () => {
    if (current) batches.push({ kind: 'batch', pairs: current.pairs, images: [...current.images] });
    current = undefined;
  };
  pairs.forEach(([i, j], k) => {
    const n = counts[i];
    const m = counts[j];
    const rows = Math.ceil(n / QUERIES_PER_WORKGROUP);
    const dots = rows * QUERIES_PER_WORKGROUP * m;
    const merges = Math.ceil(m / MERGE_WORKGROUP);
    const ownBytes = (n + (i === j ? 0 : m)) * DESCRIPTOR_BYTES;
    if (!n || !m || dots > limits.maxDotsPerDispatch || ownBytes > limits.maxDescriptorBytes || rows > limits.maxWorkgroups || merges > limits.maxWorkgroups) {
      flush();
      batches.push({ kind: 'alone', pair: k });
      return;
    }
    const newBytes = (image: number) => (current?.images.has(image) ? 0 : counts[image] * DESCRIPTOR_BYTES);
    const addedBytes = newBytes(i) + (i === j ? 0 : newBytes(j));
    if (current && (current.dots + dots > limits.maxDotsPerDispatch || current.bytes + addedBytes > limits.maxDescriptorBytes || current.rows + rows > limits.maxWorkgroups || current.merges + merges > limits.maxWorkgroups)) flush();
    current ??= { pairs: [], images: new Set(), dots: 0, bytes: 0, rows: 0, merges: 0 };
    current.bytes += newBytes(i) + (i === j ? 0 : newBytes(j));
    current.images.add(i).add(j);
    current.pairs.push(k);
    current.dots += dots;
    current.rows += rows;
    current.merges += merges;
  });
  flush();
  return batches;
}
