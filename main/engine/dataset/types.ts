/**
 * The shapes of a loaded dataset, in a module of their own: dataset.ts produces them from what
 * the format modules read, and those modules (and view-image.ts) name them without importing
 * the loader that imports them.
 */
import type { PinholeCamera } from '../../../shared/scene/camera.js';

export type Rgb = [number, number, number];

export interface Distortion {
  /** COLMAP model name: one of lens.ts's LENS_MODELS. */
  model: string;
  /** COLMAP parameter order for that model, in pixels of the original image (focal, principal point, coefficients). */
  params: number[];
  /** Size of the original image, which the fisheye's pinhole is chosen for (distortion.ts). */
  width: number;
  height: number;
}

export interface DatasetView {
  name: string;
  imagePath: string;
  /** After undistortion and downscale. */
  camera: PinholeCamera;
  split: 'train' | 'test';
  /** The original lens model, when the image must be undistorted before use. */
  distortion?: Distortion;
  /** The view's mask file (same size as the photo; 0 = ignore the pixel), when the dataset has masks. */
  maskPath?: string;
}

export type DatasetFormat = 'colmap' | 'transforms' | 'nerf-synthetic';

export interface Dataset {
  root: string;
  format: DatasetFormat;
  views: DatasetView[];
  /** SfM points, if the dataset has any: xyz float triples and 8-bit RGB triples. */
  points?: { positions: Float32Array; colors: Uint8Array };
  /** 1.1 x the largest distance of a training camera from their centroid (3DGS getNerfppNorm). */
  sceneScale: number;
  /** Colour transparent pixels are composited over (white by default for NeRF-synthetic). */
  background?: Rgb;
}
