/**
 * Levenberg-Marquardt on the bounded direction residual itself, r = (x_b - x_a) / |x_b - x_a| - v,
 * for the positions global-positioning.ts's rounds leave. Those rounds hold s = 1 / |x_b - x_a|
 * from the last round, which ties each point to its previous depth: on the statue photos 400 of
 * them left the centres 3.9% of the scene off (median), 2,000 reached 1.0%. Here the depth is
 * free: J_b = (I - n n^T) / |d| (n the unit difference), J_a = -J_b, so each Gauss-Newton step
 * moves every point along its ray as far as its other rays ask.
 *
 * Blocks are 3x3 now (J^T J = (I - n n^T) / |d|^2 is not a multiple of I3): point blocks are
 * inverted and eliminated (Schur complement), the cameras' 3n x 3n system is dense Cholesky. Cauchy
 * weights as in the rounds (IRLS, recomputed each step). The gauge: camera `fixed` held at the
 * origin, the scale by the damping and, at the end, a mean camera distance of 1.
 */
import { choleskyFactor, choleskySolve } from './cholesky.js';
import { inverse3 } from '../verify/dense.js';
import type { DirectionConstraint } from './global-positioning.js';

export interface RefinementOptions {
  iterations: number;
  loss: number;
  /** Stop when a step lowers the cost by less than this, relative (default 1e-10). */
  tolerance?: number;
}

export interface RefinementResult {
  positions: Float64Array;
  iterations: number;
  /** Robust cost before and after. */
  initialCost: number;
  finalCost: number;
}

export function refinePositions(cameraCount: number, constraints: readonly DirectionConstraint[], start: Float64Array, fixed: number, options: RefinementOptions): RefinementResult {
  let positions = Float64Array.from(start);
  const nodeCount = positions.length / 3;
  const cost = (p: Float64Array) => {
    let sum = 0;
    for (const c of constraints) sum += c.weight * cauchy(residualNorm(p, c), options.loss);
    return sum;
  };
  let current = cost(positions);
  const initialCost = current;
  let lambda = 1e-4;
  let iterations = 0;
  for (; iterations < options.iterations; iterations++) {
    const step = solveStep(cameraCount, nodeCount, constraints, positions, fixed, options.loss, lambda);
    if (!step) {
      lambda *= 10;
      continue;
    }
    const trial = Float64Array.from(positions, (v, i) => v + step[i]);
    const trialCost = cost(trial);
    if (trialCost < current) {
      const gain = (current - trialCost) / Math.max(current, 1e-300);
      positions = trial;
      current = trialCost;
      lambda = Math.max(lambda / 3, 1e-12);
      if (gain < (options.tolerance ?? 1e-10)) break;
    } else {
      lambda *= 10;
      if (lambda > 1e8) break;
    }
  }
  let spread = 0;
  for (let v = 0; v < cameraCount; v++) spread += Math.hypot(positions[3 * v] - positions[3 * fixed], positions[3 * v + 1] - positions[3 * fixed + 1], positions[3 * v + 2] - positions[3 * fixed + 2]);
  spread /= Math.max(1, cameraCount - 1);
  const origin = [positions[3 * fixed], positions[3 * fixed + 1], positions[3 * fixed + 2]];
  for (let i = 0; i < positions.length; i++) positions[i] = (positions[i] - origin[i % 3]) / spread;
  return { positions, iterations, initialCost, finalCost: current };
}

function cauchy(r: number, loss: number): number {
  return 0.5 * loss * loss * Math.log1p((r / loss) ** 2);
}

function residualNorm(p: Float64Array, { from, to, direction: v }: DirectionConstraint): number {
  const d = [p[3 * to] - p[3 * from], p[3 * to + 1] - p[3 * from + 1], p[3 * to + 2] - p[3 * from + 2]];
  const length = Math.hypot(d[0], d[1], d[2]) || 1e-300;
  return Math.hypot(d[0] / length - v[0], d[1] / length - v[1], d[2] / length - v[2]);
}

/**
 * The damped Gauss-Newton step, or undefined where the reduced system is not positive definite.
 * Every per-constraint and per-link quantity lives in flat typed arrays (a point's links as
 * compressed rows, in constraint order): with tens of thousands of rays a step, small arrays per
 * ray spent most of the stage's time in the garbage collector.
 */
