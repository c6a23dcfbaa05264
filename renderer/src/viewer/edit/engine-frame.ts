/**
 * Babylon helper transforms (the box and ellipsoid gizmos, the scene-transform gizmo) as the
 * edit list's engine-frame shapes (shared/edits/edit-list.ts: OrientedBox, Similarity).
 *
 * Helpers live in Babylon's world (gizmos under a reflected parent would drag the wrong way), so
 * each is mapped back through F = diag(1, -1, 1) (opencv-frame.ts): a point p_b is F p_b in the
 * engine, and a rotation R_b becomes F R_b F. For a unit quaternion (x, y, z, w) that conjugation
 * is (-x, y, -z, w): the axis reflected (x, -y, z) and, as a reflection reverses orientation, the
 * angle negated. Babylon's quaternion rotates coordinates as the usual (column-vector) matrix
 * does (its row-vector matrix is that matrix transposed), so the engine reads it as is.
 */
import type { OrientedBox, Similarity } from '../../../../shared/edits/edit-list.js';
import { quatRotate } from '../../../../shared/math/quaternion.js';
import { engineToBabylon, type Vec3 } from '../opencv-frame.js';

export type Quat = [number, number, number, number];

/** A Babylon-world rotation (x, y, z, w) as the same rotation seen in the engine's frame. */
export function babylonRotationToEngine(q: Readonly<Quat>): Quat {
  const length = Math.hypot(q[0], q[1], q[2], q[3]);
  if (!(length > 0)) throw new RangeError('rotation: a zero quaternion');
  return [-q[0] / length, q[1] / length, -q[2] / length, q[3] / length];
}

export interface BabylonTransform {
  position: Readonly<Vec3>;
  /** Unit quaternion (x, y, z, w). */
  rotation: Readonly<Quat>;
  /** Scaling of a unit helper (a box of size 1, a sphere of diameter 1): full extents. */
  scaling: Readonly<Vec3>;
}

/** A unit box or sphere helper as the oriented box (or ellipsoid) it stands for, in the engine's frame. */
export function helperToOrientedBox(helper: BabylonTransform): OrientedBox {
  const halfSize = helper.scaling.map((s) => Math.abs(s) / 2) as Vec3;
  if (!halfSize.every((h) => h > 0 && Number.isFinite(h))) throw new RangeError(`box: every side must be positive, got ${helper.scaling.join(', ')}`);
  return { centre: engineToBabylon(helper.position), halfSize, rotation: babylonRotationToEngine(helper.rotation) };
}

/**
 * What a gizmo on a node at Babylon point `pivot` did (moved by `position - pivot`, rotated by
 * `rotation` and scaled by `scaling[0]` about the pivot) as the engine's scene similarity
 * x' = s R x + t: with c the pivot and d the move in the engine's frame, t = c + d - s R c.
 */
export function gizmoToSimilarity(pivot: Readonly<Vec3>, helper: BabylonTransform): Similarity {
  const scale = helper.scaling[0];
  if (!(scale > 0) || !helper.scaling.every((s) => Math.abs(s - scale) <= 1e-6 * scale)) throw new RangeError(`transform: scaling must be uniform and positive, got ${helper.scaling.join(', ')}`);
  const rotation = babylonRotationToEngine(helper.rotation);
  const c = engineToBabylon(pivot);
  const moved = engineToBabylon(helper.position);
  const rc = quatRotate(rotation, c);
  return { translation: [0, 1, 2].map((a) => moved[a] - scale * rc[a]) as Vec3, rotation, scale };
}

/** The similarity applied to a point (tests, the ground-plane check). */
export function applySimilarity(t: Similarity, p: Readonly<Vec3>): Vec3 {
  const r = quatRotate(t.rotation as Quat, p);
  return [0, 1, 2].map((a) => t.scale * r[a] + t.translation[a]) as Vec3;
}
