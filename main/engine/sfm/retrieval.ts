/**
 * Image retrieval for pair selection (match-pairs.ts): a global descriptor per image, VLAD over a
 * vocabulary trained on the set itself (retrieval-vocabulary.ts); image similarity is the dot
 * product of two VLADs, and each image's most similar images become its pairs.
 *
 * VLAD (Jegou et al. 2010; normalisations of Arandjelovic & Zisserman 2013): per word, the sum of
 * the residuals (descriptor - word) of the image's descriptors assigned to it; each word's block
 * L2-normalised (intra-normalisation, so a burst of similar features, a texture, weighs one
 * word's worth), then signed square roots (power normalisation), then L2 over the whole vector.
 * Descriptors and words enter as unit vectors (bytes / 512): the vocabulary's own scale.
 */
import type { ImagePair } from './image-pair.js';
import { cpuWordAssigner, sampleDescriptors, trainVocabulary, type AssignWords, type Vocabulary, type VocabularyOptions } from './retrieval-vocabulary.js';
import { DESCRIPTOR_BYTE_SCALE, DESCRIPTOR_SIZE } from './sift-options.js';

// Module-local copy: an imported binding read in the hot loops costs a property access per read under some loaders (vitest's).
const D = DESCRIPTOR_SIZE;
const BYTE_SCALE = DESCRIPTOR_BYTE_SCALE;

export interface RetrievalOptions extends VocabularyOptions {
  /** Descriptors the vocabulary is trained on, drawn evenly from all images. */
  sampleSize: number;
  /** Most similar images kept per image (its pairs). */
  neighbours: number;
}

export const RETRIEVAL_DEFAULTS: Readonly<RetrievalOptions> = { words: 64, iterations: 10, seed: 1, sampleSize: 50_000, neighbours: 25 };

/** An image's VLAD: `words` blocks of 128, unit L2 norm (all zeros for an image without descriptors). */
export async function vladDescriptor(descriptors: Uint8Array, vocabulary: Vocabulary, assign: AssignWords = cpuWordAssigner): Promise<Float32Array> {
  const vlad = new Float64Array(vocabulary.count * D);
  const n = descriptors.length / D;
  if (n) {
    const { index } = await assign(descriptors, vocabulary.words);
    const { words } = vocabulary;
    for (let i = 0; i < n; i++) {
      const at = index[i] * D;
      for (let j = 0; j < D; j++) vlad[at + j] += (descriptors[i * D + j] - words[at + j]) / BYTE_SCALE;
    }
  }
  for (let w = 0; w < vocabulary.count; w++) normalize(vlad.subarray(w * D, (w + 1) * D));
  for (let j = 0; j < vlad.length; j++) vlad[j] = Math.sign(vlad[j]) * Math.sqrt(Math.abs(vlad[j]));
  normalize(vlad);
  return Float32Array.from(vlad);
}

function normalize(v: Float64Array): void {
  let s = 0;
  for (const x of v) s += x * x;
  if (s > 0) {
    const inv = 1 / Math.sqrt(s);
    for (let j = 0; j < v.length; j++) v[j] *= inv;
  }
}

/** Symmetric n x n matrix of VLAD dot products (row-major; the diagonal is 1, or 0 for an empty image). */
export function similarityMatrix(vlads: readonly Float32Array[]): Float64Array {
  const n = vlads.length;
  const s = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = i; j < n; j++) {
      const a = vlads[i];
      const b = vlads[j];
      let dot = 0;
      for (let c = 0; c < a.length; c++) dot += a[c] * b[c];
      s[i * n + j] = s[j * n + i] = dot;
    }
  return s;
}

/**
 * Each image's `k` most similar other images, most similar first (ties to the lower index), among
 * those `allowed(i, j)` admits (loop candidates: only frames far in time).
 */
export function topNeighbours(similarity: Float64Array, n: number, k: number, allowed: (i: number, j: number) => boolean = () => true): number[][] {
  if (similarity.length !== n * n) throw new Error(`retrieval: a similarity matrix of ${similarity.length} values is not ${n} x ${n}`);
  return Array.from({ length: n }, (_, i) => {
    const others: number[] = [];
    for (let j = 0; j < n; j++) if (j !== i && allowed(i, j)) others.push(j);
    others.sort((a, b) => similarity[i * n + b] - similarity[i * n + a] || a - b);
    return others.slice(0, k);
  });
}

/** Neighbour lists as pairs (i, j), i < j, ascending, each once: j in i's list or i in j's. */
export function neighbourPairs(neighbours: readonly (readonly number[])[]): ImagePair[] {
  const keys = new Set<number>();
  const n = neighbours.length;
  neighbours.forEach((list, i) => {
    for (const j of list) keys.add(Math.min(i, j) * n + Math.max(i, j));
  });
  return [...keys].sort((a, b) => a - b).map((key) => [Math.floor(key / n), key % n] as const);
}

export interface Retrieval {
  vocabulary: Vocabulary;
  /** VLAD dot products, n x n. */
  similarity: Float64Array;
  timings: { vocabularyMs: number; vladMs: number; similarityMs: number };
}

/** Trains the set's vocabulary and scores every image pair by VLAD similarity. */
export async function retrieveSimilarity(images: readonly { descriptors: Uint8Array }[], options: Partial<RetrievalOptions> = {}, assign: AssignWords = cpuWordAssigner): Promise<Retrieval> {
  const o = { ...RETRIEVAL_DEFAULTS, ...options };
  const t0 = performance.now();
  const sample = sampleDescriptors(images, o.sampleSize, o.seed);
  if (!sample.length) throw new Error(`retrieval: none of the ${images.length} images has descriptors`);
  const vocabulary = await trainVocabulary(sample, { ...o, words: Math.min(o.words, sample.length / D) }, assign);
  const t1 = performance.now();
  const vlads: Float32Array[] = [];
  for (const im of images) vlads.push(await vladDescriptor(im.descriptors, vocabulary, assign));
  const t2 = performance.now();
  const similarity = similarityMatrix(vlads);
  const t3 = performance.now();
  return { vocabulary, similarity, timings: { vocabularyMs: t1 - t0, vladMs: t2 - t1, similarityMs: t3 - t2 } };
}
