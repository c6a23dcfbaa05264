/**
 * Global mapping's last stage: bundle adjustment of the positioned model (GLOMAP's loop). Each
 * round adjusts poses, refined intrinsics and points with the given solver (CPU or GPU, the same
 * BundleAdjuster type), then applies COLMAP's filters with the refined cameras (observations over
 * maxReprojectionErrorPx or behind their camera dropped; points left with fewer than 2
 * observations or rays under minTriangulationAngleDeg apart dropped); between rounds every track
 * is completed (its other observations added back where they now fit) or, if it has no point
 * (and the filters did not just drop it), triangulated again with the refined cameras. The mapper's cameras have no distortion: what
 * distortion the result has comes from BA alone.
 */
import { CAMERA_MODELS, projectWorldPoint, undistortPixel } from '../bundle/camera-models.js';
import { BA_DEFAULTS, type BaCamera, type BaControl, type BaOptions, type BaProblem, type BundleAdjuster } from '../bundle/problem.js';
import type { Vec3 } from '../verify/dense.js';
import type { PinholeIntrinsics } from '../verify/verify-options.js';
import type { GlobalMappingResult } from './global-mapper.js';
import { MAPPING_DEFAULTS, type MappingOptions, type UnregisteredImage } from './mapping-options.js';
import type { Observation } from './tracks.js';
import { maxRayAngleDeg, triangulateTrack, type CameraPose, type TriangulatedPoint } from './triangulate.js';

export interface RefineMappingInput {
  mapped: Pick<GlobalMappingResult, 'poses' | 'points' | 'tracks'>;
  /** Per image: x, y, scale, orientation per keypoint (features.ts). */
  keypoints: readonly Float32Array[];
  /** The start of each camera (COLMAP's model and order); images share them through imageCamera. */
  cameras: readonly BaCamera[];
  imageCamera: ArrayLike<number>;
}

export type RefineMappingOptions = Pick<MappingOptions, 'bundleAdjustmentRounds' | 'retriangulateBetweenRounds' | 'maxReprojectionErrorPx' | 'minTriangulationAngleDeg'> & { bundle: BaOptions };

export interface RefinementRound {
  initialCost: number;
  finalCost: number;
  iterations: number;
  reason: string;
  seconds: number;
  /** What BA adjusted. */
  observations: number;
  points: number;
  /** What the filters after it dropped. */
  removedObservations: number;
  removedPoints: number;
  /** What completion and re-triangulation after it added (0 after the last round). */
  addedObservations: number;
  addedPoints: number;
  /** Over the observations kept by the filters, pixels. */
  meanReprojectionErrorPx: number;
}

export interface RefinedMapping {
  poses: (CameraPose | undefined)[];
  /** The refined cameras, in the input's order (a camera no registered image uses is returned as given). */
  cameras: BaCamera[];
  points: TriangulatedPoint[];
  /** Images that the filters left without a point (their pose is dropped), besides those the mapper left out. */
  unregistered: UnregisteredImage[];
  rounds: RefinementRound[];
  initialMeanReprojectionErrorPx: number;
  meanReprojectionErrorPx: number;
  /** Set when a round that refined intrinsics lost images or half the points: from that round on they were held. */
  intrinsicsHeld?: { round: number; reason: string };
  /** Set when a round would still lose images and half the points with the intrinsics held: the rounds stopped before it. */
  stopped?: { round: number; reason: string };
}

/** A point in the making: its track (by index into mapped.tracks) and the observations it keeps. */
interface WorkingPoint {
  position: Vec3;
  observations: Observation[];
  track: number;
}

