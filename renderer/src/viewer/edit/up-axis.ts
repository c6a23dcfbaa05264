/**
 * "This direction is up" and "these splats are the ground" as the scene transforms the edit
 * list stores (a Similarity, shared/edits/edit-list.ts), in the engine's frame.
 *
 * The engine's world keeps the OpenCV habit that up is -y (the viewer's default without cameras,
 * opencv-frame.ts), so both tools rotate the chosen direction onto (0, -1, 0): the view's up about
 * the scene's centre, or the normal of the plane fitted to a selection's centres (least squares:
 * the covariance's smallest eigenvector, oriented towards the view's up), after which the plane is
 * moved to y = 0.
 */
import type { Similarity } from '../../../../shared/edits/edit-list.js';
import type { Vec3 } from '../opencv-frame.js';
import { quatRotate } from '../../../../shared/math/quaternion.js';
import type { Quat } from './engine-frame.js';

export const ENGINE_UP: Readonly<Vec3> = [0, -1, 0];

const dot = (a: Readonly<Vec3>, b: Readonly<Vec3>) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a: Readonly<Vec3>, b: Readonly<Vec3>): Vec3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
function normalize(v: Readonly<Vec3>, what: string): Vec3 {
  const l = Math.hypot(v[0], v[1], v[2]);
  if (!(l > 1e-12) || !Number.isFinite(l)) throw new RangeError(`${what}: expected a non-zero finite direction, got ${v.join(', ')}`);
  return [v[0] / l, v[1] / l, v[2] / l];
}

/** The shortest rotation taking unit direction `from` onto unit direction `to`. */
export function rotationBetween(from: Readonly<Vec3>, to: Readonly<Vec3>): Quat {
  const a = normalize(from, 'direction');
  const b = normalize(to, 'direction');
  const c = dot(a, b);
  if (c < -1 + 1e-9) {
    // Opposite: half a turn about any axis perpendicular to a.
    const axis = normalize(Math.abs(a[0]) < 0.9 ? cross(a, [1, 0, 0]) : cross(a, [0, 1, 0]), 'axis');
    return [axis[0], axis[1], axis[2], 0];
  }
  const [x, y, z] = cross(a, b);
  const w = 1 + c;
  const l = Math.hypot(x, y, z, w);
  return [x / l, y / l, z / l, w / l];
}

/** Rotates `up` (engine frame, e.g. the view's up) onto the engine's up about `centre`. */
export function upAxisTransform(up: Readonly<Vec3>, centre: Readonly<Vec3>): Similarity {
  const rotation = rotationBetween(up, ENGINE_UP);
  const rc = quatRotate(rotation, centre);
  return { rotation, scale: 1, translation: [centre[0] - rc[0], centre[1] - rc[1], centre[2] - rc[2]] };
}

/** Eigen-decomposition of a symmetric 3x3 (cyclic Jacobi); eigenvectors are the columns of `vectors`. */
export function symmetricEigen3(m: readonly number[][]): { values: Vec3; vectors: number[][] } {
  const a = m.map((row) => [...row]);
  const v = [
    [1, 0, 0],
    [0, 1, 0],
    [0, 0, 1],
  ];
  for (let sweep = 0; sweep < 50; sweep++) {
    const off = Math.abs(a[0][1]) + Math.abs(a[0][2]) + Math.abs(a[1][2]);
    if (off < 1e-15 * (Math.abs(a[0][0]) + Math.abs(a[1][1]) + Math.abs(a[2][2]) + 1e-300)) break;
    for (const [p, q] of [[0, 1], [0, 2], [1, 2]] as const) {
      if (a[p][q] === 0) continue;
      const theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
      const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
      const c = 1 / Math.sqrt(t * t + 1);
      const s = t * c;
      for (let k = 0; k < 3; k++) {
        const akp = a[k][p];
        const akq = a[k][q];
        a[k][p] = c * akp - s * akq;
        a[k][q] = s * akp + c * akq;
      }
      for (let k = 0; k < 3; k++) {
        const apk = a[p][k];
        const aqk = a[q][k];
        a[p][k] = c * apk - s * aqk;
        a[q][k] = s * apk + c * aqk;
      }
      for (let k = 0; k < 3; k++) {
        const vkp = v[k][p];
        const vkq = v[k][q];
        v[k][p] = c * vkp - s * vkq;
        v[k][q] = s * vkp + c * vkq;
      }
    }
  }
  return { values: [a[0][0], a[1][1], a[2][2]], vectors: v };
}

/** Least-squares plane through xyz triples: its centroid and unit normal (sign arbitrary). */
export function fitPlane(centres: ArrayLike<number>): { centroid: Vec3; normal: Vec3 } {
  const n = Math.floor(centres.length / 3);
  if (n < 3) throw new RangeError(`ground plane: select at least 3 splats (got ${n})`);
  const c: Vec3 = [0, 0, 0];
  for (let i = 0; i < n; i++) for (let a = 0; a < 3; a++) c[a] += centres[i * 3 + a] / n;
  const cov = [
    [0, 0, 0],
    [0, 0, 0],
    [0, 0, 0],
  ];
  for (let i = 0; i < n; i++) {
    const d = [centres[i * 3] - c[0], centres[i * 3 + 1] - c[1], centres[i * 3 + 2] - c[2]];
    for (let r = 0; r < 3; r++) for (let k = 0; k < 3; k++) cov[r][k] += d[r] * d[k];
  }
  const { values, vectors } = symmetricEigen3(cov);
  const order = [0, 1, 2].sort((x, y) => values[x] - values[y]);
  if (!(values[order[1]] > 1e-12 * Math.max(1, values[order[2]]))) throw new RangeError('ground plane: the selected splats lie on a line; select an area of the ground');
  const k = order[0];
  return { centroid: c, normal: normalize([vectors[0][k], vectors[1][k], vectors[2][k]], 'plane normal') };
}

/**
 * Makes the plane fitted to `centres` the ground: its normal (turned to face `upHint`, the view's
 * up in the engine frame) onto the engine's up, and the plane moved to y = 0.
 */
export function groundPlaneTransform(centres: ArrayLike<number>, upHint: Readonly<Vec3>): Similarity {
  const { centroid, normal } = fitPlane(centres);
  const facing: Vec3 = dot(normal, upHint) < 0 ? [-normal[0], -normal[1], -normal[2]] : normal;
  const rotation = rotationBetween(facing, ENGINE_UP);
  const rc = quatRotate(rotation, centroid);
  return { rotation, scale: 1, translation: [0, -rc[1], 0] };
}
