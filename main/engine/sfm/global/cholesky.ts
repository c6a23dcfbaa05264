/**
 * Dense Cholesky factorisation and solve on flat row-major Float64Arrays, for the mapper's normal
 * equations (laplacian-solve.ts: n x n; position-refinement.ts: 3n x 3n). The loops and their
 * order are ml-matrix's CholeskyDecomposition's (row by row, the same sums in the same order), so
 * the answers are the same to the bit; its Matrix get / set cost ~10x a typed-array access,
 * which made the factorisation most of global mapping's time at 150 cameras (docs/sfm.md, "Speed
 * (issue 16)").
 */

/**
 * L (lower, row-major) with a = L L^T, or undefined when `a` is not positive definite (a pivot
 * <= 0, as ml-matrix's isPositiveDefinite). Only a's lower triangle is read.
 */
export function choleskyFactor(a: Float64Array, size: number): Float64Array | undefined {
  if (a.length !== size * size) throw new Error(`cholesky.ts: a ${size} x ${size} matrix needs ${size * size} entries, got ${a.length}`);
  const l = new Float64Array(size * size);
  let positiveDefinite = true;
  for (let j = 0; j < size; j++) {
    const rowJ = j * size;
    let d = 0;
    for (let k = 0; k < j; k++) {
      const rowK = k * size;
      let s = 0;
      for (let i = 0; i < k; i++) s += l[rowK + i] * l[rowJ + i];
      s = (a[rowJ + k] - s) / l[rowK + k];
      l[rowJ + k] = s;
      d = d + s * s;
    }
    d = a[rowJ + j] - d;
    positiveDefinite &&= d > 0;
    l[rowJ + j] = Math.sqrt(Math.max(d, 0));
  }
  return positiveDefinite ? l : undefined;
}

/** x with L L^T x = b, for `columns` right-hand sides (b row-major, size x columns); b is left as it was. */
export function choleskySolve(l: Float64Array, size: number, b: Float64Array, columns: number): Float64Array {
  if (b.length !== size * columns) throw new Error(`cholesky.ts: ${columns} right-hand side(s) of ${size} need ${size * columns} entries, got ${b.length}`);
  const x = Float64Array.from(b);
  for (let k = 0; k < size; k++) {
    for (let j = 0; j < columns; j++) {
      for (let i = 0; i < k; i++) x[k * columns + j] = x[k * columns + j] - x[i * columns + j] * l[k * size + i];
      x[k * columns + j] = x[k * columns + j] / l[k * size + k];
    }
  }
  for (let k = size - 1; k >= 0; k--) {
    for (let j = 0; j < columns; j++) {
      for (let i = k + 1; i < size; i++) x[k * columns + j] = x[k * columns + j] - x[i * columns + j] * l[i * size + k];
      x[k * columns + j] = x[k * columns + j] / l[k * size + k];
    }
  }
  return x;
}
