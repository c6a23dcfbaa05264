/**
 * The GPU solver's buffers as host arrays (kernels/bundle-common.wgsl describes them): the
 * float32 model (poses, intrinsics, points), the u32 topology (per image, per camera, per
 * observation, the points' observation ranges, the segments and their observation lists) and the
 * observed pixels, with the element offsets the kernels' BaParams carry.
 *
 * On the GPU the observations are sorted by point (GPU observation k is the problem's
 * graph.pointObs[k]), so a point's observations are contiguous and a thread per point walks them;
 * a segment (a free image's pose block, or a camera's intrinsic block) lists the GPU indices of
 * its observations (an image's, or all of its camera's images').
 */
import { BA_CAMERA_MODELS } from '../camera-models.js';
import { buildObservationGraph, buildReducedLayout, imageCountOf, pointCountOf, type BaOptions, type BaProblem, type ObservationGraph, type ReducedLayout } from '../problem.js';

/** kernels/bundle-common.wgsl: CAMERA_WORDS, SEGMENT_WORDS, CHUNK_WORDS, CHUNK_SUMS, LIN_STRIDE, POINT_STRIDE, SEG_STRIDE, VEC_SLOTS. */
export const CAMERA_WORDS = 12;
export const SEGMENT_WORDS = 8;
export const CHUNK_WORDS = 4;
export const CHUNK_SUMS = 8;
/**
 * Observations one schur_chunks workgroup sums (32 threads, 32 each): a segment with more (a
 * camera's intrinsics over a whole video: 300,000) is split, so its sum is many workgroups'
 * work and one short pass over their partial sums, not one workgroup's long loop.
 */
export const CHUNK_OBS = 1024;
export const LIN_STRIDE = 40;
export const POINT_STRIDE = 16;
export const SEG_STRIDE = 144;
/** kernels/bundle-blocks.wgsl SEG_VALUES: the sums per chunk behind a segment's blocks. */
export const SEG_VALUES = 80;
export const VEC_SLOTS = 8;
export const VEC = { b: 0, x: 1, r: 2, z: 3, p: 4, q: 5, g: 6, t: 7 } as const;
export const NONE = 0xffffffff;
/** Largest intrinsic block a kernel holds (OPENCV's 8). */
export const MAX_BLOCK = 8;

export interface GpuBundleLayout {
  images: number;
  cameras: number;
  points: number;
  observations: number;
  segments: number;
  /** Runs of at most CHUNK_OBS of a segment's observations. */
  chunks: number;
  variables: number;
  /** The problem's observation index of GPU observation k. */
  observationOrder: Uint32Array;
  reduced: ReducedLayout;
  graph: ObservationGraph;
  /** Per segment: kind 0 (pose of image owner) or 1 (intrinsics of camera owner), size, variable offset. */
  segmentKind: Uint8Array;
  segmentOwner: Uint32Array;
  topology: Uint32Array;
  offsets: { image_info_at: number; camera_info_at: number; obs_image_at: number; obs_point_at: number; point_first_at: number; segment_at: number; seg_obs_at: number; chunk_at: number; intrinsics_at: number; points_at: number };
  modelFloats: number;
}

