/**
 * The lens models the loaders accept and their math in normalized camera coordinates
 * (x, y) = ((u - cx) / fx, (v - cy) / fy), COLMAP's definitions (src/colmap/sensor/models.h):
 *
 * perspective (SIMPLE_RADIAL, RADIAL, OPENCV, FULL_OPENCV; transforms.json k1 k2 p1 p2 = OPENCV):
 *   r2 = x^2 + y^2, R = (1 + k1 r2 + k2 r2^2 + k3 r2^3) / (1 + k4 r2 + k5 r2^2 + k6 r2^3)
 *   xd = x R + 2 p1 x y + p2 (r2 + 2 x^2),  yd = y R + p1 (r2 + 2 y^2) + 2 p2 x y
 * fisheye, equidistant with a polynomial in the angle (OPENCV_FISHEYE, SIMPLE_RADIAL_FISHEYE,
 * RADIAL_FISHEYE; transforms.json camera_model OPENCV_FISHEYE):
 *   r = |(x, y)|, theta = atan(r), theta_d = theta (1 + k1 theta^2 + k2 theta^4 + k3 theta^6 + k4 theta^8)
 *   (xd, yd) = (x, y) theta_d / r
 * Pixel coordinates follow COLMAP and shared/scene/camera.ts: pixel (u, v) has its centre at (u + 0.5, v + 0.5).
 *
 * A model is one-to-one only up to the radius where its radial map stops increasing (a polynomial
 * fitted to a lens turns back beyond the lens's field of view); `validRadius` finds that radius,
 * and rays beyond it are invalid, never sampled.
 */
import { badInput } from '../../../shared/rpc/errors.js';
import type { Distortion } from './types.js';

export type LensProjection = 'perspective' | 'fisheye';

/** A lens's distortion coefficients by name, the one list of them: radial terms, then tangential ones. */
export const RADIAL_TERMS = ['k1', 'k2', 'k3', 'k4', 'k5', 'k6'] as const;
export const TANGENTIAL_TERMS = ['p1', 'p2'] as const;
export type LensTerm = (typeof RADIAL_TERMS)[number] | (typeof TANGENTIAL_TERMS)[number];

/**
 * The coefficients a projection uses, in order. perspective: the rational radial terms (k4..k6 in
 * the denominator) and the tangential ones; fisheye: k1..k4 of theta_d (its k5, k6, p1, p2 stay 0).
 */
const TERMS_OF: Readonly<Record<LensProjection, readonly LensTerm[]>> = {
  perspective: [...RADIAL_TERMS, ...TANGENTIAL_TERMS],
  fisheye: RADIAL_TERMS.slice(0, 4),
};

export interface Lens extends Record<LensTerm, number> {
  projection: LensProjection;
  fx: number;
  fy: number;
  cx: number;
  cy: number;
}

/** The coefficients of the lens's projection (TERMS_OF), in order: what describes its distortion. */
export function lensTerms(lens: Lens): number[] {
  return TERMS_OF[lens.projection].map((term) => lens[term]);
}

/** Every model lensOf reads, in COLMAP's parameter order. */
export const LENS_MODELS = ['SIMPLE_RADIAL', 'RADIAL', 'OPENCV', 'FULL_OPENCV', 'OPENCV_FISHEYE', 'SIMPLE_RADIAL_FISHEYE', 'RADIAL_FISHEYE'] as const;

const NO_TERMS = Object.fromEntries(TERMS_OF.perspective.map((term) => [term, 0])) as Record<LensTerm, number>;

/** COLMAP parameter order -> Lens; `file` and `where` name the source in errors. */
export function lensOf(distortion: Pick<Distortion, 'model' | 'params'>, file = 'distortion', where = 'camera'): Lens {
  const p = distortion.params;
  const expect = (n: number): void => {
    if (p.length !== n || !p.every(Number.isFinite)) {
      throw badInput(file, `${where}: ${distortion.model} needs ${n} finite parameters, got [${p.join(', ')}]`);
    }
  };
  const perspective = { projection: 'perspective' as const, ...NO_TERMS };
  const fisheye = { projection: 'fisheye' as const, ...NO_TERMS };
  switch (distortion.model) {
    case 'SIMPLE_RADIAL':
      expect(4);
      return { ...perspective, fx: p[0], fy: p[0], cx: p[1], cy: p[2], k1: p[3] };
    case 'RADIAL':
      expect(5);
      return { ...perspective, fx: p[0], fy: p[0], cx: p[1], cy: p[2], k1: p[3], k2: p[4] };
    case 'OPENCV':
      expect(8);
      return { ...perspective, fx: p[0], fy: p[1], cx: p[2], cy: p[3], k1: p[4], k2: p[5], p1: p[6], p2: p[7] };
    case 'FULL_OPENCV':
      expect(12);
      return { ...perspective, fx: p[0], fy: p[1], cx: p[2], cy: p[3], k1: p[4], k2: p[5], p1: p[6], p2: p[7], k3: p[8], k4: p[9], k5: p[10], k6: p[11] };
    case 'OPENCV_FISHEYE':
      expect(8);
      return { ...fisheye, fx: p[0], fy: p[1], cx: p[2], cy: p[3], k1: p[4], k2: p[5], k3: p[6], k4: p[7] };
    case 'SIMPLE_RADIAL_FISHEYE':
      expect(4);
      return { ...fisheye, fx: p[0], fy: p[0], cx: p[1], cy: p[2], k1: p[3] };
    case 'RADIAL_FISHEYE':
      expect(5);
      return { ...fisheye, fx: p[0], fy: p[0], cx: p[1], cy: p[2], k1: p[3], k2: p[4] };
    default:
      throw badInput(file, `${where}: cannot undistort camera model ${distortion.model} (supported: ${LENS_MODELS.join(', ')})`);
  }
}

