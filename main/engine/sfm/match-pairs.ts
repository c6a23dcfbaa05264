/**
 * Which image pairs to match, by capture kind (COLMAP's matchers' rules, selectPairs): every pair
 * for a small photo set; each image's most similar images by retrieval (retrieval.ts) for a large
 * one; for video, each frame with the next `window` - 1 frames and, with quadratic overlap, frames
 * 2^k further on (k < window) too (COLMAP's rule, sequentialPairs), which links the ends of a slow pass without matching
 * everything, plus loop candidates: each frame's most similar frames beyond the window (COLMAP's
 * sequential matcher with loop detection). Pairs are (i, j) with i < j, ascending, each once.
 */
import { neighbourPairs, retrieveSimilarity, topNeighbours, RETRIEVAL_DEFAULTS, type RetrievalOptions } from './retrieval.js';
import type { AssignWords } from './retrieval-vocabulary.js';
import type { ImagePair } from './image-pair.js';

export type { ImagePair };

export function exhaustivePairs(images: number): ImagePair[] {
  const pairs: ImagePair[] = [];
  for (let i = 0; i < images; i++) for (let j = i + 1; j < images; j++) pairs.push([i, j]);
  return pairs;
}

/**
 * COLMAP 3.8's sequential matcher (SequentialFeatureMatcher::RunSequentialMatching) exactly, overlap
 * 10 and quadratic overlap on by default: for each frame i and each k < window while i + k is in
 * the set, frame i + k (k = 0 is i itself: so the next window - 1 frames) and, with quadratic
 * overlap, frame i + 2^k. The COLMAP path's sequential_matcher and capture's verification of our
 * matches (it runs that matcher) then see the same pairs: on the apple clip's 24 frames both are
 * 179, where a window of the next 10 frames made 193 and left 14 unverified.
 */
export function sequentialPairs(images: number, window = 10, quadraticOverlap = true): ImagePair[] {
  if (!Number.isInteger(window) || window < 1) throw new Error(`match pairs: window must be a positive integer, got ${window}`);
  const pairs: ImagePair[] = [];
  for (let i = 0; i < images; i++) {
    const partners = new Set<number>();
    for (let k = 0; k < window && i + k < images; k++) {
      if (k > 0) partners.add(i + k);
      if (quadraticOverlap && i + 2 ** k < images) partners.add(i + 2 ** k);
    }
    for (const j of [...partners].sort((a, b) => a - b)) pairs.push([i, j]);
  }
  return pairs;
}

/**
 * Photo sets up to this size are matched exhaustively: 4,950 pairs at 100, which the GPU matcher
 * does in minutes even on a CPU adapter; beyond it pairs grow as n^2 and retrieval's n k wins.
 */
export const EXHAUSTIVE_MAX_IMAGES = 100;
/** Loop candidates per video frame (COLMAP's loop_detection_num_images is 50 over a vocabulary tree of the whole set; ours are the set's own). */
export const LOOP_CANDIDATES = 10;
/** COLMAP's sequential overlap. */
export const SEQUENTIAL_WINDOW = 10;

export interface PairSelectionOptions {
  retrieval: Partial<RetrievalOptions>;
  /** Video: frames each frame is matched with after it. */
  window: number;
  /** Video: most similar frames beyond the window added per frame (0: none, no retrieval). */
  loopCandidates: number;
  /** Photo sets up to this size are matched exhaustively. */
  exhaustiveMaxImages: number;
}

export type PairMethod = 'exhaustive' | 'retrieval' | 'sequential' | 'sequential+loops';

export interface PairSelection {
  pairs: ImagePair[];
  method: PairMethod;
  /** Pairs that retrieval added (the whole list for 'retrieval', the loop candidates for video). */
  retrieved: number;
  /** Vocabulary and VLAD time, when retrieval ran. */
  retrievalMs?: number;
}

/**
 * The pairs to match for a capture, by kind: video -> sequential + loop candidates; photos up to
 * `exhaustiveMaxImages` -> every pair; more photos -> each image's top-k by VLAD similarity.
 * `assign`: where descriptors meet words (retrieval-gpu.ts on a GPU; the CPU's by default).
 */
export async function selectPairs(kind: 'video' | 'photos', images: readonly { descriptors: Uint8Array }[], options: Partial<PairSelectionOptions> = {}, assign?: AssignWords): Promise<PairSelection> {
  const o = { retrieval: {}, window: SEQUENTIAL_WINDOW, loopCandidates: LOOP_CANDIDATES, exhaustiveMaxImages: EXHAUSTIVE_MAX_IMAGES, ...options };
  const n = images.length;
  if (kind === 'photos' && n <= o.exhaustiveMaxImages) return { pairs: exhaustivePairs(n), method: 'exhaustive', retrieved: 0 };
  const sequential = kind === 'video' ? sequentialPairs(n, o.window) : [];
  const k = kind === 'video' ? o.loopCandidates : (o.retrieval.neighbours ?? RETRIEVAL_DEFAULTS.neighbours);
  if (k <= 0 || n < 2) return { pairs: sequential, method: kind === 'video' ? 'sequential' : 'retrieval', retrieved: 0 };
  const t0 = performance.now();
  const { similarity } = await retrieveSimilarity(images, o.retrieval, assign);
  // loop candidates: frames the sequential window does not reach
  const neighbours = topNeighbours(similarity, n, k, kind === 'video' ? (i, j) => Math.abs(i - j) > o.window : undefined);
  const retrievalMs = performance.now() - t0;
  const found = neighbourPairs(neighbours);
  if (kind === 'photos') return { pairs: found, method: 'retrieval', retrieved: found.length, retrievalMs };
  const pairs = mergePairs(sequential, found);
  return { pairs, method: 'sequential+loops', retrieved: pairs.length - sequential.length, retrievalMs };
}

/** The union of two pair lists, (i, j) ascending, each once. */
export function mergePairs(a: readonly ImagePair[], b: readonly ImagePair[]): ImagePair[] {
  const seen = new Map<string, ImagePair>();
  for (const p of [...a, ...b]) seen.set(`${p[0]},${p[1]}`, p);
  return [...seen.values()].sort((p, q) => p[0] - q[0] || p[1] - q[1]);
}