export function buildGpuLayout(problem: BaProblem, options: Pick<BaOptions, 'refineFocal' | 'refinePrincipalPoint' | 'refineExtra'>): GpuBundleLayout {
  const graph = buildObservationGraph(problem);
  const reduced = buildReducedLayout(problem, options);
  const images = imageCountOf(problem);
  const cameras = problem.cameras.length;
  const points = pointCountOf(problem);
  const observations = problem.obsImage.length;
  const order = graph.pointObs;
  const gpuIndex = new Uint32Array(observations);
  order.forEach((o, k) => (gpuIndex[o] = k));

  const segmentKind: number[] = [];
  const segmentOwner: number[] = [];
  const segmentObs: Uint32Array[] = [];
  for (let i = 0; i < images; i++) {
    if (reduced.poseOffset[i] < 0) continue;
    segmentKind.push(0);
    segmentOwner.push(i);
    segmentObs.push(graph.imageObs.slice(graph.imageObsStart[i], graph.imageObsStart[i + 1]).map((o) => gpuIndex[o]));
  }
  for (let c = 0; c < cameras; c++) {
    if (!reduced.refined[c].length) continue;
    const list: number[] = [];
    for (let k = graph.cameraImageStart[c]; k < graph.cameraImageStart[c + 1]; k++) {
      const i = graph.cameraImages[k];
      for (let m = graph.imageObsStart[i]; m < graph.imageObsStart[i + 1]; m++) list.push(gpuIndex[graph.imageObs[m]]);
    }
    segmentKind.push(1);
    segmentOwner.push(c);
    segmentObs.push(Uint32Array.from(list));
  }
  const segments = segmentKind.length;
  const segObsTotal = segmentObs.reduce((n, s) => n + s.length, 0);
  const chunksOf = segmentObs.map((list) => Math.max(1, Math.ceil(list.length / CHUNK_OBS)));
  const chunks = chunksOf.reduce((n, c) => n + c, 0);

  const image_info_at = 0;
  const camera_info_at = image_info_at + 2 * images;
  const obs_image_at = camera_info_at + CAMERA_WORDS * cameras;
  const obs_point_at = obs_image_at + observations;
  const point_first_at = obs_point_at + observations;
  const segment_at = point_first_at + points + 1;
  const seg_obs_at = segment_at + SEGMENT_WORDS * segments;
  const chunk_at = seg_obs_at + segObsTotal;
  const topology = new Uint32Array(chunk_at + CHUNK_WORDS * chunks);
  for (let i = 0; i < images; i++) {
    topology[image_info_at + 2 * i] = problem.imageCamera[i];
    topology[image_info_at + 2 * i + 1] = reduced.poseOffset[i] < 0 ? NONE : reduced.poseOffset[i];
  }
  problem.cameras.forEach((camera, c) => {
    const at = camera_info_at + CAMERA_WORDS * c;
    const refined = reduced.refined[c];
    if (refined.length > MAX_BLOCK) throw new Error(`bundle/gpu: camera ${c} refines ${refined.length} intrinsics, more than the kernels' ${MAX_BLOCK}`);
    topology[at] = BA_CAMERA_MODELS.indexOf(camera.model);
    topology[at + 1] = refined.length;
    topology[at + 2] = reduced.intrinsicOffset[c];
    refined.forEach((index, a) => (topology[at + 4 + a] = index));
  });
  for (let k = 0; k < observations; k++) {
    topology[obs_image_at + k] = problem.obsImage[order[k]];
    topology[obs_point_at + k] = problem.obsPoint[order[k]];
  }
  topology.set(graph.pointObsStart, point_first_at);
  let first = 0;
  let chunk = 0;
  for (let s = 0; s < segments; s++) {
    const at = segment_at + SEGMENT_WORDS * s;
    const owner = segmentOwner[s];
    const pose = segmentKind[s] === 0;
    topology[at] = segmentKind[s];
    topology[at + 1] = pose ? 6 : reduced.refined[owner].length;
    topology[at + 2] = pose ? reduced.poseOffset[owner] : reduced.intrinsicOffset[owner];
    topology[at + 3] = first;
    topology[at + 4] = segmentObs[s].length;
    topology[at + 5] = owner;
    topology[at + 6] = chunk;
    topology[at + 7] = chunksOf[s];
    topology.set(segmentObs[s], seg_obs_at + first);
    for (let k = 0; k < chunksOf[s]; k++, chunk++) {
      const c = chunk_at + CHUNK_WORDS * chunk;
      topology[c] = s;
      topology[c + 1] = first + k * CHUNK_OBS;
      topology[c + 2] = Math.min(CHUNK_OBS, segmentObs[s].length - k * CHUNK_OBS);
    }
    first += segmentObs[s].length;
  }
  const intrinsics_at = 12 * images;
  const points_at = intrinsics_at + 8 * cameras;
  return {
    images,
    cameras,
    points,
    observations,
    segments,
    chunks,
    variables: reduced.reducedSize,
    observationOrder: order,
    reduced,
    graph,
    segmentKind: Uint8Array.from(segmentKind),
    segmentOwner: Uint32Array.from(segmentOwner),
    topology,
    offsets: { image_info_at, camera_info_at, obs_image_at, obs_point_at, point_first_at, segment_at, seg_obs_at, chunk_at, intrinsics_at, points_at },
    modelFloats: points_at + 4 * points,
  };
}

/** The problem's parameters as the float32 model buffer (poses, intrinsics padded to 8, points padded to 4). */
export function packModel(problem: BaProblem, layout: GpuBundleLayout, out = new Float32Array(layout.modelFloats)): Float32Array {
  for (let i = 0; i < layout.images; i++) {
    for (let k = 0; k < 9; k++) out[12 * i + k] = problem.rotations[9 * i + k];
    for (let k = 0; k < 3; k++) out[12 * i + 9 + k] = problem.translations[3 * i + k];
  }
  problem.cameras.forEach((camera, c) => {
    out.fill(0, layout.offsets.intrinsics_at + 8 * c, layout.offsets.intrinsics_at + 8 * c + 8);
    out.set(camera.params, layout.offsets.intrinsics_at + 8 * c);
  });
  for (let j = 0; j < layout.points; j++) {
    const at = layout.offsets.points_at + 4 * j;
    out[at] = problem.points[3 * j];
    out[at + 1] = problem.points[3 * j + 1];
    out[at + 2] = problem.points[3 * j + 2];
    out[at + 3] = 0;
  }
  return out;
}

/** Writes a model buffer's values back into `problem`'s parameter arrays (float64 copies of the float32 values). */
export function unpackModel(model: Float32Array, layout: GpuBundleLayout, problem: BaProblem): void {
  for (let i = 0; i < layout.images; i++) {
    for (let k = 0; k < 9; k++) problem.rotations[9 * i + k] = model[12 * i + k];
    for (let k = 0; k < 3; k++) problem.translations[3 * i + k] = model[12 * i + 9 + k];
  }
  problem.cameras.forEach((camera, c) => {
    for (let k = 0; k < camera.params.length; k++) camera.params[k] = model[layout.offsets.intrinsics_at + 8 * c + k];
  });
  for (let j = 0; j < layout.points; j++) {
    const at = layout.offsets.points_at + 4 * j;
    for (let k = 0; k < 3; k++) problem.points[3 * j + k] = model[at + k];
  }
}

/** The observed pixels in GPU order, float32 pairs. */
export function packObservations(problem: BaProblem, layout: GpuBundleLayout): Float32Array {
  const xy = new Float32Array(2 * layout.observations);
  layout.observationOrder.forEach((o, k) => {
    xy[2 * k] = problem.obsXY[2 * o];
    xy[2 * k + 1] = problem.obsXY[2 * o + 1];
  });
  return xy;
}
