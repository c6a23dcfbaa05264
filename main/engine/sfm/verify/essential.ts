/**
 * Essential matrix from 5 correspondences in normalised camera coordinates (x = K^-1 pixel), after
 * Stewenius, Engels and Nister, "Recent developments on direct relative orientation" (ISPRS 2006):
 * E lies in the 4-dimensional null space of the 5 epipolar rows, E = x X + y Y + z Z + W; the
 * determinant and the 9 trace constraints 2 E E^T E - tr(E E^T) E = 0 are 10 cubics in (x, y, z)
 * over 20 monomials; Gauss-Jordan elimination of the 10 x 20 system leaves the 10 cubic leading
 * monomials as combinations of the 10 others, which gives the action matrix of multiplication by x;
 * its real eigenvectors are the monomial vectors at the (up to 10) solutions.
 * With more than 5 points (local optimisation on inliers) the null space is the least-squares one.
 */
import { nullSpace, realEigenpairs, type Mat3 } from './dense.js';
import { epipolarRow, sampsonSquaredErrors } from './fundamental.js';
import { refineEssential } from './refine-essential.js';
import type { ModelEstimator } from './ransac.js';

/** Monomials of degree <= 3 in (x, y, z), in the elimination order: the 10 cubics, then the basis. */
const MONOMIALS: readonly (readonly [number, number, number])[] = [
  [3, 0, 0], [2, 1, 0], [2, 0, 1], [1, 2, 0], [1, 1, 1], [1, 0, 2], [0, 3, 0], [0, 2, 1], [0, 1, 2], [0, 0, 3],
  [2, 0, 0], [1, 1, 0], [1, 0, 1], [0, 2, 0], [0, 1, 1], [0, 0, 2], [1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 0],
];
const TERMS = MONOMIALS.length;
const X = 16;
const Y = 17;
const Z = 18;
const ONE = 19;

/** PRODUCT[i * 20 + j]: the index of monomial i times monomial j, -1 above degree 3. */
const PRODUCT = (() => {
  const table = new Int8Array(TERMS * TERMS).fill(-1);
  const key = (e: readonly number[]): string => e.join(',');
  const index = new Map(MONOMIALS.map((e, i) => [key(e), i]));
  for (let i = 0; i < TERMS; i++) {
    for (let j = 0; j < TERMS; j++) {
      const sum = [0, 1, 2].map((d) => MONOMIALS[i][d] + MONOMIALS[j][d]);
      table[i * TERMS + j] = index.get(key(sum)) ?? -1;
    }
  }
  return table;
})();

type Polynomial = Float64Array;

function multiply(a: Polynomial, b: Polynomial): Polynomial {
  const out = new Float64Array(TERMS);
  for (let i = 0; i < TERMS; i++) {
    if (a[i] === 0) continue;
    for (let j = 0; j < TERMS; j++) {
      if (b[j] === 0) continue;
      const k = PRODUCT[i * TERMS + j];
      if (k < 0) throw new Error('essential.ts: polynomial product above degree 3');
      out[k] += a[i] * b[j];
    }
  }
  return out;
}

function addScaled(target: Polynomial, source: Polynomial, scale: number): void {
  for (let i = 0; i < TERMS; i++) target[i] += scale * source[i];
}

/** Every E of the 5-point problem (more points: least squares), each up to scale. */
export function estimateEssential(points1: Float64Array, points2: Float64Array, indices: ArrayLike<number>, weights?: Float64Array): Mat3[] {
  const n = indices.length;
  if (n < 5) return [];
  const rows = new Float64Array(9 * n);
  for (let k = 0; k < n; k++) {
    const i = indices[k];
    epipolarRow(points1[2 * i], points1[2 * i + 1], points2[2 * i], points2[2 * i + 1], rows, 9 * k);
    if (weights) for (let c = 0; c < 9; c++) rows[9 * k + c] *= weights[k];
  }
  const [w, z, y, x] = nullSpace(rows, n, 9, 4);
  // E[e] as a linear polynomial x X + y Y + z Z + W.
  const e: Polynomial[] = [];
  for (let k = 0; k < 9; k++) {
    const p = new Float64Array(TERMS);
    p[X] = x[k];
    p[Y] = y[k];
    p[Z] = z[k];
    p[ONE] = w[k];
    e.push(p);
  }
  const system = constraintRows(e);
  if (!eliminate(system)) return [];
  const action = new Float64Array(100);
  // Basis b = [x^2, xy, xz, y^2, yz, z^2, x, y, z, 1] (monomials 10..19); x b = action b.
  // x times x^2, xy, xz, y^2, yz, z^2 are the cubics 0..5: leading_i = -sum_j B[i][j] b_j.
  for (let r = 0; r < 6; r++) for (let c = 0; c < 10; c++) action[10 * r + c] = -system[r * TERMS + 10 + c];
  action[10 * 6 + 0] = 1; // x * x = x^2
  action[10 * 7 + 1] = 1; // x * y = xy
  action[10 * 8 + 2] = 1; // x * z = xz
  action[10 * 9 + 6] = 1; // x * 1 = x
  const models: Mat3[] = [];
  for (const { vector } of realEigenpairs(action, 10, 1e-9)) {
    if (Math.abs(vector[9]) < 1e-12) continue;
    const sx = vector[6] / vector[9];
    const sy = vector[7] / vector[9];
    const sz = vector[8] / vector[9];
    const model = new Float64Array(9);
    for (let k = 0; k < 9; k++) model[k] = sx * x[k] + sy * y[k] + sz * z[k] + w[k];
    if (model.every(Number.isFinite)) models.push(model);
  }
  return models;
}

