/**
 * Float64 CPU reference of the differentiable 3DGS rasterizer (gsplat 1.5 conventions, with the
 * opacity-aware extent): the ground truth every WGSL raster kernel is tested against. Test code
 * only; written for clarity first, fast enough for a few thousand splats on small images.
 *
 *   rasterizeForward  = projectSplats (projection.ts) + compositeImage (composite.ts)
 *   rasterizeBackward = compositeBackward (composite-backward.ts) + projectionBackward
 *                       (projection-backward.ts)
 *
 * The stages are exported too, so a kernel of one stage can be compared on its own.
 */
import type { PinholeCamera } from '../../shared/scene/camera.js';
import { compositeBackward } from './composite-backward.js';
import {
  compositeImage,
  hashStep,
  type CompositeGradients,
  type CompositeInput,
  type CompositeOutputGradients,
  type CompositeResult,
} from './composite.js';
import { projectionBackward } from './projection-backward.js';
import { projectSplats, type ParameterGradients, type ProjectedSplats, type ProjectionOptions, type SplatParams } from './projection.js';

export const DEFAULT_NEAR = 0.01;
export const DEFAULT_EPS2D = 0.3;

export interface RasterizeOptions {
  /** Mip-Splatting 2D filter: opacity scaled by sqrt(det(cov2d) / det(cov2d + eps2d I)). */
  antialiased: boolean;
  /** Default 0.01. */
  near?: number;
  /** Default 0.3. */
  eps2d?: number;
  medianDepth?: boolean;
  splatWeights?: boolean;
  normals?: boolean;
  distortion?: boolean;
}

export interface RasterizeInput {
  splats: SplatParams;
  /** SH degree to evaluate, <= splats.shDegree; higher coefficients are ignored. */
  shDegree: number;
  camera: PinholeCamera;
  /** RGB. */
  background: readonly number[];
  options: RasterizeOptions;
}

export interface RasterizeResult extends CompositeResult {
  projected: ProjectedSplats;
}

export interface RasterizeGradients extends ParameterGradients {
  /** dL/dmean2d summed over pixels, 2 per splat. */
  mean2d: Float64Array;
  /** gsplat absgrad: sum over pixels of |per-pixel dL/dmean2d|, per component. */
  absMean2d: Float64Array;
  /** Gradients at the boundary between the two stages. */
  projected: CompositeGradients;
}

export type RasterizeOutputGradients = CompositeOutputGradients;

export function projectionOptions(options: RasterizeOptions): ProjectionOptions {
  return { antialiased: options.antialiased, near: options.near ?? DEFAULT_NEAR, eps2d: options.eps2d ?? DEFAULT_EPS2D };
}

export function compositeInput(projected: ProjectedSplats, camera: PinholeCamera, background: readonly number[]): CompositeInput {
  if (background.length !== 3) throw new Error(`reference: background must have 3 channels, got ${background.length}`);
  return { ...projected, width: camera.width, height: camera.height, background };
}

export function rasterizeForward(input: RasterizeInput): RasterizeResult {
  const { options } = input;
  const projected = projectSplats(input.splats, input.shDegree, input.camera, projectionOptions(options));
  const composite = compositeImage(compositeInput(projected, input.camera, input.background), options);
  let h = composite.branchSignature;
  for (let i = 0; i < projected.count; i++) h = hashStep(h, (projected.visible[i] << 8) | projected.flags[i]);
  return { ...composite, branchSignature: h, projected };
}

/** `cameraGrad` (12 numbers, zeroed by the caller): also sum dL/d(camera) (projection-backward.ts). */
export function rasterizeBackward(input: RasterizeInput, grads: RasterizeOutputGradients, cameraGrad?: Float64Array): RasterizeGradients {
  const projOptions = projectionOptions(input.options);
  const projected = projectSplats(input.splats, input.shDegree, input.camera, projOptions);
  const compositeGrads = compositeBackward(compositeInput(projected, input.camera, input.background), grads);
  const params = projectionBackward(input.splats, input.shDegree, input.camera, projOptions, compositeGrads, cameraGrad);
  return { ...params, mean2d: compositeGrads.mean2d, absMean2d: compositeGrads.absMean2d, projected: compositeGrads };
}

export type { CompositeGradients, CompositeOutputGradients, CompositeResult, ParameterGradients, ProjectedSplats, SplatParams };