/**
 * True when the lens maps rays exactly as a pinhole of its intrinsics, so the image can be used
 * as it is. A fisheye is never one, even with every k zero (equidistant is not perspective).
 */
export function isPinholeLens(lens: Lens): boolean {
  return lens.projection === 'perspective' && lensTerms(lens).every((k) => k === 0);
}

/** theta_d / theta of a fisheye at angle theta. */
function fisheyeFactor(lens: Lens, theta: number): number {
  const t2 = theta * theta;
  return 1 + t2 * (lens.k1 + t2 * (lens.k2 + t2 * (lens.k3 + t2 * lens.k4)));
}

/** d theta_d / d theta. */
function fisheyeSlope(lens: Lens, theta: number): number {
  const t2 = theta * theta;
  return 1 + t2 * (3 * lens.k1 + t2 * (5 * lens.k2 + t2 * (7 * lens.k3 + t2 * 9 * lens.k4)));
}

/** The perspective radial factor R(r2) and dR/dr2. */
function perspectiveRadial(lens: Lens, r2: number): [number, number] {
  const { k1, k2, k3, k4, k5, k6 } = lens;
  // Kept as 1 + (k1 r2 + k2 r2^2): OPENCV's undistorted images stay bit-identical to before FULL_OPENCV.
  const numerator = 1 + (k1 * r2 + k2 * r2 * r2 + k3 * r2 * r2 * r2);
  const dNumerator = k1 + 2 * k2 * r2 + 3 * k3 * r2 * r2;
  if (k4 === 0 && k5 === 0 && k6 === 0) return [numerator, dNumerator];
  const denominator = 1 + k4 * r2 + k5 * r2 * r2 + k6 * r2 * r2 * r2;
  const dDenominator = k4 + 2 * k5 * r2 + 3 * k6 * r2 * r2;
  return [numerator / denominator, (dNumerator * denominator - numerator * dDenominator) / (denominator * denominator)];
}

/** Normalized undistorted (pinhole) -> normalized distorted coordinates. */
export function distortNormalized(lens: Lens, x: number, y: number): [number, number] {
  if (lens.projection === 'fisheye') {
    const r = Math.sqrt(x * x + y * y); // not Math.hypot: this runs per pixel of every undistorted image, and hypot is several times slower
    if (r < 1e-15) return [x, y]; // theta_d / r -> 1
    const theta = Math.atan(r);
    const scale = (theta * fisheyeFactor(lens, theta)) / r;
    return [x * scale, y * scale];
  }
  const { p1, p2 } = lens;
  const r2 = x * x + y * y;
  const [radial] = perspectiveRadial(lens, r2);
  return [x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x), y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y];
}

/**
 * Normalized distorted -> undistorted: the fisheye's angle by Newton's method on theta_d(theta)
 * (NaN where no ray of the valid field reaches: theta_d beyond the model's valid angle or a ray at
 * 90 degrees or more, which no pinhole images); the perspective models by Newton's method on
 * distortNormalized with the analytic Jacobian.
 */
