/**
 * Float64 reference of the 3DGS projection stage (gsplat 1.5 `fully_fused_projection` with the
 * 2D blur / Mip-Splatting compensation, plus SH colour and the camera-facing normal), and its
 * analytic backward. Ground truth for the projection kernels; see rasterize.ts for the whole
 * pipeline.
 *
 * One function (`projectSplat`) computes every intermediate of a splat into a `SplatFrame`; the
 * forward copies the outputs out of it and the backward recomputes it and walks it in reverse,
 * so the forward math lives once.
 *
 * Conventions: camera-space point p = R * mean + t (OpenCV axes); a splat is culled when
 * p.z < near or det(blurred cov2d) <= 0. Matrices are row-major Float64Arrays. Gradients of a
 * symmetric matrix are kept as full matrices (d/dM01 and d/dM10 each hold the entry's share);
 * the conic's off-diagonal `b` enters the Gaussian as `b * dx * dy`, so dL/db is the gradient of
 * that single parameter.
 */
import type { PinholeCamera } from '../../shared/scene/camera.js';
import { shCoefficientCount } from '../../shared/scene/splats.js';
import { shBasis } from './sh.js';

/** What the reference reads of a splat set: a SplatSet, or the same fields in float64 (finite differences need float64). */
export interface SplatParams {
  count: number;
  shDegree: number;
  means: ArrayLike<number>;
  logScales: ArrayLike<number>;
  quats: ArrayLike<number>;
  opacityLogits: ArrayLike<number>;
  sh: ArrayLike<number>;
}

export interface ProjectionOptions {
  antialiased: boolean;
  /** Splats with camera z below this are culled. */
  near: number;
  /** Added to the diagonal of cov2d (the 2D low-pass filter), in pixels^2. */
  eps2d: number;
}

/** Bits of `ProjectedSplats.flags`: every discrete decision of the projection (finite-difference tests watch them). */
export const PROJECTION_FLAG = {
  clampX: 1, // x/z was clamped to the widened frustum in the Jacobian
  clampY: 2,
  colourClampR: 4, // SH(dir) + 0.5 < 0: colour clamped to 0
  colourClampG: 8,
  colourClampB: 16,
  normalFlipped: 32, // the smallest-scale axis pointed away from the camera and was negated
  normalAxisShift: 6, // bits 6..7: index of the smallest scale (first one on ties)
} as const;

/** Per-splat outputs of the projection; entries of culled splats are 0. */
export interface ProjectedSplats {
  count: number;
  /** 1 where the splat survives projection. */
  visible: Uint8Array;
  /** Camera-space centre p (3 per splat). */
  camPoints: Float64Array;
  /** p.z: the depth key and the depth that is composited. */
  depth: Float64Array;
  /** Pixel coordinates of the centre (2 per splat); pixel (u, v) is sampled at (u + 0.5, v + 0.5). */
  mean2d: Float64Array;
  /** Blurred 2D covariance (xx, xy, yy), 3 per splat. */
  cov2d: Float64Array;
  /** Inverse of cov2d (a, b, c): power = 0.5 * (a dx^2 + c dy^2) + b dx dy. */
  conic: Float64Array;
  /** sigmoid(logit) times the compensation (1 in classic mode). */
  opacity: Float64Array;
  compensation: Float64Array;
  /** max(0, SH(dir) + 0.5), 3 per splat. */
  colour: Float64Array;
  /** Camera-space unit axis of the smallest scale with n . p <= 0, 3 per splat. */
  normal: Float64Array;
  flags: Uint8Array;
}

/** dL/d of the fields of ProjectedSplats (what the compositing backward produces). */
export interface ProjectedGradients {
  mean2d: Float64Array;
  conic: Float64Array;
  opacity: Float64Array;
  colour: Float64Array;
  depth: Float64Array;
  normal: Float64Array;
}

export interface ParameterGradients {
  means: Float64Array;
  logScales: Float64Array;
  quats: Float64Array;
  opacityLogits: Float64Array;
  /** Same layout as SplatSet.sh (the set's K); coefficients beyond the active degree get 0. */
  sh: Float64Array;
}

