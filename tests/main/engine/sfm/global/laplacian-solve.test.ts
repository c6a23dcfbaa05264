import { describe, expect, it } from 'vitest';
import { solveDifferences, type DifferenceTerm } from '../../../../../main/engine/sfm/global/laplacian-solve.js';
import { Random } from '../../../../../shared/random.js';
import { freshSeed } from '../../../../helpers/random.js';

const seed = freshSeed();

describe(`the difference solve (seed ${seed})`, () => {
  it('eliminating the point nodes (Schur complement) gives the full solve exactly', () => {
    const random = new Random(seed);
    const cameras = 7;
    const points = 30;
    const terms: DifferenceTerm[] = [];
    const target = (): [number, number, number] => [random.normal(), random.normal(), random.normal()];
    for (let a = 0; a < cameras; a++) for (let b = a + 1; b < cameras; b++) if (random.next() < 0.6 || b === a + 1) terms.push({ a, b, scale: 0.5 + random.next(), target: target(), weight: 0.1 + random.next() });
    for (let p = 0; p < points; p++) {
      for (let c = 0; c < cameras; c++) if (random.next() < 0.5 || c === p % cameras) terms.push({ a: c, b: cameras + p, scale: 0.5 + random.next(), target: target(), weight: 0.1 + random.next() });
    }
    const fixed = Math.floor(random.next() * cameras);
    const full = solveDifferences(cameras + points, terms, fixed);
    const schur = solveDifferences(cameras + points, terms, fixed, cameras);
    let worst = 0;
    for (let i = 0; i < full.length; i++) worst = Math.max(worst, Math.abs(full[i] - schur[i]));
    expect(worst).toBeLessThan(1e-9);
    expect([full[3 * fixed], full[3 * fixed + 1], full[3 * fixed + 2]]).toEqual([0, 0, 0]);
    // The solution is a minimum: the gradient of the weighted squared residuals vanishes.
    const gradient = new Float64Array(full.length);
    for (const { a, b, scale, target: t, weight } of terms) {
      for (let c = 0; c < 3; c++) {
        const r = scale * (full[3 * b + c] - full[3 * a + c]) - t[c];
        gradient[3 * b + c] += weight * scale * r;
        gradient[3 * a + c] -= weight * scale * r;
      }
    }
    gradient.fill(0, 3 * fixed, 3 * fixed + 3);
    expect(Math.max(...gradient.map(Math.abs))).toBeLessThan(1e-9);
  });

  it('names the problem when a node has no term, or two eliminated nodes are joined', () => {
    const t: [number, number, number] = [1, 0, 0];
    expect(() => solveDifferences(3, [{ a: 0, b: 1, scale: 1, target: t, weight: 1 }], 0)).toThrow(/laplacian-solve\.ts: the weighted normal matrix is singular/);
    expect(() => solveDifferences(4, [{ a: 2, b: 3, scale: 1, target: t, weight: 1 }], 0, 2)).toThrow(/joins two eliminated nodes/);
  });
});
