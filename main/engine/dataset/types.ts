/**
 * The shapes of a loaded dataset, in a module of their own: dataset.ts produces them from what
 * the format modules read, and those modules (and view-image.ts) name them without importing
 * the loader that imports them.
 */
import type { PinholeCamera } from '../../../shared/scene/camera.js';

export type Rgb = [number, number, number];

export interface Distortion {
  /** COLMAP model name: SIMPLE_RADIAL, RADIAL or OPENCV. */
  model: string;
  /** COLMAP parameter order for that model, in pixels of the original image (focal, principal point, coefficients). */
  params: number[];
}

export interface DatasetView {
  name: string;
  imagePath: string;
  /** After undistortion and downscale. */
  camera: PinholeCamera;
  split: 'train' | 'test';
  /** The original lens model, when the image must be undistorted before use. */
  distortion?: Distortion;
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
