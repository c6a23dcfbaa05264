/**
 * The bundle stage of our capture SfM (sfm-argonaut.ts): refineMapping (sfm/global/refine-mapping.ts,
 * GLOMAP's BA rounds with COLMAP's filters between them) from the mapper's result and the
 * database's cameras, refining poses, points, focal lengths and distortion (BA_DEFAULTS), with the
 * device's solver (sfm/bundle/solver-for.ts: the GPU one on a hardware adapter).
 */
import { ArgonautError } from '../../../shared/rpc/errors.js';
import type { GpuContext } from '../gpu/context.js';
import { BA_CAMERA_MODELS, type BaCameraModel } from '../sfm/bundle/camera-models.js';
import { bundleSolverFor } from '../sfm/bundle/solver-for.js';
import { refineMapping } from '../sfm/global/refine-mapping.js';
import type { RefineMapping } from './sfm-argonaut-model.js';

/** The refinement's name in the capture's resume state: a change to it runs the bundle stage again. */
export const BUNDLE_REFINEMENT = 'bundle-adjustment-v1';

const isBaModel = (model: string): model is BaCameraModel => (BA_CAMERA_MODELS as readonly string[]).includes(model);

/** Refuses, by name, a camera model our bundle adjustment does not refine (capture checks it before any work). */
export function checkArgonautCameraModel(model: string): void {
  if (!isBaModel(model)) throw new ArgonautError('invalid_argument', `camera model ${model}: our SfM's bundle adjustment refines ${BA_CAMERA_MODELS.join(', ')} (choose one with --camera-model, or map with --sfm colmap)`);
}

/** Bundle adjustment as the capture's refinement, on `gpu`'s device (opened when the stage runs). */
export function bundleRefinement(gpu: () => Promise<GpuContext>): RefineMapping {
  return async (mapped, input, control) => {
    for (const camera of input.databaseCameras) checkArgonautCameraModel(camera.model);
    const ctx = await gpu();
    const solver = await bundleSolverFor(ctx);
    let iterations = 0;
    try {
      const refined = await refineMapping(
        { mapped, keypoints: input.keypoints, cameras: input.databaseCameras.map((c) => ({ model: c.model as BaCameraModel, params: Float64Array.from(c.params) })), imageCamera: input.imageCamera },
        solver.adjust,
        {},
        {
          signal: control.signal,
          // rounds of unknown length: a fraction that only grows
          onProgress: (iteration, record) => control.onProgress?.(1 - 1 / (1 + ++iterations / 20), `bundle adjustment: iteration ${iteration}, cost ${record.cost.toPrecision(6)}`),
        },
      );
      return {
        cameras: input.databaseCameras.map((c, k) => ({ model: c.model, width: c.width, height: c.height, params: refined.cameras[k].params })),
        poses: refined.poses,
        points: refined.points,
        unregistered: refined.unregistered,
        summary: {
          method: 'bundle adjustment',
          solver: solver.name,
          rounds: refined.rounds,
          initialMeanReprojectionErrorPx: refined.initialMeanReprojectionErrorPx,
          meanReprojectionErrorPx: refined.meanReprojectionErrorPx,
          ...(refined.intrinsicsHeld ? { intrinsicsHeld: refined.intrinsicsHeld } : {}),
          ...(refined.stopped ? { stopped: refined.stopped } : {}),
        },
      };
    } finally {
      solver.destroy();
    }
  };
}
