/**
 * Camera centres (and points) from averaged rotations and directions, with bounded residuals
 * (BATA, Zhuang, Cheong and Lee 2018; GLOMAP's positioning uses the same residual):
 *
 *   r = s (x_b - x_a) - v,  v a unit direction from a to b in the world frame,
 *   s = 1 / |x_b - x_a| of the previous round,
 *
 * so |r| <= 2 whatever the baseline: a far camera or a wrong direction cannot pull the solution
 * the way |x_b - x_a - d v| would. Each round is a weighted least-squares solve (solveDifferences)
 * with Cauchy weights 1 / (1 + (|r| / loss)^2); the first rounds are unweighted, so a random start
 * (GLOMAP starts from random positions too) does not down-weight good constraints.
 *
 * Two uses (global-mapper.ts): cameras alone from the pairs' translation directions
 * (v = -R_b^T t_ab), then cameras and points together from camera-to-point rays
 * (v = R_i^T K^-1 x, GLOMAP's joint positioning), which also fixes cameras that a single pair
 * places only along a line. Gauge: camera `fixed` at the origin; every round the positions are
 * scaled to a mean camera distance of 1 from it.
 */
import type { Vec3 } from '../verify/dense.js';
import { solveDifferences, type DifferenceTerm } from './laplacian-solve.js';

export interface DirectionConstraint {
  /** Node indices: cameras 0..cameraCount-1, then points. */
  from: number;
  to: number;
  /** Unit, world frame, from `from` towards `to`. */
  direction: Vec3;
  weight: number;
}

export interface PositioningOptions {
  iterations: number;
  /** Cauchy scale of |r|. */
  loss: number;
  /** Unweighted rounds first. */
  warmUpIterations: number;
  /** Stop when no coordinate moved more than this in a round (the mean camera distance is 1). */
  convergence: number;
}

export interface PositioningResult {
  /** 3 per node. */
  positions: Float64Array;
  iterations: number;
  /** |r| per constraint at the end. */
  residuals: Float64Array;
}

export function positionNodes(
  cameraCount: number,
  nodeCount: number,
  constraints: readonly DirectionConstraint[],
  start: Float64Array,
  fixed: number,
  options: PositioningOptions,
): PositioningResult {
  if (start.length !== 3 * nodeCount) throw new Error(`global-positioning.ts: start has ${start.length / 3} positions for ${nodeCount} nodes`);
  let positions: Float64Array = Float64Array.from(start);
  const residuals = new Float64Array(constraints.length);
  const measure = () => {
    for (let k = 0; k < constraints.length; k++) {
      const { from, to, direction } = constraints[k];
      const d = difference(positions, from, to);
      const length = Math.max(Math.hypot(...d), 1e-12);
      residuals[k] = Math.hypot(d[0] / length - direction[0], d[1] / length - direction[1], d[2] / length - direction[2]);
    }
  };
  let iterations = 0;
  while (iterations < options.iterations) {
    const robust = iterations >= options.warmUpIterations;
    const shortest = 1e-9 * meanCameraDistance(positions, cameraCount, fixed);
    const terms: DifferenceTerm[] = constraints.map(({ from, to, direction, weight }) => {
      const d = difference(positions, from, to);
      const length = Math.max(Math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), shortest);
      const scale = 1 / length;
      const r = Math.sqrt((d[0] * scale - direction[0]) ** 2 + (d[1] * scale - direction[1]) ** 2 + (d[2] * scale - direction[2]) ** 2);
      return { a: from, b: to, scale, target: direction, weight: robust ? weight / (1 + (r / options.loss) ** 2) : weight };
    });
    const next = solveDifferences(nodeCount, terms, fixed, cameraCount);
    iterations++;
    // Rescaled every round: with noisy directions each least-squares solve comes out slightly
    // shorter than the last (|s d| < 1 on average), a drift of the gauge alone that would keep
    // the step from ever looking converged.
    const spread = meanCameraDistance(next, cameraCount, fixed);
    if (!(spread > 0)) throw new Error('global-positioning.ts: every camera ended at the same position (no baseline between them)');
    let moved = 0;
    for (let i = 0; i < next.length; i++) {
      next[i] /= spread;
      moved = Math.max(moved, Math.abs(next[i] - positions[i]));
    }
    positions = next;
    if (moved < options.convergence && iterations > options.warmUpIterations) break;
  }
  measure();
  return { positions, iterations, residuals };
}

function difference(positions: Float64Array, from: number, to: number): Vec3 {
  return [positions[3 * to] - positions[3 * from], positions[3 * to + 1] - positions[3 * from + 1], positions[3 * to + 2] - positions[3 * from + 2]];
}

/** Mean distance of the cameras from camera `fixed` (at the origin). */
function meanCameraDistance(positions: Float64Array, cameraCount: number, fixed: number): number {
  let sum = 0;
  for (let v = 0; v < cameraCount; v++) sum += Math.hypot(positions[3 * v] - positions[3 * fixed], positions[3 * v + 1] - positions[3 * fixed + 1], positions[3 * v + 2] - positions[3 * fixed + 2]);
  return sum / Math.max(1, cameraCount - 1);
}