export function undistortNormalized(lens: Lens, xd: number, yd: number): [number, number] {
  if (lens.projection === 'fisheye') {
    const rd = Math.hypot(xd, yd);
    if (rd < 1e-15) return [xd, yd];
    const thetaMax = validAngle(lens);
    if (rd > thetaMax * fisheyeFactor(lens, thetaMax)) return [NaN, NaN];
    let theta = Math.min(rd, thetaMax);
    for (let iter = 0; iter < 100; iter++) {
      const step = (theta * fisheyeFactor(lens, theta) - rd) / fisheyeSlope(lens, theta);
      theta = Math.min(Math.max(theta - step, 0), thetaMax);
      if (Math.abs(step) < 1e-16) break;
    }
    if (!(theta < Math.PI / 2)) return [NaN, NaN];
    const scale = Math.tan(theta) / rd;
    return [xd * scale, yd * scale];
  }
  const { p1, p2 } = lens;
  let x = xd;
  let y = yd;
  for (let iter = 0; iter < 50; iter++) {
    const r2 = x * x + y * y;
    const [radial, dRadial] = perspectiveRadial(lens, r2); // dRadial = dR / d(r2)
    const [fx, fy] = distortNormalized(lens, x, y);
    const ex = fx - xd;
    const ey = fy - yd;
    const a = radial + 2 * x * x * dRadial + 2 * p1 * y + 6 * p2 * x; // dxd/dx
    const b = 2 * x * y * dRadial + 2 * p1 * x + 2 * p2 * y; // dxd/dy = dyd/dx
    const d = radial + 2 * y * y * dRadial + 6 * p1 * y + 2 * p2 * x; // dyd/dy
    const det = a * d - b * b;
    if (!(Math.abs(det) > 1e-12)) break;
    const sx = (d * ex - b * ey) / det;
    const sy = (a * ey - b * ex) / det;
    x -= sx;
    y -= sy;
    if (Math.abs(sx) + Math.abs(sy) < 1e-15) break;
  }
  return [x, y];
}

/** A pixel of the distorted image -> the same ray's pixel in a pinhole of the lens's own intrinsics. */
export function undistortPixel(lens: Lens, u: number, v: number): [number, number] {
  const [x, y] = undistortNormalized(lens, (u - lens.cx) / lens.fx, (v - lens.cy) / lens.fy);
  return [x * lens.fx + lens.cx, y * lens.fy + lens.cy];
}

/** A pixel of a pinhole of the lens's own intrinsics -> where that ray lands in the distorted image. */
export function distortPixel(lens: Lens, u: number, v: number): [number, number] {
  const [x, y] = distortNormalized(lens, (u - lens.cx) / lens.fx, (v - lens.cy) / lens.fy);
  return [x * lens.fx + lens.cx, y * lens.fy + lens.cy];
}

/** Steps of the scan for the fold; fine enough that a fold is found within 0.03 degrees (fisheye). */
const FOLD_SCAN_STEPS = 4096;
/** Largest undistorted radius the perspective scan looks at (tan 87 degrees: no pinhole goes wider). */
const PERSPECTIVE_SCAN_RADIUS = 20;

/**
 * The scan for a fold over (0, limit] in FOLD_SCAN_STEPS even steps: the last scanned point before
 * `increasing` first fails (the radial map stopped increasing there), undefined when it never does.
 */
function lastIncreasing(limit: number, increasing: (at: number) => boolean): number | undefined {
  for (let i = 1; i <= FOLD_SCAN_STEPS; i++) {
    if (!increasing((i / FOLD_SCAN_STEPS) * limit)) return ((i - 1) / FOLD_SCAN_STEPS) * limit;
  }
  return undefined;
}

const validAngles = new WeakMap<Lens, number>();

/** Fisheye: the largest angle up to which theta_d(theta) increases, at most 90 degrees. */
export function validAngle(lens: Lens): number {
  let cached = validAngles.get(lens);
  if (cached === undefined) {
    cached = lastIncreasing(Math.PI / 2, (theta) => fisheyeSlope(lens, theta) > 0) ?? Math.PI / 2;
    validAngles.set(lens, cached);
  }
  return cached;
}

/**
 * The undistorted (pinhole) normalized radius up to which the lens is one-to-one: where the radial
 * map r -> r R(r^2) (perspective; also where R's denominator reaches 0) or theta_d(theta)
 * (fisheye) stops increasing. Infinity when it never does within the scanned range.
 */
export function validRadius(lens: Lens): number {
  if (lens.projection === 'fisheye') {
    const theta = validAngle(lens);
    return theta >= Math.PI / 2 ? Infinity : Math.tan(theta);
  }
  if (RADIAL_TERMS.every((term) => lens[term] === 0)) return Infinity; // R = 1: nothing folds
  const increasing = (r: number): boolean => {
    const [radial, dRadial] = perspectiveRadial(lens, r * r);
    return radial + 2 * r * r * dRadial > 0 && radial > 0; // d(r R(r^2))/dr = R + 2 r^2 R'
  };
  return lastIncreasing(PERSPECTIVE_SCAN_RADIUS, increasing) ?? Infinity;
}

/** Distorted normalized radius of the valid field's edge (Infinity when the lens never folds). */
export function validDistortedRadius(lens: Lens): number {
  const r = validRadius(lens);
  if (!Number.isFinite(r)) return Infinity;
  const [xd, yd] = distortNormalized(lens, r, 0);
  return Math.hypot(xd, yd);
}