/** Camera quantities shared by all splats. */
export interface CameraFrame {
  rot: Float64Array; // R, row-major 3x3
  trans: Float64Array; // t
  centre: Float64Array; // -R^T t, world space
  fx: number;
  fy: number;
  cx: number;
  cy: number;
  limXPos: number;
  limXNeg: number;
  limYPos: number;
  limYNeg: number;
}

export function cameraFrame(camera: PinholeCamera): CameraFrame {
  const m = camera.worldToCamera;
  if (m.length !== 16) throw new Error(`reference: worldToCamera must have 16 numbers, got ${m.length}`);
  const rot = Float64Array.from([m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]]);
  const trans = Float64Array.from([m[3], m[7], m[11]]);
  const centre = new Float64Array(3);
  for (let i = 0; i < 3; i++) centre[i] = -(rot[i] * trans[0] + rot[3 + i] * trans[1] + rot[6 + i] * trans[2]);
  const { fx, fy, cx, cy, width, height } = camera;
  const tanFovX = (0.5 * width) / fx;
  const tanFovY = (0.5 * height) / fy;
  return {
    rot,
    trans,
    centre,
    fx,
    fy,
    cx,
    cy,
    limXPos: (width - cx) / fx + 0.3 * tanFovX,
    limXNeg: cx / fx + 0.3 * tanFovX,
    limYPos: (height - cy) / fy + 0.3 * tanFovY,
    limYNeg: cy / fy + 0.3 * tanFovY,
  };
}

/** Every intermediate of one splat's projection; reused between splats. */
export class SplatFrame {
  readonly p = new Float64Array(3);
  readonly qn = new Float64Array(4);
  qNorm = 0;
  readonly rotQ = new Float64Array(9); // rotation of the normalized quaternion
  readonly scale = new Float64Array(3);
  readonly camM = new Float64Array(9); // A = R * Rq * S, so SigmaCam = A A^T
  readonly sigmaCam = new Float64Array(9);
  readonly jac = new Float64Array(6); // J, 2x3
  rx = 0; // clamp(x/z)
  ry = 0;
  readonly cov0 = new Float64Array(3); // J SigmaCam J^T (xx, xy, yy)
  readonly covBlur = new Float64Array(3);
  det0 = 0;
  detBlur = 0;
  compensation = 1;
  readonly conic = new Float64Array(3);
  sigmoid = 0;
  opacity = 0;
  readonly mean2d = new Float64Array(2);
  readonly dir = new Float64Array(3); // normalized mean - camera centre
  dirLength = 0;
  readonly basis = new Float64Array(16);
  readonly basisJac = new Float64Array(48);
  readonly colourRaw = new Float64Array(3); // SH(dir) + 0.5 before the clamp
  readonly colour = new Float64Array(3);
  normalAxis = 0;
  normalSign = 1;
  readonly normal = new Float64Array(3);
  flags = 0;
}

