import { CholeskyDecomposition, Matrix } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { choleskyFactor, choleskySolve } from '../../../../../main/engine/sfm/global/cholesky.js';
import { Random } from '../../../../../shared/random.js';
import { freshSeed } from '../../../../helpers/random.js';

const seed = freshSeed();

/** A random symmetric positive definite matrix, row-major: B B^T + size I. */
function spd(random: Random, size: number): Float64Array {
  const b = Float64Array.from({ length: size * size }, () => random.normal());
  const a = new Float64Array(size * size);
  for (let i = 0; i < size; i++) for (let j = 0; j < size; j++) {
    let s = 0;
    for (let k = 0; k < size; k++) s += b[i * size + k] * b[j * size + k];
    a[i * size + j] = s + (i === j ? size : 0);
  }
  return a;
}

describe(`dense Cholesky on flat arrays (seed ${seed})`, () => {
  it("gives ml-matrix's factor and solution to the bit, for one and several right-hand sides", () => {
    const random = new Random(seed);
    for (const [size, columns] of [[1, 1], [7, 3], [40, 1], [95, 3]]) {
      const a = spd(random, size);
      const b = Float64Array.from({ length: size * columns }, () => random.normal());
      const rows = (m: Float64Array, width: number) => Array.from({ length: m.length / width }, (_, r) => Array.from(m.subarray(r * width, (r + 1) * width)));
      const reference = new CholeskyDecomposition(new Matrix(rows(a, size)));
      const factor = choleskyFactor(a, size)!;
      expect(Array.from(factor)).toEqual(reference.lowerTriangularMatrix.to1DArray());
      const x = choleskySolve(factor, size, b, columns);
      expect(Array.from(x)).toEqual(reference.solve(new Matrix(rows(b, columns))).to1DArray());
      // and it solves the system
      for (let r = 0; r < size; r++) for (let c = 0; c < columns; c++) {
        let s = 0;
        for (let k = 0; k < size; k++) s += a[r * size + k] * x[k * columns + c];
        expect(s).toBeCloseTo(b[r * columns + c], 8);
      }
    }
  });

  it('refuses a matrix that is not positive definite, and sizes that do not fit', () => {
    expect(choleskyFactor(Float64Array.from([1, 2, 2, 1]), 2)).toBeUndefined(); // eigenvalues 3 and -1
    expect(choleskyFactor(Float64Array.from([1, 0, 0, 0]), 2)).toBeUndefined(); // singular
    expect(() => choleskyFactor(new Float64Array(5), 2)).toThrow(/2 x 2 matrix needs 4 entries, got 5/);
    expect(() => choleskySolve(Float64Array.from([1]), 1, new Float64Array(2), 1)).toThrow(/1 right-hand side\(s\) of 1 need 1 entries, got 2/);
  });
});
