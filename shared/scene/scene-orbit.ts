/**
 * Where an orbit of a scene goes (`render --orbit`, the Viewer's "Generate orbit"): from the
 * training cameras when there are any (they circle what was captured), else from the splats.
 *
 * Cameras: the centre is the point nearest every camera's optical axis (least squares: what an
 * inward-facing capture looks at), up is the cameras' mean up (-y in OpenCV axes), and the radius,
 * height and field of view are the cameras' medians, so the orbit flies where the photos were
 * taken and shows what they saw. Splats alone: the centre is the per-axis median of the splat
 * centres, up is -y (COLMAP's and OpenCV's convention), the radius twice the median distance.
 */
import { solveLinearSystem } from '../math/linear-solve.js';
import { median } from '../math/median.js';
import type { PinholeCamera } from './camera.js';
import { orbitPath, type OrbitOptions } from './camera-path-sample.js';
import type { CameraPath } from './camera-path.js';

type Vec3 = [number, number, number];

/** The orbit's timing: the scene decides the rest. */
export interface OrbitTiming {
  duration: number;
  turns?: number;
  keyframes?: number;
}

const dot = (a: readonly number[], b: readonly number[]) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];

/** The orbit's geometry from training cameras; undefined when they do not fix a centre (fewer than two, or all parallel). */
export function orbitFromCameras(cameras: readonly PinholeCamera[], timing: OrbitTiming): OrbitOptions | undefined {
  if (cameras.length < 2) return undefined;
  const centres: Vec3[] = [];
  const forwards: Vec3[] = [];
  const up: Vec3 = [0, 0, 0];
  const A = [[0, 0, 0], [0, 0, 0], [0, 0, 0]];
  const b = [0, 0, 0];
  for (const camera of cameras) {
    const m = camera.worldToCamera;
    const centre: Vec3 = [0, 1, 2].map((i) => -(m[i] * m[3] + m[4 + i] * m[7] + m[8 + i] * m[11])) as Vec3;
    const forward: Vec3 = [m[8], m[9], m[10]];
    for (let i = 0; i < 3; i++) up[i] -= m[4 + i];
    // (I - f f^T) x = (I - f f^T) c for each axis: x nearest the line through c along f.
    for (let i = 0; i < 3; i++) {
      for (let j = 0; j < 3; j++) {
        const p = (i === j ? 1 : 0) - forward[i] * forward[j];
        A[i][j] += p;
        b[i] += p * centre[j];
      }
    }
    centres.push(centre);
    forwards.push(forward);
  }
  const upLength = Math.hypot(...up);
  const centre = solveLinearSystem(A, b, 1e-6);
  if (!centre || !(upLength > 0)) return undefined;
  const upUnit = up.map((x) => x / upLength) as Vec3;
  // Cameras that look away from the point (a forward-facing capture) do not orbit it.
  const facing = centres.filter((c, i) => dot(forwards[i], [centre[0] - c[0], centre[1] - c[1], centre[2] - c[2]]) > 0).length;
  if (facing < cameras.length / 2) return undefined;
  const offsets = centres.map((c) => [c[0] - centre[0], c[1] - centre[1], c[2] - centre[2]]);
  const heights = offsets.map((o) => dot(o, upUnit));
  const radii = offsets.map((o, i) => Math.hypot(o[0] - heights[i] * upUnit[0], o[1] - heights[i] * upUnit[1], o[2] - heights[i] * upUnit[2]));
  const fovs = cameras.map((c) => (2 * Math.atan((0.5 * c.height) / c.fy) * 180) / Math.PI);
  const radius = median(radii);
  if (!(radius > 0)) return undefined;
  return withTiming({ centre: centre as Vec3, radius, height: median(heights), up: upUnit, fovYDeg: median(fovs) }, timing);
}

/** The orbit's geometry from splat centres (xyz, flat), for a project without cameras. */
export function orbitFromPoints(positions: ArrayLike<number>, timing: OrbitTiming): OrbitOptions {
  const count = Math.floor(positions.length / 3);
  if (count === 0) throw new Error('orbitFromPoints: no points to orbit');
  const axis = (k: number) => Array.from({ length: count }, (_, i) => positions[3 * i + k]);
  const centre: Vec3 = [median(axis(0)), median(axis(1)), median(axis(2))];
  const distances = Array.from({ length: count }, (_, i) => Math.hypot(positions[3 * i] - centre[0], positions[3 * i + 1] - centre[1], positions[3 * i + 2] - centre[2]));
  const radius = Math.max(1e-3, 2 * median(distances));
  return withTiming({ centre, radius, height: 0.3 * radius, up: [0, -1, 0], fovYDeg: 50 }, timing);
}

function withTiming(geometry: Pick<OrbitOptions, 'centre' | 'radius' | 'height' | 'up' | 'fovYDeg'>, timing: OrbitTiming): OrbitOptions {
  const turns = timing.turns ?? 1;
  return { ...geometry, turns, duration: timing.duration, keyframes: timing.keyframes ?? Math.max(4, Math.ceil(8 * turns)) };
}

/** The orbit of a scene: around its cameras when they circle it, else around its splats. */
export function sceneOrbit(cameras: readonly PinholeCamera[], positions: ArrayLike<number>, timing: OrbitTiming): CameraPath {
  return orbitPath(orbitFromCameras(cameras, timing) ?? orbitFromPoints(positions, timing));
}