/** Computes splat i into `f`; returns false when it is culled (then only p and flags are meaningful). */
export function projectSplat(
  params: SplatParams,
  i: number,
  shDegree: number,
  cam: CameraFrame,
  options: ProjectionOptions,
  f: SplatFrame,
): boolean {
  const R = cam.rot;
  const mx = params.means[3 * i];
  const my = params.means[3 * i + 1];
  const mz = params.means[3 * i + 2];
  for (let r = 0; r < 3; r++) f.p[r] = R[3 * r] * mx + R[3 * r + 1] * my + R[3 * r + 2] * mz + cam.trans[r];
  f.flags = 0;
  const [x, y, z] = f.p;
  if (!(z >= options.near)) return false;

  // Rotation and scale -> camera-space covariance.
  const qw = params.quats[4 * i];
  const qx = params.quats[4 * i + 1];
  const qy = params.quats[4 * i + 2];
  const qz = params.quats[4 * i + 3];
  f.qNorm = Math.hypot(qw, qx, qy, qz);
  if (!(f.qNorm > 0)) throw new Error(`reference: splat ${i} has a zero or non-finite quaternion`);
  const w = qw / f.qNorm;
  const a = qx / f.qNorm;
  const b = qy / f.qNorm;
  const c = qz / f.qNorm;
  f.qn.set([w, a, b, c]);
  f.rotQ.set([
    1 - 2 * (b * b + c * c), 2 * (a * b - w * c), 2 * (a * c + w * b),
    2 * (a * b + w * c), 1 - 2 * (a * a + c * c), 2 * (b * c - w * a),
    2 * (a * c - w * b), 2 * (b * c + w * a), 1 - 2 * (a * a + b * b),
  ]);
  for (let k = 0; k < 3; k++) f.scale[k] = Math.exp(params.logScales[3 * i + k]);
  for (let r = 0; r < 3; r++) {
    for (let k = 0; k < 3; k++) {
      f.camM[3 * r + k] = (R[3 * r] * f.rotQ[k] + R[3 * r + 1] * f.rotQ[3 + k] + R[3 * r + 2] * f.rotQ[6 + k]) * f.scale[k];
    }
  }
  for (let r = 0; r < 3; r++) {
    for (let s = 0; s < 3; s++) {
      f.sigmaCam[3 * r + s] = f.camM[3 * r] * f.camM[3 * s] + f.camM[3 * r + 1] * f.camM[3 * s + 1] + f.camM[3 * r + 2] * f.camM[3 * s + 2];
    }
  }

  // Perspective Jacobian with gsplat's clamping of x/z and y/z to the widened frustum.
  const { fx, fy } = cam;
  f.rx = x / z;
  f.ry = y / z;
  if (f.rx > cam.limXPos || f.rx < -cam.limXNeg) {
    f.rx = Math.min(cam.limXPos, Math.max(-cam.limXNeg, f.rx));
    f.flags |= PROJECTION_FLAG.clampX;
  }
  if (f.ry > cam.limYPos || f.ry < -cam.limYNeg) {
    f.ry = Math.min(cam.limYPos, Math.max(-cam.limYNeg, f.ry));
    f.flags |= PROJECTION_FLAG.clampY;
  }
  f.jac.set([fx / z, 0, (-fx * f.rx) / z, 0, fy / z, (-fy * f.ry) / z]);
  symmetricSandwich2(f.jac, f.sigmaCam, f.cov0);

  // 2D blur and compensation.
  const e = options.eps2d;
  f.covBlur.set([f.cov0[0] + e, f.cov0[1], f.cov0[2] + e]);
  f.det0 = f.cov0[0] * f.cov0[2] - f.cov0[1] * f.cov0[1];
  f.detBlur = f.covBlur[0] * f.covBlur[2] - f.covBlur[1] * f.covBlur[1];
  if (!(f.detBlur > 0)) return false;
  f.compensation = options.antialiased ? Math.sqrt(Math.max(0, f.det0 / f.detBlur)) : 1;
  f.conic.set([f.covBlur[2] / f.detBlur, -f.covBlur[1] / f.detBlur, f.covBlur[0] / f.detBlur]);
  f.sigmoid = 1 / (1 + Math.exp(-params.opacityLogits[i]));
  f.opacity = f.sigmoid * f.compensation;
  f.mean2d[0] = (fx * x) / z + cam.cx;
  f.mean2d[1] = (fy * y) / z + cam.cy;

  // View-dependent colour.
  const K = shCoefficientCount(params.shDegree);
  const kActive = shCoefficientCount(shDegree);
  for (let k = 0; k < 3; k++) f.dir[k] = params.means[3 * i + k] - cam.centre[k];
  f.dirLength = Math.hypot(f.dir[0], f.dir[1], f.dir[2]);
  for (let k = 0; k < 3; k++) f.dir[k] /= f.dirLength;
  shBasis(shDegree, f.dir[0], f.dir[1], f.dir[2], f.basis, f.basisJac);
  for (let ch = 0; ch < 3; ch++) {
    let sum = 0.5;
    for (let k = 0; k < kActive; k++) sum += params.sh[(i * K + k) * 3 + ch] * f.basis[k];
    f.colourRaw[ch] = sum;
    f.colour[ch] = Math.max(0, sum);
    if (sum < 0) f.flags |= PROJECTION_FLAG.colourClampR << ch;
  }

  // Normal: camera-space axis of the smallest scale, turned towards the camera.
  f.normalAxis = f.scale[1] < f.scale[0] ? 1 : 0;
  if (f.scale[2] < f.scale[f.normalAxis]) f.normalAxis = 2;
  for (let r = 0; r < 3; r++) {
    f.normal[r] = R[3 * r] * f.rotQ[f.normalAxis] + R[3 * r + 1] * f.rotQ[3 + f.normalAxis] + R[3 * r + 2] * f.rotQ[6 + f.normalAxis];
  }
  f.normalSign = f.normal[0] * x + f.normal[1] * y + f.normal[2] * z > 0 ? -1 : 1;
  for (let r = 0; r < 3; r++) f.normal[r] *= f.normalSign;
  if (f.normalSign < 0) f.flags |= PROJECTION_FLAG.normalFlipped;
  f.flags |= f.normalAxis << PROJECTION_FLAG.normalAxisShift;
  return true;
}

