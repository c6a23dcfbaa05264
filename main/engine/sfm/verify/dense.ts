/**
 * Small dense linear algebra for geometric verification, in float64: 3x3 matrices as row-major
 * Float64Array(9), and null spaces through ml-matrix's SVD (one well-tested SVD instead of our own).
 */
import { EigenvalueDecomposition, Matrix, SingularValueDecomposition } from 'ml-matrix';

/** A 3x3 matrix, row-major: m[3 * row + column]. */
export type Mat3 = Float64Array;
export type Vec3 = [number, number, number];

export function mat3(values: ArrayLike<number>): Mat3 {
  return Float64Array.from(values);
}

export function multiply3(a: Mat3, b: Mat3): Mat3 {
  const out = new Float64Array(9);
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 3; c++) out[3 * r + c] = a[3 * r] * b[c] + a[3 * r + 1] * b[3 + c] + a[3 * r + 2] * b[6 + c];
  }
  return out;
}

export function transpose3(a: Mat3): Mat3 {
  return mat3([a[0], a[3], a[6], a[1], a[4], a[7], a[2], a[5], a[8]]);
}

export function determinant3(a: Mat3): number {
  return a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) + a[2] * (a[3] * a[7] - a[4] * a[6]);
}

export function applyMat3(a: Mat3, v: Vec3): Vec3 {
  return [
    a[0] * v[0] + a[1] * v[1] + a[2] * v[2],
    a[3] * v[0] + a[4] * v[1] + a[5] * v[2],
    a[6] * v[0] + a[7] * v[1] + a[8] * v[2],
  ];
}

/** [t]x: the matrix of the cross product t x v. */
export function crossMatrix(t: Vec3): Mat3 {
  return mat3([0, -t[2], t[1], t[2], 0, -t[0], -t[1], t[0], 0]);
}

export function normalise3(v: Vec3): Vec3 {
  const n = Math.hypot(v[0], v[1], v[2]);
  return [v[0] / n, v[1] / n, v[2] / n];
}

/** Frobenius-normalised copy, so models compare independent of their arbitrary scale. */
export function frobeniusNormalised(a: Mat3): Mat3 {
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += a[i] * a[i];
  const scale = 1 / Math.sqrt(sum);
  return a.map((v) => v * scale);
}

export interface Svd3 {
  u: Mat3;
  singularValues: Vec3;
  v: Mat3;
}

/** a = u diag(s) v^T, singular values in descending order. */
export function svd3(a: Mat3): Svd3 {
  const svd = new SingularValueDecomposition(toMatrix(a, 3, 3), { autoTranspose: false });
  const s = svd.diagonal;
  return { u: fromMatrix(svd.leftSingularVectors), singularValues: [s[0], s[1], s[2]], v: fromMatrix(svd.rightSingularVectors) };
}

/**
 * The `count` right singular vectors of the smallest singular values of a rowCount x columnCount
 * matrix (row-major `rows`); result[0] belongs to the smallest.
 * Up to columnCount rows (minimal samples) the matrix itself is decomposed, padded with zero rows
 * (same right singular vectors, and ml-matrix then returns all of them); with more rows (refits on
 * all inliers) the columnCount x columnCount normal matrix A^T A is, which has the same singular
 * vectors at a cost independent of the row count. Its squared condition is harmless here because
 * every caller feeds Hartley-normalised coordinates.
 */
export function smallestRightSingularVectors(rows: Float64Array, rowCount: number, columnCount: number, count: number): Float64Array[] {
  let matrix: Matrix;
  if (rowCount <= columnCount) {
    matrix = new Matrix(columnCount, columnCount);
    for (let r = 0; r < rowCount; r++) for (let c = 0; c < columnCount; c++) matrix.set(r, c, rows[r * columnCount + c]);
  } else {
    const normal = new Float64Array(columnCount * columnCount);
    for (let r = 0; r < rowCount; r++) {
      const base = r * columnCount;
      for (let i = 0; i < columnCount; i++) {
        const ai = rows[base + i];
        if (ai === 0) continue;
        for (let j = i; j < columnCount; j++) normal[i * columnCount + j] += ai * rows[base + j];
      }
    }
    for (let i = 0; i < columnCount; i++) for (let j = 0; j < i; j++) normal[i * columnCount + j] = normal[j * columnCount + i];
    matrix = toMatrix(normal, columnCount, columnCount);
  }
  const svd = new SingularValueDecomposition(matrix, { computeLeftSingularVectors: false, autoTranspose: false });
  const v = svd.rightSingularVectors;
  const result: Float64Array[] = [];
  for (let k = 0; k < count; k++) result.push(Float64Array.from(v.getColumn(columnCount - 1 - k)));
  return result;
}

