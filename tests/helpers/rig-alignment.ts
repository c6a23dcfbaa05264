/**
 * Camera-rig errors up to the gauge that photometric refinement cannot observe: the splats and
 * the cameras can turn, move and scale together without changing one image, so refined poses are
 * compared after the best similarity (linearized: the errors are degrees and per cent) that maps
 * the refined rig onto the true one, as SLAM's absolute trajectory error aligns first.
 */
import { invertRigid, type PinholeCamera } from '../../shared/scene/camera.js';
import { solveLinearSystem } from '../../shared/math/linear-solve.js';

type V3 = [number, number, number];
const sub = (a: readonly number[], b: readonly number[]): V3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const cross = (a: readonly number[], b: readonly number[]): V3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];

/** Camera centre and camera-to-world rotation (row-major). */
function frame(c: PinholeCamera): { centre: V3; c2w: number[] } {
  const m = invertRigid(c.worldToCamera);
  return { centre: [m[3], m[7], m[11]], c2w: [m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]] };
}

/** World-axes rotation vector of Q = A B^T (small angles: the skew part). */
function rotationBetween(a: number[], b: number[]): V3 {
  const q = new Array<number>(9).fill(0);
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) for (let k = 0; k < 3; k++) q[3 * r + c] += a[3 * r + k] * b[3 * c + k];
  const trace = q[0] + q[4] + q[8];
  const angle = Math.acos(Math.min(1, Math.max(-1, (trace - 1) / 2)));
  const axis: V3 = [q[7] - q[5], q[2] - q[6], q[3] - q[1]];
  const n = Math.hypot(...axis);
  return n > 0 ? [(axis[0] / n) * angle, (axis[1] / n) * angle, (axis[2] / n) * angle] : [0, 0, 0];
}

function solve(A: number[][], b: number[]): number[] {
  const x = solveLinearSystem(A, b);
  if (!x) throw new Error('rig alignment: a singular system (degenerate camera set)');
  return x;
}

export interface RigErrors {
  /** Per camera, after alignment: rotation error (radians) and centre error (scene units). */
  rotation: number[];
  centre: number[];
  /** Per camera, after alignment: the centre's residual vector (world axes). */
  centreResidual: V3[];
  /** The gauge motion removed: rotation (radians), translation, scale - 1. */
  gauge: { rotation: number; translation: number; scale: number };
}

/** Errors of `refined` against `truth` (same order) after the best small similarity. */
export function rigErrors(refined: readonly PinholeCamera[], truth: readonly PinholeCamera[], rotationWeight: number): RigErrors {
  const F = refined.map(frame);
  const T = truth.map(frame);
  const m = [0, 1, 2].map((k) => T.reduce((s, f) => s + f.centre[k], 0) / T.length);
  // unknowns x = (omega 3, t 3, s 1): d_i = omega x (c_i - m) + s (c_i - m) + t, phi_i = omega
  const AtA = Array.from({ length: 7 }, () => new Array<number>(7).fill(0));
  const Atb = new Array<number>(7).fill(0);
  const add = (row: number[], value: number, w: number) => {
    for (let i = 0; i < 7; i++) {
      Atb[i] += w * row[i] * value;
      for (let j = 0; j < 7; j++) AtA[i][j] += w * row[i] * row[j];
    }
  };
  const residuals = F.map((f, i) => ({ d: sub(f.centre, T[i].centre), phi: rotationBetween(f.c2w, T[i].c2w), p: sub(T[i].centre, m) }));
  for (const { d, phi, p } of residuals) {
    for (let k = 0; k < 3; k++) {
      // (omega x p)_k = sum over j of omega_j (e_j x p)_k
      const row = new Array<number>(7).fill(0);
      for (let j = 0; j < 3; j++) row[j] = cross([j === 0 ? 1 : 0, j === 1 ? 1 : 0, j === 2 ? 1 : 0], p)[k];
      row[3 + k] = 1;
      row[6] = p[k];
      add(row, d[k], 1);
      const rot = new Array<number>(7).fill(0);
      rot[k] = 1;
      add(rot, phi[k], rotationWeight * rotationWeight);
    }
  }
  for (let i = 0; i < 7; i++) AtA[i][i] += 1e-12;
  const x = solve(AtA, Atb);
  const omega = x.slice(0, 3);
  const rotation = residuals.map(({ phi }) => Math.hypot(...sub(phi, omega)));
  const centreResidual = residuals.map(({ d, p }) => sub(d, cross(omega, p).map((v, k) => v + x[6] * p[k] + x[3 + k])));
  const centre = centreResidual.map((r) => Math.hypot(...r));
  return { rotation, centre, centreResidual, gauge: { rotation: Math.hypot(...omega), translation: Math.hypot(x[3], x[4], x[5]), scale: x[6] } };
}
