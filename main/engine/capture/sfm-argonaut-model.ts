/**
 * Our mapper's result as a COLMAP model, the same files COLMAP's mapper writes, so the dataset
 * loaders, `bench sfm-accuracy` and COLMAP's own tools read it unchanged:
 *   cameras.bin   the database's cameras (ids kept), with the refined intrinsics where bundle adjustment gave them;
 *   images.bin    each registered image (its database id and name), world-to-camera pose, every
 *                 keypoint as a 2D point, with the id of the 3D point it observes or -1;
 *   points3D.bin  each point with its mean reprojection error, its track (image id, 2D point index)
 *                 and its colour: the mean RGB of its keypoints' pixels in the images.
 *
 * `RefineMapping` is the one seam between mapping and writing: bundle adjustment
 * (sfm-argonaut-bundle.ts) refines the mapper's poses, points and intrinsics there; `unrefined`
 * passes the mapper's result through with the database's intrinsics (tests of the stages around it).
 */
import path from 'node:path';
import { ArgonautError } from '../../../shared/rpc/errors.js';
import type { ColmapCamera, ColmapImage, ColmapPoints } from '../dataset/colmap-model.js';
import { writeColmapModel, type ModelToWrite } from '../dataset/colmap-write.js';
import { quaternionOf } from '../sfm/colmap-two-view.js';
import type { ColmapCameraModel } from '../sfm/colmap-database.js';
import type { GlobalMappingResult } from '../sfm/global/global-mapper.js';
import type { CameraPose, TriangulatedPoint } from '../sfm/global/triangulate.js';
import type { UnregisteredImage } from '../sfm/global/mapping-options.js';
import { readImage } from '../formats/images.js';
import type { ArgonautMappingInput } from './sfm-argonaut-input.js';

export interface RefinedCamera {
  model: ColmapCameraModel;
  width: number;
  height: number;
  /** COLMAP's order for the model. */
  params: Float64Array;
}

/** What is written: poses per image (undefined: unregistered), points, intrinsics per database camera. */
export interface RefinedModel {
  cameras: RefinedCamera[];
  poses: (CameraPose | undefined)[];
  points: TriangulatedPoint[];
  /** Images the refinement left without a point (their pose dropped), besides those the mapper left out. */
  unregistered?: UnregisteredImage[];
  /** What the refinement did (rounds, costs, removed observations), for the report. */
  summary: Record<string, unknown>;
}

export interface RefineControl {
  signal?: AbortSignal;
  /** 0..1 within the bundle stage. */
  onProgress?: (fraction: number, message: string) => void;
}

/** Bundle adjustment's seam: the mapper's result and its input in, the model to write out. */
export type RefineMapping = (mapped: GlobalMappingResult, input: ArgonautMappingInput, control: RefineControl) => Promise<RefinedModel>;

/** No refinement: the mapper's poses and points, the intrinsics as the database has them. */
export const unrefined: RefineMapping = (mapped, input) =>
  Promise.resolve({
    cameras: input.databaseCameras.map((c) => ({ model: c.model, width: c.width, height: c.height, params: Float64Array.from(c.params) })),
    poses: mapped.poses,
    points: mapped.points,
    summary: { method: 'none', reason: 'bundle adjustment is not wired in yet (main/engine/sfm/bundle/)' },
  });

function throwIfCancelled(signal?: AbortSignal): void {
  if (signal?.aborted) throw new ArgonautError('cancelled', 'cancelled');
}

/**
 * Mean RGB of each point's keypoints (the pixel under each keypoint: COLMAP's 0.5-offset positions,
 * so pixel floor(x), floor(y)), decoding one registered image at a time.
 */