export async function refineMapping(input: RefineMappingInput, adjust: BundleAdjuster, options: Partial<RefineMappingOptions> = {}, control: BaControl = {}): Promise<RefinedMapping> {
  const o: RefineMappingOptions = { ...MAPPING_DEFAULTS, bundle: BA_DEFAULTS, ...options };
  const { keypoints, mapped } = input;
  const imageCount = mapped.poses.length;
  if (input.imageCamera.length !== imageCount) throw new Error(`refine-mapping.ts: ${imageCount} poses but ${input.imageCamera.length} image -> camera entries`);
  for (let i = 0; i < imageCount; i++) {
    if (!input.cameras[input.imageCamera[i]]) throw new Error(`refine-mapping.ts: image ${i} names camera ${input.imageCamera[i]}, but there are ${input.cameras.length}`);
  }
  if (mapped.points.length === 0) throw new Error('refine-mapping.ts: the mapping has no triangulated point, so there is nothing to bundle-adjust (too few matches between the registered images)');
  let poses = mapped.poses.slice();
  let cameras: BaCamera[] = input.cameras.map((c) => ({ model: c.model, params: c.params.slice() }));
  const trackOf = new Map<string, number>();
  mapped.tracks.forEach((track, t) => track.forEach((ob) => trackOf.set(key(ob), t)));
  let points: WorkingPoint[] = mapped.points.map((p) => ({ position: p.position, observations: p.observations, track: trackOf.get(key(p.observations[0])) ?? -1 }));
  const pixel = (ob: Observation): [number, number] => [keypoints[ob.image][4 * ob.keypoint], keypoints[ob.image][4 * ob.keypoint + 1]];
  const errorOf = (position: Vec3, ob: Observation): number => reprojectionErrorPx(position, poses[ob.image], cameras[input.imageCamera[ob.image]], pixel(ob));
  const meanError = () => {
    let [sum, count] = [0, 0];
    for (const p of points) for (const ob of p.observations) [sum, count] = [sum + errorOf(p.position, ob), count + 1];
    return count ? sum / count : 0;
  };
  const initialMeanReprojectionErrorPx = meanError();
  const unregistered: UnregisteredImage[] = [];
  const rounds: RefinementRound[] = [];
  // Tracks whose point the filters dropped are not triangulated again: on the statue they were 26
  // a round, nearly all two-view tracks with one wrong match that DLT fits under 4 px and BA then
  // puts on one side (dropped, re-triangulated and dropped again every round).
  const droppedTracks = new Set<number>();
  let bundleOptions = o.bundle;
  let intrinsicsHeld: RefinedMapping['intrinsicsHeld'];
  let stopped: RefinedMapping['stopped'];
  const refinesIntrinsics = (b: BaOptions) => b.refineFocal || b.refinePrincipalPoint || b.refineExtra;
  for (let round = 0; round < o.bundleAdjustmentRounds; round++) {
    // One round: BA, then COLMAP's filters with the refined cameras; nothing is kept until the
    // outcome is accepted below.
    const attempt = async (options: BaOptions) => {
      const built = buildProblem(points, poses, cameras, input.imageCamera, pixel);
      const result = await adjust(built.problem, options, control);
      const back = readBack(result.problem, built, poses, cameras);
      const adjusted = points.map((p, j) => ({ ...p, position: [result.problem.points[3 * j], result.problem.points[3 * j + 1], result.problem.points[3 * j + 2]] as Vec3 }));
      const cameraOf = (ob: Observation) => back.cameras[input.imageCamera[ob.image]];
      const kept = adjusted
        .map((p) => ({ ...p, observations: p.observations.filter((ob) => reprojectionErrorPx(p.position, back.poses[ob.image], cameraOf(ob), pixel(ob)) <= o.maxReprojectionErrorPx) }))
        .filter((p) => p.observations.length >= 2 && maxRayAngleDeg(p.position, p.observations, back.poses) >= o.minTriangulationAngleDeg);
      const seen = new Set(kept.flatMap((p) => p.observations.map((ob) => ob.image)));
      const lost = back.poses.flatMap((pose, i) => (pose && !seen.has(i) ? [i] : []));
      return { built, result, back, kept, lost };
    };
    let outcome = await attempt(bundleOptions);
    // A focal length (or distortion) the images do not determine (a plane seen by a sliding
    // camera, a narrow orbit) can run off in BA and take the points with it through the
    // triangulation-angle filter: when a round that refines intrinsics loses images or half the
    // points, it is done again with them held, and so are the rounds after it.
    if (refinesIntrinsics(bundleOptions) && (outcome.lost.length > 0 || outcome.kept.length < 0.5 * points.length)) {
      intrinsicsHeld = { round: round + 1, reason: `refining the intrinsics lost ${outcome.lost.length} image(s) and ${points.length - outcome.kept.length} of ${points.length} points` };
      bundleOptions = { ...bundleOptions, refineFocal: false, refinePrincipalPoint: false, refineExtra: false };
      outcome = await attempt(bundleOptions);
    }
    // Still losing them with the intrinsics held: BA cannot improve this model; the state before
    // the round is kept (the mapper's, for the first) rather than a worse one.
    if (outcome.lost.length > 0 && outcome.kept.length < 0.5 * points.length) {
      stopped = { round: round + 1, reason: `the round would lose ${outcome.lost.length} image(s) and ${points.length - outcome.kept.length} of ${points.length} points; the model before it is kept` };
      break;
    }
    const { built, result, kept, lost } = outcome;
    ({ poses, cameras } = outcome.back);
    const observationsBefore = points.reduce((s, p) => s + p.observations.length, 0);
    const removedObservations = observationsBefore - kept.reduce((s, p) => s + p.observations.length, 0);
    const removedPoints = points.length - kept.length;
    const keptTracks = new Set(kept.map((p) => p.track));
    for (const p of points) if (!keptTracks.has(p.track)) droppedTracks.add(p.track);
    points = kept;
    // An image the filters left with no point has nothing to hold its pose.
    for (const i of lost) unregistered.push({ image: i, reason: `no point left after bundle adjustment round ${round + 1}'s filters (reprojection error over ${o.maxReprojectionErrorPx} px, triangulation angle)` });
    poses = poses.map((pose, i) => (lost.includes(i) ? undefined : pose));
    if (poses.filter(Boolean).length < 2) throw new Error(`refine-mapping.ts: fewer than two images keep points after bundle adjustment round ${round + 1} (${points.length} points left); the mapping is likely wrong`);

    let [addedObservations, addedPoints] = [0, 0];
    if (round < o.bundleAdjustmentRounds - 1 && o.retriangulateBetweenRounds) {
      ({ addedObservations, addedPoints, points } = completeTracks(points, mapped.tracks, droppedTracks, poses, cameras, input.imageCamera, pixel, errorOf, o));
    }
    rounds.push({
      initialCost: result.initialCost,
      finalCost: result.finalCost,
      iterations: result.iterations,
      reason: result.reason,
      seconds: result.seconds,
      observations: built.problem.obsImage.length,
      points: built.problem.points.length / 3,
      removedObservations,
      removedPoints,
      addedObservations,
      addedPoints,
      meanReprojectionErrorPx: meanError(),
    });
  }
  const finalPoints: TriangulatedPoint[] = points.map((p) => ({
    position: p.position,
    observations: [...p.observations].sort((a, b) => a.image - b.image),
    meanErrorPx: p.observations.reduce((s, ob) => s + errorOf(p.position, ob), 0) / p.observations.length,
  }));
  return { poses, cameras, points: finalPoints, unregistered, rounds, initialMeanReprojectionErrorPx, meanReprojectionErrorPx: meanError(), ...(intrinsicsHeld ? { intrinsicsHeld } : {}), ...(stopped ? { stopped } : {}) };
}

