/**
 * Levenberg-Marquardt for the verifier's small model refinements (E on its manifold, H): a few
 * parameters, many residuals, Jacobians analytic or by central differences. Robust by default: Cauchy weights
 * 1 / (1 + r^2 / sigma^2) with sigma from the median residual (1.4826 MAD), renewed each step:
 * correspondences that RANSAC's threshold let in although they are outliers near the model (a few
 * percent: points near an epipolar line, points just off a plane) would otherwise hold the model
 * where they fit.
 */
import { Matrix, solve } from 'ml-matrix';

export interface RobustProblem {
  parameterCount: number;
  residualCount: number;
  /** out[k]: residual k at the current model moved by p (p = 0: the current model). */
  residuals(p: ArrayLike<number>, out: Float64Array): void;
  /** Optional analytic Jacobian at the current model: out[m k + j] = d residual k / d p_j (else central differences). */
  jacobian?(out: Float64Array): void;
  /** Moves the current model by an accepted step p. */
  commit(p: ArrayLike<number>): void;
  /** false: plain least squares (every weight 1). Default true. */
  robust?: boolean;
}

/** Refines the problem's model in place: at most `iterations` accepted steps, stopping when a step gains under 1e-10 relative. */
export function robustLevenbergMarquardt(problem: RobustProblem, iterations = 10): void {
  const { parameterCount: m, residualCount: n } = problem;
  const zero = new Float64Array(m);
  const r0 = new Float64Array(n);
  const trial = new Float64Array(n);
  const minus = new Float64Array(n);
  const weightRoots = new Float64Array(n);
  const jacobian = new Float64Array(m * n);
  const normal = new Float64Array(m * m);
  const gradient = new Float64Array(m);
  const weightedCost = (r: Float64Array): number => {
    let cost = 0;
    for (let k = 0; k < n; k++) cost += (weightRoots[k] * r[k]) ** 2;
    return cost;
  };
  let damping = 1e-3;
  for (let iteration = 0; iteration < iterations; iteration++) {
    problem.residuals(zero, r0);
    if (problem.robust === false) weightRoots.fill(1);
    else {
      const sigma = Math.max(1.4826 * medianAbsolute(r0), 1e-12);
      for (let k = 0; k < n; k++) weightRoots[k] = 1 / Math.sqrt(1 + (r0[k] / sigma) ** 2);
    }
    const cost = weightedCost(r0);
    if (problem.jacobian) {
      problem.jacobian(jacobian);
      for (let k = 0; k < n; k++) for (let j = 0; j < m; j++) jacobian[m * k + j] *= weightRoots[k];
    } else {
      const step = 1e-7;
      const p = new Float64Array(m);
      for (let j = 0; j < m; j++) {
        p.fill(0);
        p[j] = step;
        problem.residuals(p, trial);
        p[j] = -step;
        problem.residuals(p, minus);
        for (let k = 0; k < n; k++) jacobian[m * k + j] = (weightRoots[k] * (trial[k] - minus[k])) / (2 * step);
      }
    }
    normal.fill(0);
    gradient.fill(0);
    for (let k = 0; k < n; k++) {
      const wr = weightRoots[k] * r0[k];
      for (let a = 0; a < m; a++) {
        const ja = jacobian[m * k + a];
        gradient[a] -= ja * wr;
        for (let b = a; b < m; b++) normal[m * a + b] += ja * jacobian[m * k + b];
      }
    }
    for (let a = 0; a < m; a++) for (let b = 0; b < a; b++) normal[m * a + b] = normal[m * b + a];
    const jtj = new Matrix(Array.from({ length: m }, (_, a) => Array.from(normal.subarray(m * a, m * a + m))));
    const jtr = Matrix.columnVector(Array.from(gradient));
    let accepted = false;
    for (let attempt = 0; attempt < 5 && !accepted; attempt++) {
      const damped = jtj.clone();
      for (let a = 0; a < m; a++) damped.set(a, a, damped.get(a, a) * (1 + damping));
      const delta = solve(damped, jtr).getColumn(0);
      problem.residuals(delta, trial);
      const newCost = weightedCost(trial);
      if (Number.isFinite(newCost) && newCost < cost) {
        problem.commit(delta);
        damping = Math.max(damping / 10, 1e-9);
        accepted = true;
        if ((cost - newCost) / cost < 1e-10) return;
      } else damping *= 10;
    }
    if (!accepted) return;
  }
}

function medianAbsolute(values: Float64Array): number {
  const sorted = values.map(Math.abs).sort();
  return sorted[sorted.length >> 1];
}
