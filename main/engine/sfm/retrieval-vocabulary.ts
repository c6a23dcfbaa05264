/**
 * The visual vocabulary of image retrieval (retrieval.ts): spherical k-means over a sample of the
 * set's own RootSIFT descriptors, k-means++ seeded and deterministic.
 *
 * Words are kept as descriptor bytes (unit vectors at scale 512, like the descriptors), and a
 * descriptor's word is the one of largest integer dot product, ties to the lower index: exactly
 * what the matcher's kernel computes (kernels/match-nearest.wgsl), so the GPU assignment and the
 * CPU one agree to the bit and the vocabulary does not depend on where it was trained. On unit
 * vectors the largest dot product is the nearest in L2, so this is k-means on the sphere.
 */
import { Random } from '../../../shared/random.js';
import { DESCRIPTOR_BYTE_SCALE, DESCRIPTOR_SIZE } from './sift-options.js';

// Module-local copy: an imported binding read in the hot loops costs a property access per read under some loaders (vitest's).
const D = DESCRIPTOR_SIZE;

/** Byte dot products over this are cosines of the unit vectors. */
const DOT_SCALE = DESCRIPTOR_BYTE_SCALE * DESCRIPTOR_BYTE_SCALE;

/** Each descriptor's word and its dot product with it (a cosine, over DOT_SCALE). */
export interface WordAssignment {
  index: Uint32Array;
  best: Float64Array;
}

/** Assigns descriptors (bytes, 128 each) to words (bytes, 128 each): the CPU's or the GPU's (retrieval-gpu.ts). */
export type AssignWords = (descriptors: Uint8Array, words: Uint8Array) => Promise<WordAssignment>;

export interface VocabularyOptions {
  /** Words in the vocabulary (k). */
  words: number;
  /** Lloyd iterations at most (stops early when no assignment changes). */
  iterations: number;
  /** Seed of the k-means++ draws (shared/random.ts). */
  seed: number;
}

export const VOCABULARY_DEFAULTS: Readonly<VocabularyOptions> = { words: 64, iterations: 10, seed: 1 };

/** Words as bytes, 128 per word, each a unit vector at scale 512. */
export interface Vocabulary {
  words: Uint8Array;
  count: number;
  /** Lloyd iterations run, and whether the last one changed nothing. */
  iterations: number;
  converged: boolean;
}

/** The CPU assignment: integer dot products, ties to the lower word (the kernel's rule). */
export function assignWordsOnCpu(descriptors: Uint8Array, words: Uint8Array): WordAssignment {
  const n = descriptors.length / D;
  const k = words.length / D;
  const index = new Uint32Array(n).fill(0xffffffff);
  const best = new Float64Array(n).fill(-1);
  // int32 copies: the JIT keeps the unrolled products in integer registers (1.4x over bytes)
  const w32 = Int32Array.from(words);
  const q = new Int32Array(D);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < D; j++) q[j] = descriptors[i * D + j];
    let bestDot = -1;
    let bestWord = 0xffffffff;
    for (let w = 0; w < k; w++) {
      const c = w * D;
      let dot = 0;
      for (let j = 0; j < D; j += 4) dot += q[j] * w32[c + j] + q[j + 1] * w32[c + j + 1] + q[j + 2] * w32[c + j + 2] + q[j + 3] * w32[c + j + 3];
      if (dot > bestDot) {
        bestDot = dot;
        bestWord = w;
      }
    }
    index[i] = bestWord;
    best[i] = bestDot / DOT_SCALE;
  }
  return { index, best };
}

export const cpuWordAssigner: AssignWords = async (descriptors, words) => assignWordsOnCpu(descriptors, words);

/**
 * Up to `size` descriptors drawn evenly from every image (the same share of each, seeded), so a
 * few feature-rich images do not make the vocabulary theirs.
 */
export function sampleDescriptors(images: readonly { descriptors: Uint8Array }[], size: number, seed: number): Uint8Array {
  const counts = images.map((im) => im.descriptors.length / D);
  const total = counts.reduce((a, b) => a + b, 0);
  if (total <= size) {
    const all = new Uint8Array(total * D);
    let at = 0;
    for (const im of images) {
      all.set(im.descriptors, at);
      at += im.descriptors.length;
    }
    return all;
  }
  const random = new Random(seed);
  const picked: Uint8Array[] = [];
  images.forEach((im, i) => {
    const take = Math.round((counts[i] * size) / total);
    for (const r of random.permutation(counts[i]).slice(0, take)) picked.push(im.descriptors.subarray(r * D, (r + 1) * D));
  });
  const out = new Uint8Array(picked.length * D);
  picked.forEach((d, i) => out.set(d, i * D));
  return out;
}

