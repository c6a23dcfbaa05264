/**
 * The five camera models bundle adjustment refines, in COLMAP's parameter orders, float64:
 * projection of a camera-frame point to pixels and its analytic derivatives, and the Jacobians of
 * one observation's residual with respect to its pose block [dw, dt], its point and its camera's
 * refined intrinsics (the spec: docs/sfm.md, "Bundle adjustment").
 *
 * Every model is the general one with some terms absent: x = X_c.x / X_c.z, y = X_c.y / X_c.z,
 * r2 = x^2 + y^2, R = 1 + k1 r2 + k2 r2^2, xd = x R + 2 p1 x y + p2 (r2 + 2 x^2),
 * yd = y R + p1 (r2 + 2 y^2) + 2 p2 x y, u = fx xd + cx, v = fy yd + cy. A model's parameter
 * drives one or two of the general terms ("slots"): a single focal drives fx and fy.
 */

export type BaCameraModel = 'SIMPLE_PINHOLE' | 'PINHOLE' | 'SIMPLE_RADIAL' | 'RADIAL' | 'OPENCV';

export type IntrinsicKind = 'focal' | 'principal' | 'extra';

/** The general model's terms, the slots a model's parameters drive. */
export const SLOT = { fx: 0, fy: 1, cx: 2, cy: 3, k1: 4, k2: 5, p1: 6, p2: 7 } as const;
export const SLOT_COUNT = 8;

export interface CameraModelInfo {
  /** COLMAP's names, in its order. */
  parameterNames: readonly string[];
  kinds: readonly IntrinsicKind[];
  /** Per parameter: the general terms it sets (SLOT). */
  slots: readonly (readonly number[])[];
}

const FOCAL = [SLOT.fx, SLOT.fy];

export const CAMERA_MODELS: Readonly<Record<BaCameraModel, CameraModelInfo>> = {
  SIMPLE_PINHOLE: { parameterNames: ['f', 'cx', 'cy'], kinds: ['focal', 'principal', 'principal'], slots: [FOCAL, [SLOT.cx], [SLOT.cy]] },
  PINHOLE: { parameterNames: ['fx', 'fy', 'cx', 'cy'], kinds: ['focal', 'focal', 'principal', 'principal'], slots: [[SLOT.fx], [SLOT.fy], [SLOT.cx], [SLOT.cy]] },
  SIMPLE_RADIAL: { parameterNames: ['f', 'cx', 'cy', 'k'], kinds: ['focal', 'principal', 'principal', 'extra'], slots: [FOCAL, [SLOT.cx], [SLOT.cy], [SLOT.k1]] },
  RADIAL: {
    parameterNames: ['f', 'cx', 'cy', 'k1', 'k2'],
    kinds: ['focal', 'principal', 'principal', 'extra', 'extra'],
    slots: [FOCAL, [SLOT.cx], [SLOT.cy], [SLOT.k1], [SLOT.k2]],
  },
  OPENCV: {
    parameterNames: ['fx', 'fy', 'cx', 'cy', 'k1', 'k2', 'p1', 'p2'],
    kinds: ['focal', 'focal', 'principal', 'principal', 'extra', 'extra', 'extra', 'extra'],
    slots: [[SLOT.fx], [SLOT.fy], [SLOT.cx], [SLOT.cy], [SLOT.k1], [SLOT.k2], [SLOT.p1], [SLOT.p2]],
  },
};

export const BA_CAMERA_MODELS = Object.keys(CAMERA_MODELS) as BaCameraModel[];

export interface IntrinsicsRefinement {
  refineFocal: boolean;
  refinePrincipalPoint: boolean;
  refineExtra: boolean;
}

/** The indices (COLMAP's order, ascending) of the parameters the options make variables. */
export function refinedParameterIndices(model: BaCameraModel, options: IntrinsicsRefinement): number[] {
  const wanted: Record<IntrinsicKind, boolean> = { focal: options.refineFocal, principal: options.refinePrincipalPoint, extra: options.refineExtra };
  const info = CAMERA_MODELS[model];
  if (!info) throw new Error(`bundle/camera-models.ts: unknown camera model '${model}' (expected one of ${BA_CAMERA_MODELS.join(', ')})`);
  return info.kinds.flatMap((kind, index) => (wanted[kind] ? [index] : []));
}

/** The general terms [fx, fy, cx, cy, k1, k2, p1, p2] of a model's parameters (absent ones 0). */
export function generalIntrinsics(model: BaCameraModel, params: ArrayLike<number>, out = new Float64Array(SLOT_COUNT)): Float64Array {
  out.fill(0);
  CAMERA_MODELS[model].slots.forEach((slots, index) => {
    for (const slot of slots) out[slot] = params[index];
  });
  return out;
}

