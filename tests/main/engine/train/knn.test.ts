import { describe, expect, it } from 'vitest';
import { meanSquaredKnnDistance } from '../../../../main/engine/train/knn.js';
import { freshSeed, rng } from '../../../helpers/random.js';
import { meanSquaredKnnReference } from '../../../reference/knn.js';

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
    const want = meanSquaredKnnReference(pts, 3);
    for (let i = 0; i < want.length; i++) expect(got[i], `seed ${seed} point ${i}`).toBeCloseTo(want[i], 6);
  });
});