/** A vector of sums as a word: unit length at the descriptors' byte scale, rounded, clamped to 255. */
export function quantizeWord(sum: ArrayLike<number>, into: Uint8Array, offset: number): void {
  let norm = 0;
  for (let j = 0; j < D; j++) norm += sum[j] * sum[j];
  norm = Math.sqrt(norm) || 1;
  for (let j = 0; j < D; j++) into[offset + j] = Math.min(255, Math.max(0, Math.round((DESCRIPTOR_BYTE_SCALE * sum[j]) / norm)));
}

/** k-means++: the first word uniform, each next one drawn with weight the squared distance 2 - 2 cos to the nearest word so far. */
function kMeansPlusPlus(sample: Uint8Array, k: number, random: Random): Uint8Array {
  const n = sample.length / D;
  const words = new Uint8Array(k * D);
  const nearest = new Float64Array(n).fill(Infinity);
  let chosen = Math.floor(random.next() * n);
  for (let w = 0; w < k; w++) {
    quantizeWord(sample.subarray(chosen * D, (chosen + 1) * D), words, w * D);
    let total = 0;
    for (let i = 0; i < n; i++) {
      let dot = 0;
      for (let j = 0; j < D; j++) dot += sample[i * D + j] * words[w * D + j];
      nearest[i] = Math.min(nearest[i], Math.max(0, 2 - (2 * dot) / DOT_SCALE));
      total += nearest[i];
    }
    if (w + 1 === k) break;
    // every sample already on a word (fewer distinct descriptors than words): repeat a uniform draw
    let target = random.next() * total;
    chosen = n - 1;
    if (total > 0) {
      for (let i = 0; i < n; i++) if ((target -= nearest[i]) < 0) { chosen = i; break; }
    } else chosen = Math.floor(random.next() * n);
  }
  return words;
}

/**
 * Trains a vocabulary of `options.words` words on `sample` (bytes, 128 per descriptor): k-means++
 * then Lloyd iterations (assign, each word the normalised mean of its descriptors). A word left
 * empty takes the descriptor farthest from its own word (lowest cosine; the lower index on ties),
 * so every word stays in use.
 */
export async function trainVocabulary(sample: Uint8Array, options: Partial<VocabularyOptions> = {}, assign: AssignWords = cpuWordAssigner): Promise<Vocabulary> {
  const o = { ...VOCABULARY_DEFAULTS, ...options };
  const n = sample.length / D;
  if (!Number.isInteger(o.words) || o.words < 1) throw new Error(`vocabulary: words must be a positive integer, got ${o.words}`);
  if (!Number.isInteger(n) || n < o.words) throw new Error(`vocabulary: ${n} sample descriptors for ${o.words} words (at least one each needed)`);
  const k = o.words;
  const words = kMeansPlusPlus(sample, k, new Random(o.seed));
  let previous: Uint32Array | undefined;
  let iterations = 0;
  let converged = false;
  while (iterations < o.iterations) {
    const { index, best } = await assign(sample, words);
    iterations++;
    if (previous && index.every((w, i) => w === previous![i])) {
      converged = true;
      break;
    }
    previous = index;
    const sums = new Float64Array(k * D);
    const members = new Uint32Array(k);
    for (let i = 0; i < n; i++) {
      const w = index[i];
      members[w]++;
      for (let j = 0; j < D; j++) sums[w * D + j] += sample[i * D + j];
    }
    const farthest = Array.from({ length: n }, (_, i) => i).sort((a, b) => best[a] - best[b] || a - b);
    let next = 0;
    for (let w = 0; w < k; w++) {
      const from = members[w] ? sums.subarray(w * D, (w + 1) * D) : sample.subarray(farthest[next] * D, (farthest[next++] + 1) * D);
      quantizeWord(from, words, w * D);
    }
  }
  return { words, count: k, iterations, converged };
}
