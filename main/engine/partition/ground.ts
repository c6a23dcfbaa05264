/**
 * The ground frame a partition splits in (shared/project/partition.ts): `up` the normal of a
 * robust plane fit to the SfM points (turned to the cameras' side), or the cameras' mean up where
 * the points are not flat enough to say (an object scanned from all around); `axisU`/`axisV` the
 * principal axes of the footprint of the cameras and points on that plane, so a long street splits
 * along its length. All in float64.
 */
import type { GroundFrame } from '../../../shared/project/partition.js';
import type { PinholeCamera } from '../../../shared/scene/camera.js';

export type Vec3 = [number, number, number];

export const dot3 = (a: readonly number[], b: readonly number[]): number => a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]!;
export const sub3 = (a: readonly number[], b: readonly number[]): Vec3 => [a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!];
export const scale3 = (a: readonly number[], s: number): Vec3 => [a[0]! * s, a[1]! * s, a[2]! * s];
export const cross3 = (a: readonly number[], b: readonly number[]): Vec3 => [a[1]! * b[2]! - a[2]! * b[1]!, a[2]! * b[0]! - a[0]! * b[2]!, a[0]! * b[1]! - a[1]! * b[0]!];
export function normalise(a: readonly number[]): Vec3 {
  const l = Math.hypot(a[0]!, a[1]!, a[2]!);
  return [a[0]! / l, a[1]! / l, a[2]! / l];
}

/** A camera's centre (-R^T t) in world units. */
export function cameraCentre(c: PinholeCamera): Vec3 {
  const m = c.worldToCamera;
  return [0, 1, 2].map((i) => -(m[i]! * m[3]! + m[4 + i]! * m[7]! + m[8 + i]! * m[11]!)) as Vec3;
}

/** A camera's viewing direction (its +z axis, OpenCV) in world axes. */
export function cameraForward(c: PinholeCamera): Vec3 {
  const m = c.worldToCamera;
  return [m[8]!, m[9]!, m[10]!];
}

/** A camera's up (its -y axis, OpenCV: y points down the image) in world axes. */
export function cameraUp(c: PinholeCamera): Vec3 {
  const m = c.worldToCamera;
  return [-m[4]!, -m[5]!, -m[6]!];
}

/** Eigenvalues (ascending) and unit eigenvectors of a symmetric 3x3 (row-major), by cyclic Jacobi rotations. */
export function symmetricEigen3(matrix: readonly number[]): { values: Vec3; vectors: [Vec3, Vec3, Vec3] } {
  const a = [...matrix];
  const v = [1, 0, 0, 0, 1, 0, 0, 0, 1];
  for (let sweep = 0; sweep < 50; sweep++) {
    const off = Math.abs(a[1]!) + Math.abs(a[2]!) + Math.abs(a[5]!);
    if (off < 1e-300 || off < 1e-15 * (Math.abs(a[0]!) + Math.abs(a[4]!) + Math.abs(a[8]!))) break;
    for (const [p, q] of [[0, 1], [0, 2], [1, 2]] as const) {
      const apq = a[p * 3 + q]!;
      if (apq === 0) continue;
      const theta = (a[q * 3 + q]! - a[p * 3 + p]!) / (2 * apq);
      const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
      const c = 1 / Math.sqrt(t * t + 1);
      const s = t * c;
      for (let k = 0; k < 3; k++) {
        const akp = a[k * 3 + p]!;
        const akq = a[k * 3 + q]!;
        a[k * 3 + p] = c * akp - s * akq;
        a[k * 3 + q] = s * akp + c * akq;
      }
      for (let k = 0; k < 3; k++) {
        const apk = a[p * 3 + k]!;
        const aqk = a[q * 3 + k]!;
        a[p * 3 + k] = c * apk - s * aqk;
        a[q * 3 + k] = s * apk + c * aqk;
      }
      for (let k = 0; k < 3; k++) {
        const vkp = v[k * 3 + p]!;
        const vkq = v[k * 3 + q]!;
        v[k * 3 + p] = c * vkp - s * vkq;
        v[k * 3 + q] = s * vkp + c * vkq;
      }
    }
  }
  const order = [0, 1, 2].sort((i, j) => a[i * 3 + i]! - a[j * 3 + j]!);
  const values = order.map((i) => a[i * 3 + i]!) as Vec3;
  const vectors = order.map((i) => normalise([v[i]!, v[3 + i]!, v[6 + i]!])) as [Vec3, Vec3, Vec3];
  return { values, vectors };
}

function meanAndCovariance(points: readonly Vec3[]): { mean: Vec3; covariance: number[] } {
  const mean: Vec3 = [0, 0, 0];
  for (const p of points) for (let a = 0; a < 3; a++) mean[a]! += p[a]! / points.length;
  const covariance = new Array<number>(9).fill(0);
  for (const p of points) {
    const d = sub3(p, mean);
    for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) covariance[i * 3 + j]! += (d[i]! * d[j]!) / points.length;
  }
  return { mean, covariance };
}

/**
 * Plane fit by PCA, refit on the 70% of points nearest the plane three times (trims the walls,
 * trees and outliers that tilt a plain least-squares fit). Returns the normal, a point on the plane
 * and how flat the inliers are (smallest over middle eigenvalue: 0 for a perfect plane).
 */
