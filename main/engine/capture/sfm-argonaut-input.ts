/**
 * Our mapper's input, read back from the database our front end wrote (sfm-stages.ts): every
 * image's keypoints, the verified pairs as verification gave them (two_view_geometries: inliers,
 * configuration, F / E / H and the relative pose where it has one), and the cameras as
 * extraction made them (one per clip, one per photo or intrinsics group), so a resumed capture
 * maps exactly what a fresh one would.
 */
import { ArgonautError } from '../../../shared/rpc/errors.js';
import { worldToCameraFromQuaternion } from '../dataset/pose.js';
import { readColmapDatabase, type ReadColmapDatabase } from '../sfm/colmap-database.js';
import { pinholeOf } from './camera-groups.js';
import type { GlobalMappingInput } from '../sfm/global/global-mapper.js';
import type { Mat3, Vec3 } from '../sfm/verify/dense.js';
import type { TwoViewConfiguration } from '../sfm/verify/verify-options.js';
import type { VerifiedPair } from '../sfm/verify/verify-pairs.js';

export type DatabaseCameraRow = ReadColmapDatabase['cameras'][number];

export interface ArgonautMappingInput extends GlobalMappingInput {
  /** Per image (capture order): its name under images/ and its database id. */
  names: string[];
  imageIds: number[];
  /** The database's cameras, and per image the index of its own among them. */
  databaseCameras: DatabaseCameraRow[];
  imageCamera: number[];
}

/** COLMAP's (qw, qx, qy, qz) as a row-major 3 x 3 (the rotation block of pose.ts's 4 x 4). */
function rotationOfQuaternion(q: Float64Array): Mat3 {
  const m = worldToCameraFromQuaternion(Array.from(q), [0, 0, 0]);
  return Float64Array.from([m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]]);
}

const isZero = (values: ArrayLike<number>) => Array.prototype.every.call(values, (v: number) => v === 0);

/** A two_view_geometries row as verification's VerifiedPair (image indices = capture order; the inliers are the whole stored list). */
function verifiedPairOf(row: ReadColmapDatabase['twoViewGeometries'][number], index: (id: number) => number): VerifiedPair {
  const count = row.inlierMatches.length / 2;
  // qvec zero: no relative pose was estimated (F or H only); tvec zero: a pure rotation
  const rotation = isZero(row.qvec) ? undefined : rotationOfQuaternion(row.qvec);
  const translation = rotation && !isZero(row.tvec) ? (Array.from(row.tvec) as Vec3) : undefined;
  return {
    pair: [index(row.image1), index(row.image2)],
    geometry: {
      configuration: row.config as TwoViewConfiguration,
      inliers: Uint32Array.from({ length: count }, (_, k) => k),
      fundamental: row.fundamental,
      essential: row.essential,
      homography: row.homography,
      ...(rotation ? { rotation } : {}),
      ...(translation ? { translation } : {}),
      // database.db keeps no per-model inlier counts; nothing in the mapper reads them (the view
      // graph counts H's inliers itself)
      inlierCounts: { essential: 0, fundamental: 0, homography: 0 },
    },
    inlierMatches: row.inlierMatches,
  };
}

export function mappingInputOf(content: ReadColmapDatabase, file: string): ArgonautMappingInput {
  const indexOfId = new Map(content.images.map((im, k) => [im.id, k]));
  const cameraIndex = new Map(content.cameras.map((c, k) => [c.id, k]));
  const index = (id: number) => {
    const k = indexOfId.get(id);
    if (k === undefined) throw new ArgonautError('bad_input', `${file}: a verified pair names image ${id}, which the database does not hold`, { file });
    return k;
  };
  const imageCamera = content.images.map((im) => {
    const k = cameraIndex.get(im.cameraId);
    if (k === undefined) throw new ArgonautError('bad_input', `${file}: image ${im.name} names camera ${im.cameraId}, which the database does not hold`, { file });
    return k;
  });
  const pinholes = content.cameras.map(pinholeOf);
  return {
    imageCount: content.images.length,
    verified: content.twoViewGeometries.filter((g) => g.inlierMatches.length > 0).map((g) => verifiedPairOf(g, index)),
    keypoints: content.images.map((im) => im.keypoints),
    // a shared camera is the same object repeated (what globalMapping expects)
    cameras: imageCamera.map((k) => pinholes[k]),
    names: content.images.map((im) => im.name),
    imageIds: content.images.map((im) => im.id),
    databaseCameras: content.cameras,
    imageCamera,
  };
}

export async function readMappingInput(database: string): Promise<ArgonautMappingInput> {
  return mappingInputOf(await readColmapDatabase(database), database);
}