/**
 * The pixel (u, v) of a camera-frame point, and optionally d(u, v)/dX_c (2x3 row-major) and
 * d(u, v)/d(general terms) (2x8 row-major). z <= 0 projects all the same (the filters of the
 * mapper drop points behind cameras; the solver only sees the cost).
 */
export function projectGeneral(
  k: Float64Array,
  xc: ArrayLike<number>,
  uv: Float64Array,
  dUvdXc?: Float64Array,
  dUvdGeneral?: Float64Array,
): void {
  const [fx, fy, cx, cy, k1, k2, p1, p2] = [k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7]];
  const inverseZ = 1 / xc[2];
  const x = xc[0] * inverseZ;
  const y = xc[1] * inverseZ;
  const r2 = x * x + y * y;
  const radial = 1 + k1 * r2 + k2 * r2 * r2;
  const xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x);
  const yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y;
  uv[0] = fx * xd + cx;
  uv[1] = fy * yd + cy;
  if (dUvdXc) {
    // d radial / dx = (k1 + 2 k2 r2) 2x; the distorted point's 2x2 Jacobian, then the perspective divide.
    const dRadial = 2 * (k1 + 2 * k2 * r2);
    const dxdx = radial + x * dRadial * x + 2 * p1 * y + 6 * p2 * x;
    const dxdy = x * dRadial * y + 2 * p1 * x + 2 * p2 * y;
    const dydx = y * dRadial * x + 2 * p1 * x + 2 * p2 * y;
    const dydy = radial + y * dRadial * y + 6 * p1 * y + 2 * p2 * x;
    // dx/dX_c = [1/z, 0, -x/z], dy/dX_c = [0, 1/z, -y/z].
    const a = fx * inverseZ;
    const b = fy * inverseZ;
    dUvdXc[0] = a * dxdx;
    dUvdXc[1] = a * dxdy;
    dUvdXc[2] = -a * (dxdx * x + dxdy * y);
    dUvdXc[3] = b * dydx;
    dUvdXc[4] = b * dydy;
    dUvdXc[5] = -b * (dydx * x + dydy * y);
  }
  if (dUvdGeneral) {
    dUvdGeneral.fill(0);
    dUvdGeneral[SLOT.fx] = xd;
    dUvdGeneral[SLOT.cx] = 1;
    dUvdGeneral[SLOT.k1] = fx * x * r2;
    dUvdGeneral[SLOT.k2] = fx * x * r2 * r2;
    dUvdGeneral[SLOT.p1] = fx * 2 * x * y;
    dUvdGeneral[SLOT.p2] = fx * (r2 + 2 * x * x);
    dUvdGeneral[SLOT_COUNT + SLOT.fy] = yd;
    dUvdGeneral[SLOT_COUNT + SLOT.cy] = 1;
    dUvdGeneral[SLOT_COUNT + SLOT.k1] = fy * y * r2;
    dUvdGeneral[SLOT_COUNT + SLOT.k2] = fy * y * r2 * r2;
    dUvdGeneral[SLOT_COUNT + SLOT.p1] = fy * (r2 + 2 * y * y);
    dUvdGeneral[SLOT_COUNT + SLOT.p2] = fy * 2 * x * y;
  }
}

/** The pixel of a world point seen by a camera with pose (R row-major at rotations[9 i], t at translations[3 i]). */
export function projectWorldPoint(model: BaCameraModel, params: ArrayLike<number>, rotation: ArrayLike<number>, translation: ArrayLike<number>, point: ArrayLike<number>): [number, number] {
  const xc = new Float64Array(3);
  cameraPoint(rotation, 0, translation, 0, point, 0, xc, new Float64Array(3));
  const uv = new Float64Array(2);
  projectGeneral(generalIntrinsics(model, params), xc, uv);
  return [uv[0], uv[1]];
}

/** X_c = R X + t and R X (the pose Jacobian needs the latter), from arrays at offsets. */
export function cameraPoint(
  rotations: ArrayLike<number>,
  rotationOffset: number,
  translations: ArrayLike<number>,
  translationOffset: number,
  points: ArrayLike<number>,
  pointOffset: number,
  xc: Float64Array,
  rotated: Float64Array,
): void {
  const [X, Y, Z] = [points[pointOffset], points[pointOffset + 1], points[pointOffset + 2]];
  for (let r = 0; r < 3; r++) {
    const m = rotationOffset + 3 * r;
    rotated[r] = rotations[m] * X + rotations[m + 1] * Y + rotations[m + 2] * Z;
    xc[r] = rotated[r] + translations[translationOffset + r];
  }
}

