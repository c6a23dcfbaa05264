/**
 * Which image pairs to match, by capture kind (COLMAP's matchers' rules): every pair for a small
 * photo set; for video, each frame with the next `window` frames and, with quadratic overlap,
 * frames 2^k further on (k = 0, 1, ...) too, which links the ends of a slow pass without
 * matching everything. Pairs are (i, j) with i < j, ascending, each once.
 * (Retrieval for large photo sets, VLAD over a vocabulary of the set's own descriptors, is the
 * next step: docs/sfm.md.)
 */
export type ImagePair = readonly [number, number];

export function exhaustivePairs(images: number): ImagePair[] {
  const pairs: ImagePair[] = [];
  for (let i = 0; i < images; i++) for (let j = i + 1; j < images; j++) pairs.push([i, j]);
  return pairs;
}

/** COLMAP's sequential matcher: overlap 10 and quadratic overlap on by default. */
export function sequentialPairs(images: number, window = 10, quadraticOverlap = true): ImagePair[] {
  if (!Number.isInteger(window) || window < 1) throw new Error(`match pairs: window must be a positive integer, got ${window}`);
  const pairs: ImagePair[] = [];
  for (let i = 0; i < images; i++) {
    const partners = new Set<number>();
    for (let d = 1; d <= window && i + d < images; d++) partners.add(i + d);
    if (quadraticOverlap) for (let k = 0; k < window && i + 2 ** k < images; k++) partners.add(i + 2 ** k);
    for (const j of [...partners].sort((a, b) => a - b)) pairs.push([i, j]);
  }
  return pairs;
}

/** Photo sets up to this size are matched exhaustively (COLMAP's guidance: a few hundred images). */
export const EXHAUSTIVE_MAX_IMAGES = 200;

export function choosePairs(kind: 'video' | 'photos', images: number): ImagePair[] {
  if (kind === 'video' || images > EXHAUSTIVE_MAX_IMAGES) return sequentialPairs(images);
  return exhaustivePairs(images);
}
