/**
 * Triangulation of tracks from global poses, float64: multi-view DLT (each observation x, y gives
 * x P3 - P1 and y P3 - P2 on normalised coordinates, P = [R | t]; the point is the smallest right
 * singular vector), then COLMAP's filters: every observation in front of its camera and within
 * maxReprojectionErrorPx, the worst one dropped and the point re-triangulated while any fails;
 * and two rays at least minTriangulationAngleDeg apart.
 */
import { smallestRightSingularVectors, type Mat3, type Vec3 } from '../verify/dense.js';
import type { PinholeIntrinsics } from '../verify/verify-options.js';
import type { Observation } from './tracks.js';

export interface CameraPose {
  /** World to camera: X_cam = rotation X + translation. */
  rotation: Mat3;
  translation: Vec3;
}

export interface TriangulatedPoint {
  position: Vec3;
  /** The observations kept, by ascending image. */
  observations: Observation[];
  /** Mean reprojection error of those, pixels. */
  meanErrorPx: number;
}

export interface TriangulationFilter {
  maxReprojectionErrorPx: number;
  minTriangulationAngleDeg: number;
}

export type TriangulationOutcome = TriangulatedPoint | 'too few observations' | 'behind a camera' | 'reprojection error' | 'triangulation angle';

/** Pixel position of keypoint o (x, y of its 4 floats). */
type KeypointLookup = (o: Observation) => [number, number];

export function triangulateTrack(
  track: readonly Observation[],
  poses: readonly (CameraPose | undefined)[],
  cameras: readonly PinholeIntrinsics[],
  pixel: KeypointLookup,
  filter: TriangulationFilter,
): TriangulationOutcome {
  let kept = track.filter((o) => poses[o.image]);
  let failure: TriangulationOutcome = 'too few observations';
  while (kept.length >= 2) {
    const position = dlt(kept, poses, cameras, pixel);
    if (!position) return 'too few observations';
    let worst = -1;
    let worstError = filter.maxReprojectionErrorPx;
    let total = 0;
    for (let k = 0; k < kept.length; k++) {
      const error = reprojectionError(position, poses[kept[k].image]!, cameras[kept[k].image], pixel(kept[k]));
      if (error > worstError) [worst, worstError, failure] = [k, error, Number.isFinite(error) ? 'reprojection error' : 'behind a camera'];
      total += error;
    }
    if (worst < 0) {
      if (maxRayAngleDeg(position, kept, poses) < filter.minTriangulationAngleDeg) return 'triangulation angle';
      return { position, observations: kept, meanErrorPx: total / kept.length };
    }
    kept = kept.filter((_, k) => k !== worst);
  }
  return failure;
}

function dlt(observations: readonly Observation[], poses: readonly (CameraPose | undefined)[], cameras: readonly PinholeIntrinsics[], pixel: KeypointLookup): Vec3 | undefined {
  const rows = new Float64Array(2 * observations.length * 4);
  observations.forEach((o, k) => {
    const { rotation: r, translation: t } = poses[o.image]!;
    const camera = cameras[o.image];
    const [px, py] = pixel(o);
    const x = (px - camera.principalX) / camera.focalX;
    const y = (py - camera.principalY) / camera.focalY;
    for (let c = 0; c < 4; c++) {
      const p1 = c < 3 ? r[c] : t[0];
      const p2 = c < 3 ? r[3 + c] : t[1];
      const p3 = c < 3 ? r[6 + c] : t[2];
      rows[8 * k + c] = x * p3 - p1;
      rows[8 * k + 4 + c] = y * p3 - p2;
    }
  });
  const [h] = smallestRightSingularVectors(rows, 2 * observations.length, 4, 1);
  if (Math.abs(h[3]) < 1e-12 * Math.hypot(h[0], h[1], h[2])) return undefined; // at infinity
  return [h[0] / h[3], h[1] / h[3], h[2] / h[3]];
}

/** Pixels; Infinity when the point is not in front of the camera. */
export function reprojectionError(point: Vec3, pose: CameraPose, camera: PinholeIntrinsics, observed: [number, number]): number {
  const r = pose.rotation;
  const z = r[6] * point[0] + r[7] * point[1] + r[8] * point[2] + pose.translation[2];
  if (!(z > 0)) return Infinity;
  const x = r[0] * point[0] + r[1] * point[1] + r[2] * point[2] + pose.translation[0];
  const y = r[3] * point[0] + r[4] * point[1] + r[5] * point[2] + pose.translation[1];
  return Math.hypot(camera.focalX * (x / z) + camera.principalX - observed[0], camera.focalY * (y / z) + camera.principalY - observed[1]);
}

/** The largest angle between two of the rays from the cameras' centres to the point. */
export function maxRayAngleDeg(point: Vec3, observations: readonly Observation[], poses: readonly (CameraPose | undefined)[]): number {
  const rays = observations.map((o) => {
    const { rotation: r, translation: t } = poses[o.image]!;
    const centre: Vec3 = [-(r[0] * t[0] + r[3] * t[1] + r[6] * t[2]), -(r[1] * t[0] + r[4] * t[1] + r[7] * t[2]), -(r[2] * t[0] + r[5] * t[1] + r[8] * t[2])];
    const d: Vec3 = [point[0] - centre[0], point[1] - centre[1], point[2] - centre[2]];
    const n = Math.hypot(...d);
    return [d[0] / n, d[1] / n, d[2] / n];
  });
  let minCosine = 1;
  for (let i = 0; i < rays.length; i++) {
    for (let j = i + 1; j < rays.length; j++) minCosine = Math.min(minCosine, rays[i][0] * rays[j][0] + rays[i][1] * rays[j][1] + rays[i][2] * rays[j][2]);
  }
  return (Math.acos(Math.min(1, minCosine)) * 180) / Math.PI;
}