/** One observation's linearisation (its residual and the three Jacobians, row-major). */
export interface ObservationJacobians {
  /** (u - obs.x, v - obs.y). */
  residual: Float64Array;
  /** 2x6: d r / d[dw, dt], for R <- Exp(dw) R, t <- t + dt. */
  jPose: Float64Array;
  /** 2x3: d r / dX. */
  jPoint: Float64Array;
  /** 2 x refined.length (row stride refined.length): d r / d(refined intrinsics). */
  jIntrinsics: Float64Array;
}

export function observationJacobiansScratch(): ObservationJacobians & { scratch: Float64Array } {
  return { residual: new Float64Array(2), jPose: new Float64Array(12), jPoint: new Float64Array(6), jIntrinsics: new Float64Array(16), scratch: new Float64Array(SLOT_COUNT + 3 + 3 + 2 + 6 + 16) };
}

/**
 * Linearises observation (obsX, obsY) of point X by the camera (model, general terms k, refined
 * parameter indices) with pose (R, t): dX_c/d(dw) = -[R X]_x, dX_c/d(dt) = I, dX_c/dX = R,
 * d r/d(parameter) = the sum over the general terms it drives.
 */
export function linearizeObservation(
  model: BaCameraModel,
  general: Float64Array,
  refined: readonly number[],
  rotations: ArrayLike<number>,
  rotationOffset: number,
  translations: ArrayLike<number>,
  translationOffset: number,
  points: ArrayLike<number>,
  pointOffset: number,
  obsX: number,
  obsY: number,
  out: ObservationJacobians & { scratch: Float64Array },
): void {
  const s = out.scratch;
  const xc = s.subarray(8, 11);
  const rotated = s.subarray(11, 14);
  const uv = s.subarray(14, 16);
  const dUvdXc = s.subarray(16, 22);
  const dUvdGeneral = s.subarray(22, 38);
  cameraPoint(rotations, rotationOffset, translations, translationOffset, points, pointOffset, xc, rotated);
  projectGeneral(general, xc, uv, dUvdXc, dUvdGeneral);
  out.residual[0] = uv[0] - obsX;
  out.residual[1] = uv[1] - obsY;
  const [px, py, pz] = [rotated[0], rotated[1], rotated[2]];
  for (let row = 0; row < 2; row++) {
    const [a, b, c] = [dUvdXc[3 * row], dUvdXc[3 * row + 1], dUvdXc[3 * row + 2]];
    // (a, b, c) times -[p]_x, [p]_x = [[0, -pz, py], [pz, 0, -px], [-py, px, 0]].
    out.jPose[6 * row] = -(b * pz - c * py);
    out.jPose[6 * row + 1] = -(-a * pz + c * px);
    out.jPose[6 * row + 2] = -(a * py - b * px);
    out.jPose[6 * row + 3] = a;
    out.jPose[6 * row + 4] = b;
    out.jPose[6 * row + 5] = c;
    for (let col = 0; col < 3; col++) {
      out.jPoint[3 * row + col] = a * rotations[rotationOffset + col] + b * rotations[rotationOffset + 3 + col] + c * rotations[rotationOffset + 6 + col];
    }
  }
  const slots = CAMERA_MODELS[model].slots;
  const k = refined.length;
  for (let m = 0; m < k; m++) {
    let du = 0;
    let dv = 0;
    for (const slot of slots[refined[m]]) {
      du += dUvdGeneral[slot];
      dv += dUvdGeneral[SLOT_COUNT + slot];
    }
    out.jIntrinsics[m] = du;
    out.jIntrinsics[k + m] = dv;
  }
}

/**
 * The normalised (undistorted) image coordinates (x, y) of pixel (u, v): the inverse of the
 * distortion by fixed-point iteration (COLMAP iterates likewise), exact for the pinholes. For
 * triangulating with refined distortion; the lenses BA meets (|k| r2 well under 1) converge in a
 * few steps, 50 is the cap.
 */
export function undistortPixel(model: BaCameraModel, params: ArrayLike<number>, u: number, v: number): [number, number] {
  const [fx, fy, cx, cy, k1, k2, p1, p2] = generalIntrinsics(model, params);
  const xd = (u - cx) / fx;
  const yd = (v - cy) / fy;
  let [x, y] = [xd, yd];
  if (k1 === 0 && k2 === 0 && p1 === 0 && p2 === 0) return [x, y];
  for (let iteration = 0; iteration < 50; iteration++) {
    const r2 = x * x + y * y;
    const radial = 1 + k1 * r2 + k2 * r2 * r2;
    const nextX = (xd - 2 * p1 * x * y - p2 * (r2 + 2 * x * x)) / radial;
    const nextY = (yd - p1 * (r2 + 2 * y * y) - 2 * p2 * x * y) / radial;
    const change = Math.abs(nextX - x) + Math.abs(nextY - y);
    [x, y] = [nextX, nextY];
    if (change < 1e-14) break;
  }
  return [x, y];
}
