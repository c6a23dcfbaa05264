/**
 * Hartley normalisation: the chosen points moved to their centroid and scaled to a mean distance
 * of sqrt(2), so the DLT's linear systems are well conditioned (Hartley, "In defense of the
 * eight-point algorithm", 1997). Models fitted in normalised coordinates are mapped back with T.
 */
import { mat3, type Mat3 } from './dense.js';

/** The points at `indices` (2 floats each), packed in that order. */
export function gatherPoints(points: Float64Array, indices: ArrayLike<number>): Float64Array {
  const chosen = new Float64Array(2 * indices.length);
  for (let k = 0; k < indices.length; k++) chosen.set(points.subarray(2 * indices[k], 2 * indices[k] + 2), 2 * k);
  return chosen;
}

export interface NormalisedPoints {
  /** 2 per chosen point, in the order of `indices`. */
  points: Float64Array;
  /** x_normalised = T x (homogeneous). */
  transform: Mat3;
}

export function normalisePoints(points: Float64Array, indices: ArrayLike<number>): NormalisedPoints {
  const n = indices.length;
  let cx = 0;
  let cy = 0;
  for (let k = 0; k < n; k++) {
    cx += points[2 * indices[k]];
    cy += points[2 * indices[k] + 1];
  }
  cx /= n;
  cy /= n;
  let meanDistance = 0;
  for (let k = 0; k < n; k++) meanDistance += Math.hypot(points[2 * indices[k]] - cx, points[2 * indices[k] + 1] - cy);
  meanDistance /= n;
  const scale = meanDistance > 0 ? Math.SQRT2 / meanDistance : 1;
  const out = new Float64Array(2 * n);
  for (let k = 0; k < n; k++) {
    out[2 * k] = (points[2 * indices[k]] - cx) * scale;
    out[2 * k + 1] = (points[2 * indices[k] + 1] - cy) * scale;
  }
  return { points: out, transform: mat3([scale, 0, -scale * cx, 0, scale, -scale * cy, 0, 0, 1]) };
}