/** out = J S J^T for J 2x3 and S symmetric 3x3, as (xx, xy, yy). */
function symmetricSandwich2(J: Float64Array, S: Float64Array, out: Float64Array): void {
  const js = new Float64Array(6);
  for (let r = 0; r < 2; r++) {
    for (let k = 0; k < 3; k++) js[3 * r + k] = J[3 * r] * S[k] + J[3 * r + 1] * S[3 + k] + J[3 * r + 2] * S[6 + k];
  }
  out[0] = js[0] * J[0] + js[1] * J[1] + js[2] * J[2];
  out[1] = js[0] * J[3] + js[1] * J[4] + js[2] * J[5];
  out[2] = js[3] * J[3] + js[4] * J[4] + js[5] * J[5];
}

export function projectSplats(params: SplatParams, shDegree: number, camera: PinholeCamera, options: ProjectionOptions): ProjectedSplats {
  checkDegree(params, shDegree);
  const n = params.count;
  const out: ProjectedSplats = {
    count: n,
    visible: new Uint8Array(n),
    camPoints: new Float64Array(3 * n),
    depth: new Float64Array(n),
    mean2d: new Float64Array(2 * n),
    cov2d: new Float64Array(3 * n),
    conic: new Float64Array(3 * n),
    opacity: new Float64Array(n),
    compensation: new Float64Array(n),
    colour: new Float64Array(3 * n),
    normal: new Float64Array(3 * n),
    flags: new Uint8Array(n),
  };
  const cam = cameraFrame(camera);
  const f = new SplatFrame();
  for (let i = 0; i < n; i++) {
    const visible = projectSplat(params, i, shDegree, cam, options, f);
    out.camPoints.set(f.p, 3 * i);
    out.flags[i] = f.flags;
    if (!visible) continue;
    out.visible[i] = 1;
    out.depth[i] = f.p[2];
    out.mean2d.set(f.mean2d, 2 * i);
    out.cov2d.set(f.covBlur, 3 * i);
    out.conic.set(f.conic, 3 * i);
    out.opacity[i] = f.opacity;
    out.compensation[i] = f.compensation;
    out.colour.set(f.colour, 3 * i);
    out.normal.set(f.normal, 3 * i);
  }
  return out;
}

export function checkDegree(params: SplatParams, shDegree: number): void {
  if (!(Number.isInteger(shDegree) && shDegree >= 0 && shDegree <= params.shDegree && params.shDegree <= 3)) {
    throw new Error(`reference: active SH degree must be an integer in 0..${params.shDegree} (the set's degree), got ${shDegree}`);
  }
}
