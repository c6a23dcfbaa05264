import type { PinholeCamera } from '../../../shared/scene/camera.js';

/** One posed image as the trainer sees it. */
export interface TrainingView {
  name: string;
  camera: PinholeCamera;
  split: 'train' | 'test';
}

/**
 * What training needs from a dataset, whatever its source (COLMAP, transforms.json, the sample
 * scene): posed views, a way to get each view's pixels (RGB in [0,1], H*W*3, already composited
 * over `background` and undistorted), the scene's extent, and optional SfM points.
 */
export interface TrainingData {
  name: string;
  views: TrainingView[];
  background: [number, number, number];
  /** 1.1 x the largest distance of a camera centre from the centroid of the centres (3DGS). */
  sceneScale: number;
  /** The poses come from structure-from-motion (a capture), not from a renderer: camera refinement's 'auto' turns on. */
  posesEstimated?: boolean;
  points?: { positions: Float32Array; colors: Uint8Array };
  /** Box for random initialization when there are no points: [min xyz, max xyz]. */
  initBox?: [number, number, number, number, number, number];
  loadImage(index: number): Promise<Float32Array>;
  /**
   * The same pixels as 8-bit RGB (H*W*3 bytes) where the source has them: no float round trip. A
   * view with masked pixels gives RGB + mask (H*W*4; the 4th byte 0 where the loss ignores the pixel).
   */
  loadImageRgb8?(index: number): Promise<Uint8Array>;
  /**
   * Real photographs (COLMAP, transforms.json; captures from video and photos), whose exposure and
   * white balance vary per image: `--appearance auto` compensates them. Unset: synthetic renders.
   */
  photographed?: boolean;
}

/** 3DGS's getNerfppNorm: 1.1 x max distance of camera centres from their centroid. */
export function sceneScaleOf(cameras: readonly PinholeCamera[]): number {
  const centres = cameras.map((c) => {
    const m = c.worldToCamera;
    // centre = -R^T t
    return [0, 1, 2].map((i) => -(m[i] * m[3] + m[4 + i] * m[7] + m[8 + i] * m[11]));
  });
  const mean = [0, 1, 2].map((i) => centres.reduce((s, c) => s + c[i], 0) / Math.max(1, centres.length));
  const radius = Math.max(0, ...centres.map((c) => Math.hypot(c[0] - mean[0], c[1] - mean[1], c[2] - mean[2])));
  return 1.1 * (radius || 1);
}