const key = (ob: Observation) => `${ob.image}:${ob.keypoint}`;

/** Pixels; Infinity behind the camera (or for an image without a pose). */
function reprojectionErrorPx(position: Vec3, pose: CameraPose | undefined, camera: BaCamera, observed: [number, number]): number {
  if (!pose) return Infinity;
  const r = pose.rotation;
  const z = r[6] * position[0] + r[7] * position[1] + r[8] * position[2] + pose.translation[2];
  if (!(z > 0)) return Infinity;
  const [u, v] = projectWorldPoint(camera.model, camera.params, pose.rotation, pose.translation, position);
  return Math.hypot(u - observed[0], v - observed[1]);
}

interface BuiltProblem {
  problem: BaProblem;
  /** BA image -> image, BA camera -> camera. */
  images: number[];
  cameras: number[];
}

/** The images with a pose and a point, the cameras they use, the first such image held (the gauge). */
function buildProblem(points: readonly WorkingPoint[], poses: readonly (CameraPose | undefined)[], cameras: readonly BaCamera[], imageCamera: ArrayLike<number>, pixel: (ob: Observation) => [number, number]): BuiltProblem {
  const seen = new Set(points.flatMap((p) => p.observations.map((ob) => ob.image)));
  const images = poses.map((pose, i) => (pose && seen.has(i) ? i : -1)).filter((i) => i >= 0);
  const imageIndex = new Map(images.map((image, k) => [image, k]));
  const usedCameras = [...new Set(images.map((i) => imageCamera[i]))].sort((a, b) => a - b);
  const cameraIndex = new Map(usedCameras.map((c, k) => [c, k]));
  const observationCount = points.reduce((s, p) => s + p.observations.length, 0);
  const problem: BaProblem = {
    cameras: usedCameras.map((c) => ({ model: cameras[c].model, params: cameras[c].params.slice() })),
    imageCamera: Uint32Array.from(images, (i) => cameraIndex.get(imageCamera[i])!),
    rotations: new Float64Array(9 * images.length),
    translations: new Float64Array(3 * images.length),
    points: new Float64Array(3 * points.length),
    obsImage: new Uint32Array(observationCount),
    obsPoint: new Uint32Array(observationCount),
    obsXY: new Float64Array(2 * observationCount),
    fixedImages: Uint8Array.from(images, (_, k) => (k === 0 ? 1 : 0)),
  };
  images.forEach((image, k) => {
    problem.rotations.set(poses[image]!.rotation, 9 * k);
    problem.translations.set(poses[image]!.translation, 3 * k);
  });
  let o = 0;
  points.forEach((p, j) => {
    problem.points.set(p.position, 3 * j);
    for (const ob of p.observations) {
      problem.obsImage[o] = imageIndex.get(ob.image)!;
      problem.obsPoint[o] = j;
      problem.obsXY.set(pixel(ob), 2 * o);
      o++;
    }
  });
  return { problem, images, cameras: usedCameras };
}

