import { describe, expect, it } from 'vitest';
import { meanSquaredKnnDistance } from '../../../../main/engine/train/knn.js';
import { freshSeed, rng } from '../../../helpers/random.js';

function bruteForce(p: Float32Array, k: number): Float64Array {
  const n = p.length / 3;
  return Float64Array.from({ length: n }, (_, i) => {
    const d: number[] = [];
    for (let j = 0; j < n; j++) if (j !== i) d.push((p[3 * j] - p[3 * i]) ** 2 + (p[3 * j + 1] - p[3 * i + 1]) ** 2 + (p[3 * j + 2] - p[3 * i + 2]) ** 2);
    d.sort((a, b) => a - b);
    return d.slice(0, k).reduce((a, b) => a + b, 0) / Math.min(k, d.length);
  });
}

describe('k nearest neighbours', () => {
  it('matches brute force on random and clustered points', () => {
    const seed = freshSeed();
    const random = rng(seed);
    const pts = new Float32Array(3 * 1500);
    for (let i = 0; i < 1500; i++) {
      const cluster = i % 3;
      for (let a = 0; a < 3; a++) pts[3 * i + a] = cluster * 5 + (cluster === 2 ? random() * 0.01 : random());
    }
    const got = meanSquaredKnnDistance(pts, 3);
    const want = bruteForce(pts, 3);
    for (let i = 0; i < want.length; i++) expect(got[i], `seed ${seed} point ${i}`).toBeCloseTo(want[i], 6);
  });
});
