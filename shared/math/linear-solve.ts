/**
 * Small dense linear systems in float64, one solver for every caller (camera refinement's 7x7
 * gauge system, the rig-alignment test helper; colour correction's 4x4 normal equations).
 */

/**
 * Solves A x = b (A: n rows of n) by Gauss-Jordan elimination with partial pivoting. Undefined
 * when a pivot is not above `pivotTolerance` times the first pivot's size (at least 1): a
 * singular or degenerate system. Pass 0 to refuse only exact zeros (and NaN). Inputs are not
 * modified.
 */
export function solveLinearSystem(A: readonly ArrayLike<number>[], b: ArrayLike<number>, pivotTolerance = 1e-12): number[] | undefined {
  const n = b.length;
  if (A.length !== n || !A.every((row) => row.length === n)) throw new Error(`solveLinearSystem: expected ${n} rows of ${n}, got ${A.length} rows of ${A.map((row) => row.length).join(', ')}`);
  const M = A.map((row, i) => [...Array.from(row), b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r][c]) > Math.abs(M[p][c])) p = r;
    if (!(Math.abs(M[p][c]) > pivotTolerance * Math.max(1, Math.abs(M[0][0])))) return undefined;
    [M[c], M[p]] = [M[p], M[c]];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = M[r][c] / M[c][c];
      for (let k = c; k <= n; k++) M[r][k] -= f * M[c][k];
    }
  }
  return M.map((row, i) => row[n] / M[i][i]);
}