export async function pointColours(imagesDir: string, input: Pick<ArgonautMappingInput, 'names' | 'keypoints'>, points: readonly TriangulatedPoint[], signal?: AbortSignal): Promise<Uint8Array> {
  const byImage = new Map<number, { point: number; keypoint: number }[]>();
  points.forEach((p, point) => {
    for (const ob of p.observations) {
      if (!byImage.has(ob.image)) byImage.set(ob.image, []);
      byImage.get(ob.image)!.push({ point, keypoint: ob.keypoint });
    }
  });
  const sums = new Float64Array(3 * points.length);
  const counts = new Uint32Array(points.length);
  for (const [image, seen] of byImage) {
    throwIfCancelled(signal);
    const pixels = await readImage(path.join(imagesDir, input.names[image]));
    const keypoints = input.keypoints[image];
    for (const { point, keypoint } of seen) {
      const x = Math.min(pixels.width - 1, Math.max(0, Math.floor(keypoints[4 * keypoint])));
      const y = Math.min(pixels.height - 1, Math.max(0, Math.floor(keypoints[4 * keypoint + 1])));
      const at = (y * pixels.width + x) * pixels.channels;
      for (let c = 0; c < 3; c++) sums[3 * point + c] += pixels.data[at + c];
      counts[point]++;
    }
  }
  return Uint8Array.from(sums, (s, k) => Math.round(s / Math.max(1, counts[Math.floor(k / 3)])));
}

/** The COLMAP model of a refined result (image ids and camera ids as in the database; points numbered from 1). */
export function colmapModelOf(refined: RefinedModel, input: ArgonautMappingInput, colours: Uint8Array): ModelToWrite {
  const registered = refined.poses.map((pose, image) => (pose ? image : -1)).filter((image) => image >= 0);
  const usedCameras = [...new Set(registered.map((image) => input.imageCamera[image]))].sort((a, b) => a - b);
  const cameras: ColmapCamera[] = usedCameras.map((k) => {
    const c = refined.cameras[k];
    return { id: input.databaseCameras[k].id, model: c.model, width: c.width, height: c.height, params: Array.from(c.params), source: '' };
  });
  const pointIds = new Map<number, Float64Array>(registered.map((image) => [image, new Float64Array(input.keypoints[image].length / 4).fill(-1)]));
  const n = refined.points.length;
  const points: ColmapPoints = { ids: new Float64Array(n), positions: new Float64Array(3 * n), colors: colours, errors: new Float64Array(n) };
  const tracks: Uint32Array[] = [];
  refined.points.forEach((p, k) => {
    points.ids[k] = k + 1;
    points.positions.set(p.position, 3 * k);
    points.errors[k] = p.meanErrorPx;
    const track = new Uint32Array(2 * p.observations.length);
    p.observations.forEach((ob, m) => {
      const ids = pointIds.get(ob.image);
      if (!ids) throw new Error(`sfm-argonaut-model.ts: point ${k + 1} is observed in image ${input.names[ob.image]}, which has no pose`);
      ids[ob.keypoint] = k + 1;
      track[2 * m] = input.imageIds[ob.image];
      track[2 * m + 1] = ob.keypoint;
    });
    tracks.push(track);
  });
  const images: ColmapImage[] = registered.map((image) => {
    const pose = refined.poses[image]!;
    const keypoints = input.keypoints[image];
    const xy = new Float64Array(keypoints.length / 2);
    for (let k = 0; k < keypoints.length / 4; k++) {
      xy[2 * k] = keypoints[4 * k];
      xy[2 * k + 1] = keypoints[4 * k + 1];
    }
    return { id: input.imageIds[image], qvec: quaternionOf(pose.rotation), tvec: [...pose.translation], cameraId: input.databaseCameras[input.imageCamera[image]].id, name: input.names[image], xy, point3DIds: pointIds.get(image)!, source: '' };
  });
  return { cameras, images, points, tracks };
}

/** Colours sampled, then the three files written (atomically each) into `dir`. */
export async function writeArgonautModel(dir: string, imagesDir: string, refined: RefinedModel, input: ArgonautMappingInput, signal?: AbortSignal): Promise<void> {
  const colours = await pointColours(imagesDir, input, refined.points, signal);
  throwIfCancelled(signal);
  await writeColmapModel(dir, colmapModelOf(refined, input, colours), 'bin');
}
