/**
 * The one seeded generator (mulberry32) of the project: the trainer's host-side randomness (image
 * order, initialization), the viewer's demo scene and the tests' random data. Its whole state is
 * one number, so checkpoints restore it exactly.
 */
export class Random {
  constructor(public state: number) {
    this.state = state >>> 0;
  }

  /** mulberry32: the next value in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  normal(): number {
    const u = Math.max(this.next(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next());
  }

  /** A random permutation of 0..n-1 (Fisher-Yates). */
  permutation(n: number): number[] {
    const p = Array.from({ length: n }, (_, i) => i);
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [p[i], p[j]] = [p[j], p[i]];
    }
    return p;
  }
}

/** The generator as a plain function of no arguments, for code that only needs uniform draws. */
export function seededRandom(seed: number): () => number {
  const random = new Random(seed);
  return () => random.next();
}

/**
 * Chris Wellons' lowbias32 on unsigned 32-bit integers: the one counter hash of the project (the
 * raster loads' draws, the benchmark's target, the random training backgrounds), well mixed for
 * consecutive inputs and the same in any language.
 */
export function lowbias32(x: number): number {
  x >>>= 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d) >>> 0;
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b) >>> 0;
  x ^= x >>> 16;
  return x >>> 0;
}
