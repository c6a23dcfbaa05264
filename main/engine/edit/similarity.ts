/**
 * Similarities x' = s R x + t on splats: positions move, orientations turn, log-scales add log s,
 * and the view-dependent colour (SH degrees 1-3) turns with the scene (sh-rotation.ts). The edit
 * list's quaternions are (x, y, z, w) (shared/edits/edit-list.ts); the splats' are (w, x, y, z)
 * (shared/scene/splats.ts). Everything is composed and applied in float64.
 */
import type { Similarity } from '../../../shared/edits/edit-list.js';
import type { SplatSet } from '../../../shared/scene/splats.js';
import { wxyzMultiply, wxyzToMatrix } from '../../../shared/math/quaternion.js';
import { rotateShInPlace, shRotationMatrices } from './sh-rotation.js';

/** A similarity in float64: rotation as a unit quaternion (w, x, y, z) and as a row-major matrix. */
export interface Similarity64 {
  /** (w, x, y, z), unit. */
  quat: [number, number, number, number];
  matrix: Float64Array;
  scale: number;
  translation: [number, number, number];
}

/** A unit (w, x, y, z) quaternion from the edit list's (x, y, z, w). */
export function editQuat([x, y, z, w]: readonly number[]): [number, number, number, number] {
  const n = Math.hypot(x, y, z, w);
  return [w / n, x / n, y / n, z / n];
}

export const IDENTITY: Similarity64 = { quat: [1, 0, 0, 0], matrix: Float64Array.from(wxyzToMatrix([1, 0, 0, 0])), scale: 1, translation: [0, 0, 0] };

export function similarity64(t: Similarity): Similarity64 {
  const quat = editQuat(t.rotation);
  return { quat, matrix: Float64Array.from(wxyzToMatrix(quat)), scale: t.scale, translation: [...t.translation] };
}

/** Back to the edit list's form (rotation as (x, y, z, w)). */
export function toSimilarity(t: Similarity64): Similarity {
  const [w, x, y, z] = t.quat;
  return { translation: [...t.translation], rotation: [x, y, z, w], scale: t.scale };
}

export function isIdentity(t: Similarity64): boolean {
  return t.scale === 1 && t.translation.every((v) => v === 0) && t.quat[0] === 1 && t.quat[1] === 0 && t.quat[2] === 0 && t.quat[3] === 0;
}

/** The point x mapped by t. */
export function applyToPoint(t: Similarity64, x: number, y: number, z: number): [number, number, number] {
  const m = t.matrix;
  const s = t.scale;
  return [
    s * (m[0] * x + m[1] * y + m[2] * z) + t.translation[0],
    s * (m[3] * x + m[4] * y + m[5] * z) + t.translation[1],
    s * (m[6] * x + m[7] * y + m[8] * z) + t.translation[2],
  ];
}

/** `second` after `first`: x -> s2 R2 (s1 R1 x + t1) + t2. */
export function compose(second: Similarity64, first: Similarity64): Similarity64 {
  const quat = wxyzMultiply(second.quat, first.quat);
  const n = Math.hypot(...quat);
  const unit: [number, number, number, number] = [quat[0] / n, quat[1] / n, quat[2] / n, quat[3] / n];
  const moved = applyToPoint(second, ...first.translation);
  return { quat: unit, matrix: Float64Array.from(wxyzToMatrix(unit)), scale: second.scale * first.scale, translation: moved };
}

/**
 * Applies t to every splat of `splats` in place (means, orientations, log-scales, SH). Written
 * out without temporaries: it runs over every kept splat of a scene of millions.
 */
export function transformSplatsInPlace(splats: SplatSet, t: Similarity64): void {
  const { count, means, quats, logScales } = splats;
  const logScale = Math.log(t.scale);
  const [m0, m1, m2, m3, m4, m5, m6, m7, m8] = t.matrix;
  const s = t.scale;
  const [tx, ty, tz] = t.translation;
  const [aw, ax, ay, az] = t.quat;
  for (let i = 0; i < count; i++) {
    const x = means[3 * i], y = means[3 * i + 1], z = means[3 * i + 2];
    means[3 * i] = s * (m0 * x + m1 * y + m2 * z) + tx;
    means[3 * i + 1] = s * (m3 * x + m4 * y + m5 * z) + ty;
    means[3 * i + 2] = s * (m6 * x + m7 * y + m8 * z) + tz;
    const bw = quats[4 * i], bx = quats[4 * i + 1], by = quats[4 * i + 2], bz = quats[4 * i + 3];
    quats[4 * i] = aw * bw - ax * bx - ay * by - az * bz;
    quats[4 * i + 1] = aw * bx + ax * bw + ay * bz - az * by;
    quats[4 * i + 2] = aw * by - ax * bz + ay * bw + az * bx;
    quats[4 * i + 3] = aw * bz + ax * by - ay * bx + az * bw;
    logScales[3 * i] += logScale;
    logScales[3 * i + 1] += logScale;
    logScales[3 * i + 2] += logScale;
  }
  if (splats.shDegree > 0) rotateShInPlace(splats.sh, count, splats.shDegree, shRotationMatrices(t.matrix, splats.shDegree));
}