export function robustPlane(points: readonly Vec3[]): { normal: Vec3; centroid: Vec3; flatness: number } {
  let inliers = points;
  let fit = meanAndCovariance(inliers);
  let eig = symmetricEigen3(fit.covariance);
  for (let round = 0; round < 3 && points.length >= 10; round++) {
    const normal = eig.vectors[0];
    const centroid = fit.mean;
    const ranked = points.map((p) => ({ p, d: Math.abs(dot3(sub3(p, centroid), normal)) })).sort((x, y) => x.d - y.d);
    inliers = ranked.slice(0, Math.max(3, Math.ceil(points.length * 0.7))).map((r) => r.p);
    fit = meanAndCovariance(inliers);
    eig = symmetricEigen3(fit.covariance);
  }
  const flatness = eig.values[1] > 0 ? Math.max(0, eig.values[0]) / eig.values[1] : 1;
  return { normal: eig.vectors[0], centroid: fit.mean, flatness };
}

/** A plane is trusted as the ground when its thinnest spread is under this fraction of the next. */
const FLAT_ENOUGH = 0.2;
/** The cameras agree on an up when their mean up vector is at least this long (1: all parallel). */
const CAMERAS_AGREE = 0.5;
/**
 * Where the cameras agree on an up, a flat plane is the ground only within 25 degrees of it (the
 * trimmed fit of an object's faces can settle on a slanted plane through them).
 */
const PLANE_AGREES = Math.cos((25 * Math.PI) / 180);
/** At most this many points go into the fits (a stride sample of larger clouds). */
const FIT_SAMPLE = 20_000;

function strideSample<T>(items: readonly T[], count: number): T[] {
  if (items.length <= count) return [...items];
  const step = items.length / count;
  return Array.from({ length: count }, (_, i) => items[Math.floor(i * step)]!);
}

/**
 * The ground frame of a scene from its cameras and points (xyz triples). Up: the robust plane's
 * normal when the points are flat enough (FLAT_ENOUGH) and, where the cameras agree on an up, it
 * is within 25 degrees of theirs (PLANE_AGREES); else the cameras' mean up when they agree on one; else the plane's
 * normal. Turned to the side the cameras are on. Origin: the plane's centroid (the cameras' mean
 * centre without points). axisU: the footprint's major axis.
 */
export function groundFrame(cameras: readonly PinholeCamera[], points: ArrayLike<number>): GroundFrame {
  const pointList: Vec3[] = [];
  for (let i = 0; i + 2 < points.length; i += 3) pointList.push([points[i]!, points[i + 1]!, points[i + 2]!]);
  const centres = cameras.map(cameraCentre);
  const meanUp = cameras.reduce<Vec3>((s, c) => {
    const u = cameraUp(c);
    return [s[0] + u[0] / cameras.length, s[1] + u[1] / cameras.length, s[2] + u[2] / cameras.length];
  }, [0, 0, 0]);
  const upAgreement = Math.hypot(...meanUp);
  const sample = strideSample(pointList, FIT_SAMPLE);
  const fitTo = sample.length >= 3 ? sample : centres;
  const plane = robustPlane(fitTo);
  let up: Vec3;
  const cameraUpUnit = upAgreement > 1e-9 ? normalise(meanUp) : undefined;
  const planeTrusted = fitTo === sample && plane.flatness < FLAT_ENOUGH && (!cameraUpUnit || upAgreement < CAMERAS_AGREE || Math.abs(dot3(plane.normal, cameraUpUnit)) > PLANE_AGREES);
  if (planeTrusted || !cameraUpUnit || upAgreement < CAMERAS_AGREE) up = plane.normal;
  else up = cameraUpUnit;
  // up points to where the cameras are (above the ground), else along the cameras' up
  const meanCentre = centres.reduce<Vec3>((s, c) => [s[0] + c[0] / centres.length, s[1] + c[1] / centres.length, s[2] + c[2] / centres.length], [0, 0, 0]);
  const side = centres.length ? dot3(sub3(meanCentre, plane.centroid), up) : 0;
  if (side < 0 || (side === 0 && cameraUpUnit && dot3(up, cameraUpUnit) < 0)) up = scale3(up, -1);
  const origin = sample.length >= 3 ? plane.centroid : meanCentre;
  // footprint: cameras and points projected on the plane, PCA in it
  const footprint = [...sample, ...strideSample(centres, FIT_SAMPLE)].map((p) => {
    const d = sub3(p, origin);
    return sub3(d, scale3(up, dot3(d, up)));
  });
  const { covariance } = meanAndCovariance(footprint.length ? footprint : [[0, 0, 0]]);
  const major = symmetricEigen3(covariance).vectors[2];
  let axisU = sub3(major, scale3(up, dot3(major, up)));
  if (!(Math.hypot(...axisU) > 1e-9)) {
    // a round footprint, or none: any direction in the plane
    const helper: Vec3 = Math.abs(up[0]) < 0.9 ? [1, 0, 0] : [0, 1, 0];
    axisU = cross3(up, helper);
  }
  axisU = normalise(axisU);
  // a deterministic sign: axisU's largest component positive
  const largest = [0, 1, 2].reduce((b, i) => (Math.abs(axisU[i]!) > Math.abs(axisU[b]!) ? i : b), 0);
  if (axisU[largest]! < 0) axisU = scale3(axisU, -1);
  const axisV = normalise(cross3(up, axisU));
  return { origin, axisU, axisV, up };
}

/** A world point's (u, v, h) in a ground frame. */
export function toGround(frame: GroundFrame, p: readonly number[]): Vec3 {
  const d = sub3(p, frame.origin);
  return [dot3(d, frame.axisU), dot3(d, frame.axisV), dot3(d, frame.up)];
}

/** The world point at ground coordinates (u, v, h). */
export function fromGround(frame: GroundFrame, u: number, v: number, h: number): Vec3 {
  return [0, 1, 2].map((a) => frame.origin[a]! + u * frame.axisU[a]! + v * frame.axisV[a]! + h * frame.up[a]!) as Vec3;
}
