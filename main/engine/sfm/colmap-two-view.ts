/**
 * Rows of COLMAP 3.8's `two_view_geometries` table: what its matchers write after geometric
 * verification and what its `mapper` reads (src/base/database.cc, WriteTwoViewGeometry):
 *   pair_id  image_id1 * 2147483647 + image_id2, image_id1 < image_id2
 *   rows, cols, data  the inlier matches, uint32 rows x 2 (keypoint in image_id1, in image_id2)
 *   config   TwoViewConfiguration's code (verify/verify-options.ts)
 *   F, E, H  float64 3 x 3, row-major (COLMAP transposes its column-major Eigen matrices)
 *   qvec     float64 x 4 (w, x, y, z), tvec float64 x 3: X2 = R X1 + t
 * A row with inliers has all five blobs, zeros for what was not estimated (E without a prior
 * focal length, the pose without compute_relative_pose: COLMAP's matcher default); a row without
 * inliers has none of them (NULL, as sqlite3_bind_blob of an empty Eigen matrix gives).
 * A geometry given for (image2, image1) is stored inverted, as TwoViewGeometry::Invert does:
 * F and E transposed, H inverted, the pose inverted, the match columns swapped.
 */
import { wxyzFromMatrix } from '../../../shared/math/quaternion.js';
import { inverse3, transpose3, type Mat3, type Vec3 } from './verify/dense.js';

export interface DatabaseTwoViewGeometry {
  /** 1-based image ids, different. */
  image1: number;
  image2: number;
  /** COLMAP's configuration code (TwoViewConfiguration). */
  config: number;
  /** [i0, j0, i1, j1, ...]: keypoint i of image1 with keypoint j of image2. */
  inlierMatches: Uint32Array;
  /** x2^T F x1 = 0 in pixels (x1 in image1). */
  fundamental?: Mat3;
  /** x2^T E x1 = 0 on normalised coordinates. */
  essential?: Mat3;
  /** x2 ~ H x1 in pixels. */
  homography?: Mat3;
  /** X2 = R X1 + t (row-major R). */
  rotation?: Mat3;
  translation?: Vec3;
}

const ZERO3 = new Float64Array(9);

/** The row COLMAP would store: image1 < image2 (inverted where given the other way round). */
export function canonicalTwoView(g: DatabaseTwoViewGeometry): DatabaseTwoViewGeometry {
  if (g.image1 < g.image2) return g;
  const swapped = new Uint32Array(g.inlierMatches.length);
  for (let k = 0; k < swapped.length; k += 2) [swapped[k], swapped[k + 1]] = [g.inlierMatches[k + 1], g.inlierMatches[k]];
  const inverted: DatabaseTwoViewGeometry = { image1: g.image2, image2: g.image1, config: g.config, inlierMatches: swapped };
  if (g.fundamental) inverted.fundamental = transpose3(g.fundamental);
  if (g.essential) inverted.essential = transpose3(g.essential);
  // a singular H is no model: COLMAP's inverse would be inf/nan, zeros say the same without them
  if (g.homography) inverted.homography = inverse3(g.homography) ?? new Float64Array(9);
  if (g.rotation && g.translation) {
    // X1 = R^T X2 - R^T t
    const rt = transpose3(g.rotation);
    const t = g.translation;
    inverted.rotation = rt;
    inverted.translation = [0, 1, 2].map((r) => -(rt[3 * r] * t[0] + rt[3 * r + 1] * t[1] + rt[3 * r + 2] * t[2])) as Vec3;
  }
  return inverted;
}

/** COLMAP's (qw, qx, qy, qz) of a row-major 3 x 3 rotation. */
export function quaternionOf(rotation: Mat3): [number, number, number, number] {
  return wxyzFromMatrix(rotation);
}

export interface TwoViewBlobs {
  rows: number;
  data: Uint8Array | null;
  F: Uint8Array | null;
  E: Uint8Array | null;
  H: Uint8Array | null;
  qvec: Uint8Array | null;
  tvec: Uint8Array | null;
}

const bytes = (values: ArrayLike<number>): Uint8Array => new Uint8Array(Float64Array.from(values).buffer);

/** The row's columns, for a geometry already canonical (image1 < image2). */
export function twoViewBlobs(g: DatabaseTwoViewGeometry): TwoViewBlobs {
  const rows = g.inlierMatches.length / 2;
  if (rows === 0) return { rows, data: null, F: null, E: null, H: null, qvec: null, tvec: null };
  const pose = g.rotation && g.translation;
  return {
    rows,
    data: new Uint8Array(g.inlierMatches.buffer, g.inlierMatches.byteOffset, g.inlierMatches.byteLength),
    F: bytes(g.fundamental ?? ZERO3),
    E: bytes(g.essential ?? ZERO3),
    H: bytes(g.homography ?? ZERO3),
    // COLMAP's matcher leaves both at zero (not the identity) when it computes no pose
    qvec: bytes(pose ? quaternionOf(g.rotation!) : [0, 0, 0, 0]),
    tvec: bytes(pose ? g.translation! : [0, 0, 0]),
  };
}

/** A float64 blob of `count` values (zeros where absent, as COLMAP's ReadStaticMatrixBlob), or an error naming the column. */
export function float64Blob(blob: Uint8Array | null | undefined, count: number, where: string): Float64Array {
  if (!blob || blob.length === 0) return new Float64Array(count);
  if (blob.length !== 8 * count) throw new Error(`${where}: ${blob.length} bytes, expected ${8 * count} (${count} float64)`);
  return new Float64Array(Uint8Array.from(blob).buffer);
}
