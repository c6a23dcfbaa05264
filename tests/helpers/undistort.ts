/**
 * One image through a lens to a pinhole in one call, for tests. The product never needs it: a
 * view's colour, mask and alpha go through one map (view-image.ts builds it once with
 * undistortionMap and applies it to each), so this lives with the tests that check the map on
 * single pictures.
 */
import type { FloatImage } from '../../main/engine/formats/image-ops.js';
import { applyUndistortion, undistortionMap, type PinholeIntrinsics } from '../../main/engine/dataset/distortion.js';
import type { Lens } from '../../main/engine/dataset/lens.js';

export interface UndistortedImage {
  image: FloatImage;
  /** 1 where the output pixel's ray is inside the photo and the lens's valid field, else 0. */
  valid: Uint8Array;
  /** Count of the zeros in `valid`. */
  invalidPixels: number;
}

/** undistortionMap then applyUndistortion (default pinhole: the lens's own intrinsics). */
export function undistortImage(image: FloatImage, lens: Lens, pinhole: PinholeIntrinsics = lens): UndistortedImage {
  const map = undistortionMap(lens, image.width, image.height, pinhole);
  return { image: applyUndistortion(map, image), valid: map.valid, invalidPixels: map.invalidPixels };
}