/** The 10 x 20 coefficient matrix of det(E) = 0 and 2 E E^T E - tr(E E^T) E = 0. */
function constraintRows(e: Polynomial[]): Float64Array {
  const at = (r: number, c: number): Polynomial => e[3 * r + c];
  const system = new Float64Array(10 * TERMS);
  const det = multiply(at(0, 0), sub(multiply(at(1, 1), at(2, 2)), multiply(at(1, 2), at(2, 1))));
  addScaled(det, multiply(at(0, 1), sub(multiply(at(1, 2), at(2, 0)), multiply(at(1, 0), at(2, 2)))), 1);
  addScaled(det, multiply(at(0, 2), sub(multiply(at(1, 0), at(2, 1)), multiply(at(1, 1), at(2, 0)))), 1);
  system.set(det, 0);
  // EEt = E E^T (quadratics), its trace, then 2 EEt E - tr E.
  const eet: Polynomial[] = [];
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 3; c++) {
      const p = new Float64Array(TERMS);
      for (let k = 0; k < 3; k++) addScaled(p, multiply(at(r, k), at(c, k)), 1);
      eet.push(p);
    }
  }
  const trace = new Float64Array(TERMS);
  for (let k = 0; k < 3; k++) addScaled(trace, eet[4 * k], 1);
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 3; c++) {
      const p = multiply(trace, at(r, c));
      for (let i = 0; i < TERMS; i++) p[i] = -p[i];
      for (let k = 0; k < 3; k++) addScaled(p, multiply(eet[3 * r + k], at(k, c)), 2);
      system.set(p, (1 + 3 * r + c) * TERMS);
    }
  }
  return system;
}

function sub(a: Polynomial, b: Polynomial): Polynomial {
  return a.map((v, i) => v - b[i]);
}

/** Gauss-Jordan with partial pivoting on the first 10 columns, in place: [I | B]. False if singular. */
function eliminate(m: Float64Array): boolean {
  for (let col = 0; col < 10; col++) {
    let pivot = col;
    for (let r = col + 1; r < 10; r++) if (Math.abs(m[r * TERMS + col]) > Math.abs(m[pivot * TERMS + col])) pivot = r;
    const pivotValue = m[pivot * TERMS + col];
    if (Math.abs(pivotValue) < 1e-14) return false;
    if (pivot !== col) {
      for (let c = 0; c < TERMS; c++) {
        const t = m[col * TERMS + c];
        m[col * TERMS + c] = m[pivot * TERMS + c];
        m[pivot * TERMS + c] = t;
      }
    }
    for (let c = col; c < TERMS; c++) m[col * TERMS + c] /= pivotValue;
    for (let r = 0; r < 10; r++) {
      if (r === col) continue;
      const factor = m[r * TERMS + col];
      if (factor === 0) continue;
      for (let c = col; c < TERMS; c++) m[r * TERMS + c] -= factor * m[col * TERMS + c];
    }
  }
  return true;
}

/** For normalised camera coordinates; the Sampson error is then in those (pixels / focal) units. */
export const essentialEstimator: ModelEstimator<Mat3> = {
  sampleSize: 5,
  fit: estimateEssential,
  squaredErrors: sampsonSquaredErrors,
  refine: (model, points1, points2, inliers) => [refineEssential(model, points1, points2, inliers)],
};