function readBack(adjusted: BaProblem, built: BuiltProblem, poses: readonly (CameraPose | undefined)[], cameras: readonly BaCamera[]): { poses: (CameraPose | undefined)[]; cameras: BaCamera[] } {
  const nextPoses = poses.slice();
  built.images.forEach((image, k) => {
    nextPoses[image] = { rotation: adjusted.rotations.slice(9 * k, 9 * k + 9), translation: [adjusted.translations[3 * k], adjusted.translations[3 * k + 1], adjusted.translations[3 * k + 2]] };
  });
  const nextCameras = cameras.map((c) => ({ model: c.model, params: c.params.slice() }));
  built.cameras.forEach((c, k) => (nextCameras[c].params = adjusted.cameras[k].params.slice()));
  return { poses: nextPoses, cameras: nextCameras };
}

/**
 * GLOMAP's retriangulation, simplified: a point's track gives back the observations that now fit
 * (in front, within maxReprojectionErrorPx, an image with a pose, none of an image already seen);
 * a track without a point is triangulated again (triangulate.ts's DLT and filters on undistorted
 * pixels of the refined cameras).
 */
function completeTracks(
  points: readonly WorkingPoint[],
  tracks: readonly Observation[][],
  droppedTracks: ReadonlySet<number>,
  poses: readonly (CameraPose | undefined)[],
  cameras: readonly BaCamera[],
  imageCamera: ArrayLike<number>,
  pixel: (ob: Observation) => [number, number],
  errorOf: (position: Vec3, ob: Observation) => number,
  o: RefineMappingOptions,
): { points: WorkingPoint[]; addedObservations: number; addedPoints: number } {
  let addedObservations = 0;
  const withPoint = new Set<number>();
  const completed = points.map((p) => {
    if (p.track < 0) return p;
    withPoint.add(p.track);
    const images = new Set(p.observations.map((ob) => ob.image));
    const extra = tracks[p.track].filter((ob) => poses[ob.image] && !images.has(ob.image) && errorOf(p.position, ob) <= o.maxReprojectionErrorPx);
    addedObservations += extra.length;
    return extra.length ? { ...p, observations: [...p.observations, ...extra] } : p;
  });
  // Undistorted pixels in a pinhole with each camera's focal and principal point: triangulate.ts's model.
  const pinholes: PinholeIntrinsics[] = Array.from({ length: poses.length }, (_, i) => pinholeOf(cameras[imageCamera[i]]));
  const undistorted = (ob: Observation): [number, number] => {
    const camera = cameras[imageCamera[ob.image]];
    const [x, y] = undistortPixel(camera.model, camera.params, ...pixel(ob));
    const pinhole = pinholes[ob.image];
    return [pinhole.focalX * x + pinhole.principalX, pinhole.focalY * y + pinhole.principalY];
  };
  let addedPoints = 0;
  tracks.forEach((track, t) => {
    if (withPoint.has(t) || droppedTracks.has(t)) return;
    const outcome = triangulateTrack(track, poses, pinholes, undistorted, o);
    if (typeof outcome === 'string') return;
    completed.push({ position: outcome.position, observations: outcome.observations, track: t });
    addedPoints++;
  });
  return { points: completed, addedObservations, addedPoints };
}

function pinholeOf(camera: BaCamera): PinholeIntrinsics {
  const names = CAMERA_MODELS[camera.model].parameterNames;
  const at = (name: string) => camera.params[names.indexOf(name)];
  const single = names[0] === 'f';
  return { focalX: single ? at('f') : at('fx'), focalY: single ? at('f') : at('fy'), principalX: at('cx'), principalY: at('cy') };
}
