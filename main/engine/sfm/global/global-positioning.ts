/**
 * Camera centres (and points) from averaged rotations and directions, with bounded residuals
 * (BATA, Zhuang, Cheong and Lee 2018; GLOMAP's positioning uses the same residual):
 *
 *   r = s (x_b - x_a) - v,  v a unit direction from a to b in the world frame,
 *   s = 1 / |x_b - x_a| of the previous round,
 *
 * so |r| <= 2 whatever the baseline: a far camera or a wrong direction cannot pull the solution
 * the way |x_b - x_a - d v| would. Each round is a weighted least-squares solve (solveDifferences)
 * with Cauchy weights 1 / (1 + (|r| / loss)^2), started from LUD rounds (below) from a random
 * start (GLOMAP starts from random positions too).
 *
 * Two uses (global-mapper.ts): cameras alone from the pairs' translation directions
 * (v = -R_b^T t_ab), then cameras and points together from camera-to-point rays
 * (v = R_i^T K^-1 x, GLOMAP's joint positioning), which also fixes cameras that a single pair
 * places only along a line. Gauge: camera `fixed` at the origin; every round the positions are
 * scaled to a mean camera distance of 1 from it.
 */
import type { Vec3 } from '../verify/dense.js';
import { solveDifferences, type DifferenceTerm } from './laplacian-solve.js';

/**
 * The shortest |x_b - x_a| that sets s = 1 / |x_b - x_a|, in the gauge's units (mean camera
 * distance 1). A point that drifts onto a camera's centre (a wrong track, rays that barely cross)
 * would otherwise get s ~ 1e7 and weight s^2 ~ 1e14: the Schur complement onto the cameras then
 * cancels to a matrix that is not positive definite (the crash on 8 statue photos,
 * docs/sfm.md). At the floor such a term's residual is ~1, so the Cauchy weight sets it aside.
 */
const SHORTEST_LENGTH = 1e-3;

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
  /** LUD rounds first, at most (they stop once no coordinate moves 1e-4). */
  ludIterations: number;
  /** Stop when no camera coordinate moved more than this in a round (the mean camera distance is 1). */
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
  // LUD first (Ozyesil and Singer 2015): min sum |x_b - x_a - d v| over positions and d >= 1,
  // in L1 by IRLS (weights 1 / |r|), alternating with d = max(1, v . (x_b - x_a)). It reaches the
  // right basin from a random start with wrong directions in the set, where unweighted rounds
  // followed by Cauchy did not (5% wrong directions left cameras 20-37% of the scene off).
  let iterations = 0;
  const normalise = (next: Float64Array): number => {
    // Rescaled every round: the gauge's scale would otherwise drift (each BATA solve comes out
    // slightly shorter than the last, |s d| < 1 on average with noise), and the step would
    // never look converged.
    const spread = meanCameraDistance(next, cameraCount, fixed);
    if (!(spread > 0)) throw new Error('global-positioning.ts: every camera ended at the same position (no baseline between them)');
    // Converged when the cameras stop moving: the mapper keeps only them (points are
    // triangulated again from the cameras), and a point whose rays barely cross moves more
    // than any camera in every round
    let moved = 0;
    for (let i = 0; i < next.length; i++) {
      next[i] /= spread;
      if (i < 3 * cameraCount) moved = Math.max(moved, Math.abs(next[i] - positions[i]));
    }
    positions = next;
    return moved;
  };
  normalise(Float64Array.from(positions));
  for (let round = 0; round < options.ludIterations; round++) {
    // In units where the mean camera distance is 1, d >= 1 would put every pair at least as far
    // apart as the mean: the bound is set relative to it (LUD's scale is arbitrary anyway).
    const bound = 0.1;
    const terms: DifferenceTerm[] = constraints.map(({ from, to, direction, weight }) => {
      const d = difference(positions, from, to);
      const length = Math.max(bound, d[0] * direction[0] + d[1] * direction[1] + d[2] * direction[2]);
      const r = Math.sqrt((d[0] - length * direction[0]) ** 2 + (d[1] - length * direction[1]) ** 2 + (d[2] - length * direction[2]) ** 2);
      return { a: from, b: to, scale: 1, target: [length * direction[0], length * direction[1], length * direction[2]], weight: weight / Math.max(r, 1e-6) };
    });
    iterations++;
    if (normalise(solveDifferences(nodeCount, terms, fixed, cameraCount)) < 1e-4) break;
  }
  for (let round = 0; round < options.iterations; round++) {
    const terms: DifferenceTerm[] = constraints.map(({ from, to, direction, weight }) => {
      const d = difference(positions, from, to);
      const length = Math.max(Math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), SHORTEST_LENGTH);
      const scale = 1 / length;
      const r = Math.sqrt((d[0] * scale - direction[0]) ** 2 + (d[1] * scale - direction[1]) ** 2 + (d[2] * scale - direction[2]) ** 2);
      return { a: from, b: to, scale, target: direction, weight: weight / (1 + (r / options.loss) ** 2) };
    });
    iterations++;
    if (normalise(solveDifferences(nodeCount, terms, fixed, cameraCount)) < options.convergence) break;
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