function solveStep(cameraCount: number, nodeCount: number, constraints: readonly DirectionConstraint[], p: Float64Array, fixed: number, loss: number, lambda: number): Float64Array | undefined {
  const size = 3 * (cameraCount - 1);
  const cameraRow = (v: number) => 3 * (v < fixed ? v : v - 1);
  const hcc = new Float64Array(size * size);
  const gc = new Float64Array(size);
  const pointCount = nodeCount - cameraCount;
  const hpp = new Float64Array(9 * pointCount);
  const gp = new Float64Array(3 * pointCount);
  // A link: a point's term with a camera other than the fixed one (its block enters the Schur complement).
  const linked = (node: number, other: number) => node >= cameraCount && other < cameraCount && other !== fixed;
  const linkStart = new Int32Array(pointCount + 1);
  for (const c of constraints) {
    if (linked(c.to, c.from)) linkStart[c.to - cameraCount + 1]++;
    if (linked(c.from, c.to)) linkStart[c.from - cameraCount + 1]++;
  }
  for (let q = 0; q < pointCount; q++) linkStart[q + 1] += linkStart[q];
  const linkCount = linkStart[pointCount];
  const linkCamera = new Int32Array(linkCount);
  const linkBlock = new Float64Array(9 * linkCount);
  const linkFill = linkStart.slice(0, pointCount);
  const block = new Float64Array(9);
  const gradient = new Float64Array(3);
  for (const c of constraints) {
    const d0 = p[3 * c.to] - p[3 * c.from];
    const d1 = p[3 * c.to + 1] - p[3 * c.from + 1];
    const d2 = p[3 * c.to + 2] - p[3 * c.from + 2];
    const length = Math.hypot(d0, d1, d2);
    if (!(length > 0)) continue;
    const n0 = d0 / length;
    const n1 = d1 / length;
    const n2 = d2 / length;
    const v = c.direction;
    const r = Math.hypot(n0 - v[0], n1 - v[1], n2 - v[2]);
    const w = c.weight / (1 + (r / loss) ** 2);
    // J^T J = (I - n n^T) / L^2 and J^T r = -(I - n n^T) v / L, for x_b; negated for x_a.
    const nv = n0 * v[0] + n1 * v[1] + n2 * v[2];
    const l2 = length * length;
    block[0] = (w * (1 - n0 * n0)) / l2;
    block[1] = (w * (0 - n0 * n1)) / l2;
    block[2] = (w * (0 - n0 * n2)) / l2;
    block[3] = (w * (0 - n1 * n0)) / l2;
    block[4] = (w * (1 - n1 * n1)) / l2;
    block[5] = (w * (0 - n1 * n2)) / l2;
    block[6] = (w * (0 - n2 * n0)) / l2;
    block[7] = (w * (0 - n2 * n1)) / l2;
    block[8] = (w * (1 - n2 * n2)) / l2;
    gradient[0] = (-w * (v[0] - n0 * nv)) / length;
    gradient[1] = (-w * (v[1] - n1 * nv)) / length;
    gradient[2] = (-w * (v[2] - n2 * nv)) / length;
    accumulate(c.to, c.from, 1);
    accumulate(c.from, c.to, -1);
  }
  function accumulate(node: number, other: number, sign: number): void {
    if (node >= cameraCount) {
      const q = node - cameraCount;
      for (let k = 0; k < 9; k++) hpp[9 * q + k] += block[k];
      for (let i = 0; i < 3; i++) gp[3 * q + i] += sign * gradient[i];
      if (linked(node, other)) {
        const slot = linkFill[q]++;
        linkCamera[slot] = other;
        linkBlock.set(block, 9 * slot);
      }
      return;
    }
    if (node === fixed) return;
    const row = cameraRow(node);
    for (let i = 0; i < 3; i++) {
      gc[row + i] += sign * gradient[i];
      for (let j = 0; j < 3; j++) hcc[(row + i) * size + row + j] += block[3 * i + j];
    }
    if (other < cameraCount && other !== fixed) {
      const column = cameraRow(other);
      for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) hcc[(row + i) * size + column + j] -= block[3 * i + j];
    }
  }
  // A link's H_pc is -block (sign -1, the point's side of its term), so every product below
  // carries sign (-1)(-1) = 1 between two links and -1 on a link's own gradient term.
  const pointInverse = new Float64Array(9 * pointCount);
  const h = new Float64Array(9);
  const aHinv = new Float64Array(9);
  for (let q = 0; q < pointCount; q++) {
    h.set(hpp.subarray(9 * q, 9 * q + 9));
    const trace = h[0] + h[4] + h[8];
    h[0] += lambda * trace + 1e-12;
    h[4] += lambda * trace + 1e-12;
    h[8] += lambda * trace + 1e-12;
    const inverse = inverse3(h);
    if (!inverse) return undefined;
    pointInverse.set(inverse, 9 * q);
    // S -= H_cp H_pp^-1 H_pc; g_c -= H_cp H_pp^-1 g_p (H_pc = -block, symmetric blocks).
    const hinvG = mul3v(inverse, gp.subarray(3 * q, 3 * q + 3));
    const end = linkStart[q + 1];
    for (let a = linkStart[q]; a < end; a++) {
      const ra = cameraRow(linkCamera[a]);
      const ab = linkBlock.subarray(9 * a, 9 * a + 9);
      mul3Into(aHinv, ab, inverse);
      const t = mul3v(ab, hinvG);
      for (let i = 0; i < 3; i++) gc[ra + i] += t[i];
      for (let b = a; b < end; b++) {
        // (a.block H_pp^-1) b.block into the camera pair's block and its transpose into the
        // mirrored pair's (the complement is symmetric: half the products), without a temporary:
        // this loop runs (track length)^2 / 2 times a track, the stage's cost.
        const rb = cameraRow(linkCamera[b]);
        const m = 9 * b;
        for (let i = 0; i < 3; i++) {
          const x = aHinv[3 * i];
          const y = aHinv[3 * i + 1];
          const z = aHinv[3 * i + 2];
          const p0 = x * linkBlock[m] + y * linkBlock[m + 3] + z * linkBlock[m + 6];
          const p1 = x * linkBlock[m + 1] + y * linkBlock[m + 4] + z * linkBlock[m + 7];
          const p2 = x * linkBlock[m + 2] + y * linkBlock[m + 5] + z * linkBlock[m + 8];
          const base = (ra + i) * size + rb;
          hcc[base] -= p0;
          hcc[base + 1] -= p1;
          hcc[base + 2] -= p2;
          if (b !== a) {
            hcc[rb * size + ra + i] -= p0;
            hcc[(rb + 1) * size + ra + i] -= p1;
            hcc[(rb + 2) * size + ra + i] -= p2;
          }
        }
      }
    }
  }
  const step = new Float64Array(3 * nodeCount);
  if (size > 0) {
    for (let i = 0; i < size; i++) {
      hcc[i * size + i] *= 1 + lambda;
      // Symmetric up to rounding (H_pp^-1 from the adjugate): made exact, as the Cholesky reads one triangle.
      for (let j = 0; j < i; j++) hcc[i * size + j] = hcc[j * size + i] = (hcc[i * size + j] + hcc[j * size + i]) / 2;
    }
    const factor = choleskyFactor(hcc, size);
    if (!factor) return undefined;
    const x = choleskySolve(factor, size, Float64Array.from(gc, (g) => -g), 1);
    for (let v = 0; v < cameraCount; v++) if (v !== fixed) for (let i = 0; i < 3; i++) step[3 * v + i] = x[cameraRow(v) + i];
  }
  for (let q = 0; q < pointCount; q++) {
    // delta_p = H_pp^-1 (-g_p - H_pc delta_c), H_pc = -block.
    const rhs = [-gp[3 * q], -gp[3 * q + 1], -gp[3 * q + 2]];
    for (let a = linkStart[q]; a < linkStart[q + 1]; a++) {
      const t = mul3v(linkBlock.subarray(9 * a, 9 * a + 9), step.subarray(3 * linkCamera[a], 3 * linkCamera[a] + 3));
      for (let i = 0; i < 3; i++) rhs[i] += t[i];
    }
    const delta = mul3v(pointInverse.subarray(9 * q, 9 * q + 9), rhs);
    step.set(delta, 3 * (cameraCount + q));
  }
  return step;
}

function mul3Into(out: Float64Array, a: ArrayLike<number>, b: ArrayLike<number>): void {
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) out[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
}

function mul3v(a: ArrayLike<number>, v: ArrayLike<number>): number[] {
  return [a[0] * v[0] + a[1] * v[1] + a[2] * v[2], a[3] * v[0] + a[4] * v[1] + a[5] * v[2], a[6] * v[0] + a[7] * v[1] + a[8] * v[2]];
}
