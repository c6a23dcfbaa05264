import { describe, expect, it } from 'vitest';
import { solveLinearSystem } from '../../../shared/math/linear-solve.js';

describe('solveLinearSystem', () => {
  it('solves random well-conditioned systems to float64 accuracy (pivoting: a zero leading entry too)', () => {
    let seed = 3;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 2 - 1;
    for (const n of [1, 2, 4, 7]) {
      const A = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => random() + (i === j ? 3 : 0)));
      A[0][0] = 0; // partial pivoting must swap rows
      const x = Array.from({ length: n }, () => random());
      const b = A.map((row) => row.reduce((s, a, j) => s + a * x[j], 0));
      const copy = A.map((row) => [...row]);
      const got = n === 1 ? solveLinearSystem([[2]], [4]) : solveLinearSystem(A, b);
      if (n === 1) expect(got).toEqual([2]);
      else got!.forEach((v, i) => expect(v).toBeCloseTo(x[i], 12));
      expect(A).toEqual(copy); // inputs untouched
    }
  });

  it('takes typed rows (views of one flat matrix)', () => {
    const flat = Float64Array.from([4, 1, 0, 0, 1, 3, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1]);
    const rows = [0, 1, 2, 3].map((r) => flat.subarray(4 * r, 4 * r + 4));
    const x = solveLinearSystem(rows, Float64Array.from([5, 4, 2, 1]))!;
    [1, 1, 1, 1].forEach((v, i) => expect(x[i]).toBeCloseTo(v, 14));
  });

  it('is undefined on a singular system, relative to the pivot tolerance', () => {
    expect(solveLinearSystem([[1, 2], [2, 4]], [1, 2])).toBeUndefined();
    const nearly = [[1, 0], [0, 1e-14]];
    expect(solveLinearSystem(nearly, [1, 1])).toBeUndefined(); // under 1e-12 of the first pivot
    expect(solveLinearSystem(nearly, [1, 1], 0)).toEqual([1, 1e14]); // 0: only exact zeros refused
  });

  it('names the shape it expected', () => {
    expect(() => solveLinearSystem([[1, 2]], [1, 2])).toThrow('expected 2 rows of 2, got 1 rows of 2');
  });
});
