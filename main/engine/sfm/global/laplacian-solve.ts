/**
 * The weighted least-squares solve that rotation averaging and positioning share: unknowns x_v in
 * R^3 per node, residuals of the form (x_b - x_a) * scale - target with a scalar weight each. The
 * normal matrix of such terms is a weighted graph Laplacian times I3, so the three coordinates
 * decouple into one n x n system with three right-hand sides; node `fixed` is held at 0 (the
 * gauge). Dense Cholesky (cholesky.ts): a few hundred cameras are ~10^7 flops a solve, well under
 * the cost of building the terms, so no sparse solver is needed at this size (stated in docs/sfm.md).
 */
import { choleskyFactor, choleskySolve } from './cholesky.js';

export interface DifferenceTerm {
  a: number;
  b: number;
  /** The residual is scale (x_b - x_a) - target. */
  scale: number;
  target: readonly [number, number, number];
  weight: number;
}

/**
 * argmin sum weight |scale (x_b - x_a) - target|^2 with x_fixed = 0. Nodes from `denseCount` on
 * (the points of joint positioning) must touch only nodes below it: their normal blocks are
 * scalars, so they are eliminated first (the Schur complement onto the cameras, sum over points of
 * their observers squared) and recovered after. Throws if the weighted graph is not connected.
 */
export function solveDifferences(nodeCount: number, terms: readonly DifferenceTerm[], fixed: number, denseCount = nodeCount): Float64Array {
  if (fixed < 0 || fixed >= denseCount) throw new Error(`laplacian-solve.ts: the fixed node ${fixed} must be one of the ${denseCount} dense nodes`);
  const index = (v: number) => (v < fixed ? v : v - 1); // the fixed node's row and column are left out
  const size = denseCount - 1;
  const eliminatedCount = nodeCount - denseCount;
  const out = new Float64Array(3 * nodeCount);
  const normal = new Float64Array(size * size);
  const rhs = new Float64Array(3 * size);
  // Eliminated node p: diagonal d_p, right-hand side r_p, and its links (dense node, weight) in
  // term order, as compressed rows (typed arrays: this runs every positioning round on tens of
  // thousands of terms, where a list of objects per point spent most of the time collecting garbage).
  const diagonal = new Float64Array(eliminatedCount);
  const eliminatedRhs = new Float64Array(3 * eliminatedCount);
  const linkStart = new Int32Array(eliminatedCount + 1);
  for (const { a, b } of terms) {
    if (a >= denseCount && b >= denseCount) throw new Error(`laplacian-solve.ts: a term joins two eliminated nodes (${a}, ${b})`);
    if (a >= denseCount) linkStart[a - denseCount + 1]++;
    else if (b >= denseCount) linkStart[b - denseCount + 1]++;
  }
  for (let p = 0; p < eliminatedCount; p++) linkStart[p + 1] += linkStart[p];
  const linkNode = new Int32Array(linkStart[eliminatedCount]);
  const linkWeight = new Float64Array(linkStart[eliminatedCount]);
  const linkFill = linkStart.slice(0, eliminatedCount);
  const addDiagonal = (v: number, w: number, wt: number, sign: number, target: readonly number[]) => {
    if (v >= denseCount) {
      const p = v - denseCount;
      diagonal[p] += w;
      for (let c = 0; c < 3; c++) eliminatedRhs[3 * p + c] += sign * wt * target[c];
    } else if (v !== fixed) {
      const i = index(v);
      normal[i * size + i] += w;
      for (let c = 0; c < 3; c++) rhs[3 * i + c] += sign * wt * target[c];
    }
  };
  for (const { a, b, scale, target, weight } of terms) {
    const w = weight * scale * scale;
    const wt = weight * scale;
    addDiagonal(a, w, wt, -1, target);
    addDiagonal(b, w, wt, 1, target);
    if (a >= denseCount || b >= denseCount) {
      const p = a >= denseCount ? a - denseCount : b - denseCount;
      const slot = linkFill[p]++;
      linkNode[slot] = a >= denseCount ? b : a;
      linkWeight[slot] = w;
    } else if (a !== fixed && b !== fixed) {
      const ia = index(a);
      const ib = index(b);
      normal[ia * size + ib] -= w;
      normal[ib * size + ia] -= w;
    }
  }
  // Schur complement: the off-diagonal entry between p and v is -w, so S -= w_i w_j / d_p and
  // rhs_v += w_v r_p / d_p. Each product once, for both of its symmetric entries: the same value
  // lands in each, in the same order over p, as a loop over every (i, j) gives (half the work;
  // a track links a camera once, tracks.ts).
  for (let p = 0; p < eliminatedCount; p++) {
    if (!(diagonal[p] > 0)) throw new Error(`laplacian-solve.ts: eliminated node ${denseCount + p} has no weighted term`);
    const end = linkStart[p + 1];
    for (let i = linkStart[p]; i < end; i++) {
      const u = linkNode[i];
      const wu = linkWeight[i];
      if (u === fixed) continue;
      const iu = index(u);
      for (let c = 0; c < 3; c++) rhs[3 * iu + c] += (wu * eliminatedRhs[3 * p + c]) / diagonal[p];
      normal[iu * size + iu] -= (wu * wu) / diagonal[p];
      for (let j = i + 1; j < end; j++) {
        const v = linkNode[j];
        if (v === fixed) continue;
        const iv = index(v);
        const product = (wu * linkWeight[j]) / diagonal[p];
        normal[iu * size + iv] -= product;
        normal[iv * size + iu] -= product;
      }
    }
  }
  if (size > 0) {
    const factor = choleskyFactor(normal, size);
    if (!factor) {
      throw new Error('laplacian-solve.ts: the weighted normal matrix is singular (a node with no weighted term, or a graph in two parts)');
    }
    const solution = choleskySolve(factor, size, rhs, 3);
    for (let v = 0; v < denseCount; v++) {
      if (v === fixed) continue;
      for (let c = 0; c < 3; c++) out[3 * v + c] = solution[3 * index(v) + c];
    }
  }
  for (let p = 0; p < eliminatedCount; p++) {
    for (let c = 0; c < 3; c++) {
      let sum = eliminatedRhs[3 * p + c];
      for (let i = linkStart[p]; i < linkStart[p + 1]; i++) sum += linkWeight[i] * out[3 * linkNode[i] + c];
      out[3 * (denseCount + p) + c] = sum / diagonal[p];
    }
  }
  return out;
}
