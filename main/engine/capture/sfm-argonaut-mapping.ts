/**
 * The mapping stage's output on disk (<work>/mapping.json), so that a resumed capture runs bundle
 * adjustment and the writer without mapping again; and the mapper's failures in the words a
 * person needs: what the images show, what to try.
 */
import { readFile } from 'node:fs/promises';
import { ArgonautError } from '../../../shared/rpc/errors.js';
import { writeFileAtomic } from '../formats/atomic-file.js';
import type { GlobalMappingResult } from '../sfm/global/global-mapper.js';
import type { Observation } from '../sfm/global/tracks.js';
import type { Vec3 } from '../sfm/verify/dense.js';
import type { ArgonautMappingInput } from './sfm-argonaut-input.js';

type Flat = number[];
interface MappingFile {
  poses: ({ rotation: Flat; translation: Flat } | null)[];
  points: { position: Flat; observations: Flat; meanErrorPx: number }[];
  tracks: Flat[];
  unregistered: GlobalMappingResult['unregistered'];
  droppedEdges: GlobalMappingResult['droppedEdges'];
  stats: GlobalMappingResult['stats'];
}

const flatten = (observations: readonly Observation[]): Flat => observations.flatMap((o) => [o.image, o.keypoint]);
const observationsOf = (flat: Flat): Observation[] => Array.from({ length: flat.length / 2 }, (_, k) => ({ image: flat[2 * k], keypoint: flat[2 * k + 1] }));

export async function writeMappingFile(file: string, mapped: GlobalMappingResult): Promise<void> {
  const content: MappingFile = {
    poses: mapped.poses.map((p) => (p ? { rotation: Array.from(p.rotation), translation: [...p.translation] } : null)),
    points: mapped.points.map((p) => ({ position: [...p.position], observations: flatten(p.observations), meanErrorPx: p.meanErrorPx })),
    tracks: mapped.tracks.map(flatten),
    unregistered: mapped.unregistered,
    droppedEdges: mapped.droppedEdges,
    stats: mapped.stats,
  };
  await writeFileAtomic(file, JSON.stringify(content));
}

/** The mapping written by writeMappingFile, or undefined when it is absent or unreadable (the stage then runs again). */
export async function readMappingFile(file: string): Promise<GlobalMappingResult | undefined> {
  let content: MappingFile;
  try {
    content = JSON.parse(await readFile(file, 'utf8')) as MappingFile;
  } catch {
    return undefined;
  }
  return {
    poses: content.poses.map((p) => (p ? { rotation: Float64Array.from(p.rotation), translation: p.translation as Vec3 } : undefined)),
    points: content.points.map((p) => ({ position: p.position as Vec3, observations: observationsOf(p.observations), meanErrorPx: p.meanErrorPx })),
    tracks: content.tracks.map(observationsOf),
    unregistered: content.unregistered,
    droppedEdges: content.droppedEdges,
    stats: content.stats,
  };
}

/** Median distance in pixels between matched keypoints over a pair's inliers. */
function medianShiftPx(input: ArgonautMappingInput, pair: ArgonautMappingInput['verified'][number]): number {
  const [a, b] = pair.pair;
  const [ka, kb] = [input.keypoints[a], input.keypoints[b]];
  const m = pair.inlierMatches;
  const shifts: number[] = [];
  for (let k = 0; k < m.length; k += 2) shifts.push(Math.hypot(ka[4 * m[k]] - kb[4 * m[k + 1]], ka[4 * m[k] + 1] - kb[4 * m[k + 1] + 1]));
  shifts.sort((x, y) => x - y);
  return shifts[shifts.length >> 1] ?? Infinity;
}

/** Below this median shift (pixels) between a pair's matched keypoints, the two views are the same picture. */
const NO_MOTION_PX = 1;
/** The least inliers of a pair that says anything about motion (the mapper's minInliers). */
const MIN_INLIERS = 15;

/** Whether every pair that matches at all is the same picture twice (a tripod, a paused clip, copies of one photo). */
export function showsNoMotion(input: ArgonautMappingInput): boolean {
  const pairs = input.verified.filter((p) => p.inlierMatches.length / 2 >= MIN_INLIERS);
  return pairs.length > 0 && pairs.every((p) => medianShiftPx(input, p) < NO_MOTION_PX);
}

export const NO_MOTION_MESSAGE =
  'the images show no camera motion (every matching pair is the same view, the keypoints within 1 px of each other), so no 3D structure can be found: move the camera between shots (walk around the object), and do not film from a tripod or a paused clip';

/** The mapper threw (or registered nothing): an input error naming the capture, what the images show and what to try. */
export function mappingFailure(error: unknown, input: ArgonautMappingInput, where: string): ArgonautError {
  const detail = (error as Error).message.replace(/^global-mapper\.ts: /, '');
  let message: string;
  if (showsNoMotion(input)) message = NO_MOTION_MESSAGE;
  else if (/pure rotation|panoramic/i.test(detail)) {
    message = 'the camera only turned on the spot (every pair that joins the images is a pure rotation, a panorama), so no camera position or 3D point can be found: move the camera between shots (walk around the object) rather than only turning it';
  } else message = detail;
  return new ArgonautError('bad_input', `${where}: structure from motion failed: ${message}`, { file: where, stage: 'mapping', reason: message, mapper: detail });
}
