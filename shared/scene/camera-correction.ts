/**
 * Camera refinement's corrections (issue 14) and their math, in float64, one source of truth for
 * the trainer, the checkpoint, the project's refined cameras and export.
 *
 * A view's pose correction (omega, tau) maps its world-to-camera [R | t] to
 * [Exp(omega) R | Exp(omega) t + tau]: a rotation about the camera centre and a translation, both
 * in the camera's axes (so the numbers read as "degrees the camera turned, metres it moved" and do
 * not depend on where the world origin is). A camera's intrinsics correction (a, b) maps
 * fx -> fx exp(a.x), fy -> fy exp(a.y), cx -> cx + fx b.x, cy -> cy + fy b.y (b in units of the
 * focal, i.e. radians at the centre, so Adam's one step size fits every image size).
 */
import type { PinholeCamera } from './camera.js';

export type Vec3 = [number, number, number];

export interface PoseCorrection {
  /** Tangent vector of the rotation (radians), camera axes. */
  rotation: Vec3;
  /** Translation in camera axes (scene units). */
  translation: Vec3;
}

export interface IntrinsicsCorrection {
  /** log of the focal scale (fx, fy). */
  logFocal: [number, number];
  /** Principal-point shift in units of the original focal (cx, cy). */
  principal: [number, number];
}

/** One view's corrections, by the view's name (a project run's cameras.json). */
export interface ViewCorrection {
  name: string;
  pose: PoseCorrection;
  intrinsics: IntrinsicsCorrection;
}

/**
 * dL/d(camera) of one rendered view (what the rasterizer's backward sums): for the local
 * perturbation [R | t] -> Exp(omega, tau) [R | t] at the camera as rendered, and for its
 * intrinsics in pixels.
 */
export interface CameraGradient {
  omega: Vec3;
  tau: Vec3;
  fx: number;
  fy: number;
  cx: number;
  cy: number;
}

export const ZERO_POSE: Readonly<PoseCorrection> = Object.freeze({ rotation: [0, 0, 0] as Vec3, translation: [0, 0, 0] as Vec3 });
export const ZERO_INTRINSICS: Readonly<IntrinsicsCorrection> = Object.freeze({ logFocal: [0, 0] as [number, number], principal: [0, 0] as [number, number] });

const cross = (a: readonly number[], b: readonly number[]): Vec3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];

/** Exp of a rotation tangent vector (Rodrigues), row-major 3x3. */
export function so3Exp(w: readonly number[]): number[] {
  const theta = Math.hypot(w[0], w[1], w[2]);
  // sin(t)/t and (1 - cos t)/t^2 by their series below 1e-4 (exact to float64 there)
  const a = theta < 1e-4 ? 1 - (theta * theta) / 6 : Math.sin(theta) / theta;
  const b = theta < 1e-4 ? 0.5 - (theta * theta) / 24 : (1 - Math.cos(theta)) / (theta * theta);
  const [x, y, z] = w;
  const K = [0, -z, y, z, 0, -x, -y, x, 0];
  const out: number[] = [];
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 3; c++) {
      let k2 = 0;
      for (let m = 0; m < 3; m++) k2 += K[3 * r + m] * K[3 * m + c];
      out.push((r === c ? 1 : 0) + a * K[3 * r + c] + b * k2);
    }
  }
  return out;
}

/** SO(3)'s left Jacobian: Exp(w + dw) = Exp(J_l(w) dw) Exp(w) to first order; row-major 3x3. */
export function so3LeftJacobian(w: readonly number[]): number[] {
  const theta = Math.hypot(w[0], w[1], w[2]);
  const b = theta < 1e-4 ? 0.5 - (theta * theta) / 24 : (1 - Math.cos(theta)) / (theta * theta);
  const c = theta < 1e-4 ? 1 / 6 - (theta * theta) / 120 : (theta - Math.sin(theta)) / (theta * theta * theta);
  const [x, y, z] = w;
  const K = [0, -z, y, z, 0, -x, -y, x, 0];
  const out: number[] = [];
  for (let r = 0; r < 3; r++) {
    for (let col = 0; col < 3; col++) {
      let k2 = 0;
      for (let m = 0; m < 3; m++) k2 += K[3 * r + m] * K[3 * m + col];
      out.push((r === col ? 1 : 0) + b * K[3 * r + col] + c * k2);
    }
  }
  return out;
}

/** The camera with its corrections applied (the one the splats are rendered from). */
export function correctCamera<C extends PinholeCamera>(camera: C, pose: Readonly<PoseCorrection> = ZERO_POSE, intrinsics: Readonly<IntrinsicsCorrection> = ZERO_INTRINSICS): C {
  const m = camera.worldToCamera;
  const E = so3Exp(pose.rotation);
  const out = new Array<number>(16).fill(0);
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 4; c++) {
      let s = 0;
      for (let k = 0; k < 3; k++) s += E[3 * r + k] * m[4 * k + c];
      out[4 * r + c] = s + (c === 3 ? pose.translation[r] : 0);
    }
  }
  out[15] = 1;
  return {
    ...camera,
    worldToCamera: out,
    fx: camera.fx * Math.exp(intrinsics.logFocal[0]),
    fy: camera.fy * Math.exp(intrinsics.logFocal[1]),
    cx: camera.cx + camera.fx * intrinsics.principal[0],
    cy: camera.cy + camera.fy * intrinsics.principal[1],
  };
}

/**
 * dL/d(pose correction) from the local gradient at the corrected camera: tau enters as the local
 * tau; a step dw of omega turns the camera by J_l(omega) dw about its centre while t - tau turns
 * with it, i.e. the local perturbation (J_l dw, -(J_l dw) x tau). Returns (d rotation, d translation).
 */
export function poseCorrectionGradient(local: CameraGradient, pose: Readonly<PoseCorrection>): { rotation: Vec3; translation: Vec3 } {
  const tauCrossG = cross(pose.translation, local.tau);
  const g = [local.omega[0] - tauCrossG[0], local.omega[1] - tauCrossG[1], local.omega[2] - tauCrossG[2]];
  const J = so3LeftJacobian(pose.rotation);
  const rotation: Vec3 = [0, 0, 0];
  for (let c = 0; c < 3; c++) rotation[c] = J[c] * g[0] + J[3 + c] * g[1] + J[6 + c] * g[2]; // J^T g
  return { rotation, translation: [...local.tau] as Vec3 };
}

/** dL/d(intrinsics correction) from the local gradient; `camera` is the uncorrected one. */
export function intrinsicsCorrectionGradient(local: CameraGradient, camera: Pick<PinholeCamera, 'fx' | 'fy'>, intrinsics: Readonly<IntrinsicsCorrection>): IntrinsicsCorrection {
  return {
    logFocal: [local.fx * camera.fx * Math.exp(intrinsics.logFocal[0]), local.fy * camera.fy * Math.exp(intrinsics.logFocal[1])],
    principal: [local.cx * camera.fx, local.cy * camera.fy],
  };
}