/** Real eigenvalues of a square matrix and their (real) right eigenvectors; complex pairs dropped. */
export function realEigenpairs(values: Float64Array, size: number, imaginaryTolerance: number): { value: number; vector: Float64Array }[] {
  const eig = new EigenvalueDecomposition(toMatrix(values, size, size), { assumeSymmetric: false });
  const pairs: { value: number; vector: Float64Array }[] = [];
  for (let k = 0; k < size; k++) {
    if (Math.abs(eig.imaginaryEigenvalues[k]) > imaginaryTolerance) continue;
    pairs.push({ value: eig.realEigenvalues[k], vector: Float64Array.from(eig.eigenvectorMatrix.getColumn(k)) });
  }
  return pairs;
}

function toMatrix(values: ArrayLike<number>, rows: number, columns: number): Matrix {
  const m = new Matrix(rows, columns);
  for (let r = 0; r < rows; r++) for (let c = 0; c < columns; c++) m.set(r, c, values[r * columns + c]);
  return m;
}

function fromMatrix(m: Matrix): Mat3 {
  return mat3(m.to1DArray());
}
/** The inverse of a 3x3 matrix by its adjugate, or undefined where it is singular. */
export function inverse3(a: Mat3): Mat3 | undefined {
  const det = determinant3(a);
  if (det === 0 || !Number.isFinite(det)) return undefined;
  const s = 1 / det;
  return mat3([
    (a[4] * a[8] - a[5] * a[7]) * s,
    (a[2] * a[7] - a[1] * a[8]) * s,
    (a[1] * a[5] - a[2] * a[4]) * s,
    (a[5] * a[6] - a[3] * a[8]) * s,
    (a[0] * a[8] - a[2] * a[6]) * s,
    (a[2] * a[3] - a[0] * a[5]) * s,
    (a[3] * a[7] - a[4] * a[6]) * s,
    (a[1] * a[6] - a[0] * a[7]) * s,
    (a[0] * a[4] - a[1] * a[3]) * s,
  ]);
}

/**
 * A basis of the null space of a rowCount x columnCount matrix, `dimension` vectors. When the
 * rows are exactly columnCount - dimension (minimal samples) this is Gaussian elimination with
 * complete pivoting, a basis vector per free column (5-10x cheaper than ml-matrix's SVD, which
 * dominated RANSAC's time); otherwise, or if the rows are rank deficient, the least-squares null
 * space: the smallest right singular vectors.
 */
export function nullSpace(rows: Float64Array, rowCount: number, columnCount: number, dimension: number): Float64Array[] {
  if (rowCount !== columnCount - dimension) return smallestRightSingularVectors(rows, rowCount, columnCount, dimension);
  const m = Float64Array.from(rows.subarray(0, rowCount * columnCount));
  const columns = Array.from({ length: columnCount }, (_, i) => i);
  let scale = 0;
  for (const v of m) scale = Math.max(scale, Math.abs(v));
  for (let k = 0; k < rowCount; k++) {
    let pivotRow = k;
    let pivotColumn = k;
    let pivotMagnitude = 0;
    for (let r = k; r < rowCount; r++) {
      for (let c = k; c < columnCount; c++) {
        const magnitude = Math.abs(m[r * columnCount + columns[c]]);
        if (magnitude > pivotMagnitude) [pivotMagnitude, pivotRow, pivotColumn] = [magnitude, r, c];
      }
    }
    if (pivotMagnitude <= 1e-12 * scale) return smallestRightSingularVectors(rows, rowCount, columnCount, dimension);
    if (pivotRow !== k) {
      for (let c = 0; c < columnCount; c++) {
        const t = m[k * columnCount + c];
        m[k * columnCount + c] = m[pivotRow * columnCount + c];
        m[pivotRow * columnCount + c] = t;
      }
    }
    [columns[k], columns[pivotColumn]] = [columns[pivotColumn], columns[k]];
    const pivot = m[k * columnCount + columns[k]];
    for (let r = 0; r < rowCount; r++) {
      if (r === k) continue;
      const factor = m[r * columnCount + columns[k]] / pivot;
      if (factor === 0) continue;
      for (let c = 0; c < columnCount; c++) m[r * columnCount + c] -= factor * m[k * columnCount + c];
    }
  }
  // Reduced: pivot k in column columns[k] alone; each free column f gives x_f = 1,
  // x_columns[k] = -m[k][f] / pivot_k.
  const basis: Float64Array[] = [];
  for (let f = rowCount; f < columnCount; f++) {
    const v = new Float64Array(columnCount);
    v[columns[f]] = 1;
    for (let k = 0; k < rowCount; k++) v[columns[k]] = -m[k * columnCount + columns[f]] / m[k * columnCount + columns[k]];
    let norm = 0;
    for (const x of v) norm += x * x;
    norm = Math.sqrt(norm);
    basis.push(v.map((x) => x / norm));
  }
  return basis;
}
