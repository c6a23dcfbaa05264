/**
 * Which images share a camera (issue 16 item 4), one rule for the database capture writes and the
 * cameras our mapper takes: a video clip is one camera (per frame size); in a photo folder the
 * photos of the same size and the same EXIF (focal, camera make and model, each where present)
 * share one, so a set from one camera at one zoom is one camera for COLMAP's mapper and ours (its
 * focal refined once, from every photo), and photos without EXIF of one size share COLMAP's guess.
 * COLMAP's feature_extractor makes one camera per photo unless told single_camera; this is its
 * single_camera_per_folder made finer by size and EXIF.
 */
import { COLMAP_CAMERA_MODELS, type DatabaseCamera } from '../sfm/colmap-database.js';
import type { PinholeIntrinsics } from '../sfm/verify/verify-options.js';
import type { ExifCamera } from './exif-focal.js';

export interface CameraGroupMember {
  width: number;
  height: number;
  /** A photo's EXIF; absent for a video frame. */
  exif?: ExifCamera;
}

/** The key images of one group share; a clip's frames (no exif) share one per size. */
export function cameraGroupKey(member: CameraGroupMember): string {
  const { width, height, exif } = member;
  if (!exif) return `${width}x${height}`;
  return JSON.stringify([width, height, exif.focal?.focal ?? null, exif.make, exif.model]);
}

/** A database camera's pinhole part (distortion terms are zero in every camera capture writes). */
export function pinholeOf(camera: Required<DatabaseCamera>): PinholeIntrinsics {
  const names: readonly string[] = COLMAP_CAMERA_MODELS[camera.model].params;
  const value = (name: string) => camera.params[names.indexOf(name)];
  const single = names.includes('f');
  return { focalX: value(single ? 'f' : 'fx'), focalY: value(single ? 'f' : 'fy'), principalX: value('cx'), principalY: value('cy') };
}
