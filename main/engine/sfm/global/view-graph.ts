/**
 * The view graph: which verified pairs the global mapper uses, with a relative pose each, and the
 * largest connected component of the images they join. An edge needs minInliers inliers and a
 * usable relative pose:
 * - CALIBRATED: verification's R, t (from E, cheirality-checked);
 * - UNCALIBRATED (F, the images had no intrinsics at verification): E = K2^T F K1 with the
 *   mapper's intrinsics, decomposed and cheirality-checked on the pair's inliers;
 * - PANORAMIC: R with no translation direction (it constrains rotations, not positions);
 * - PLANAR, or PLANAR_OR_PANORAMIC (verified without intrinsics): from H with the mapper's
 *   intrinsics. A rotation K2 R K1^-1 that maps as many inliers as 90% of H's within the
 *   verification's 4 px makes it panoramic (verification's own test); else H's decomposition
 *   (homography-decomposition.ts: the plane in front of both cameras, cheirality and the
 *   epipolar constraint on the inliers) gives R and t.
 * Images outside the largest component are reported by index with the reason.
 */
import { applyMat3, determinant3, inverse3, multiply3, svd3, transpose3, type Mat3, type Vec3 } from '../verify/dense.js';
import { homographySquaredErrors } from '../verify/homography.js';
import { poseFromHomography } from '../verify/homography-decomposition.js';
import { poseFromEssential, rotationBetweenRays } from '../verify/relative-pose.js';
import { intrinsicMatrix, normalisedCoordinates } from '../verify/two-view-geometry.js';
import { TwoViewConfiguration, VERIFY_DEFAULTS, type PinholeIntrinsics } from '../verify/verify-options.js';
import type { VerifiedPair } from '../verify/verify-pairs.js';
import type { UnregisteredImage } from './mapping-options.js';

export interface ViewEdge {
  /** Image indices, first < second. */
  first: number;
  second: number;
  /** X_second = rotation X_first + translation (camera frames). */
  rotation: Mat3;
  /** Unit length; undefined for a panoramic pair (no baseline, no direction). */
  translation: Vec3 | undefined;
  inlierCount: number;
  /** Keypoint index pairs [k_first, k_second, ...]. */
  inlierMatches: Uint32Array;
  configuration: TwoViewConfiguration;
}

export interface DroppedEdge {
  first: number;
  second: number;
  reason: string;
}

export interface ViewGraph {
  /** The images of the largest connected component, ascending. */
  images: number[];
  /** Edges between those images. */
  edges: ViewEdge[];
  droppedEdges: DroppedEdge[];
  unregistered: UnregisteredImage[];
}

export interface ViewGraphInput {
  imageCount: number;
  verified: readonly VerifiedPair[];
  /** Per image: Float32Array of x, y, scale, orientation (features.ts). */
  keypoints: readonly Float32Array[];
  /** Per image, the intrinsics the mapper uses (a guess where EXIF has none). */
  cameras: readonly PinholeIntrinsics[];
  minInliers: number;
}

export function buildViewGraph(input: ViewGraphInput): ViewGraph {
  const { imageCount, verified, minInliers } = input;
  const droppedEdges: DroppedEdge[] = [];
  const usable: ViewEdge[] = [];
  const seen = new Set<string>();
  for (const { pair, geometry, inlierMatches } of verified) {
    let [a, b] = pair;
    if (a === b || a < 0 || b < 0 || a >= imageCount || b >= imageCount) {
      throw new Error(`view-graph.ts: pair (${a}, ${b}) names an image outside 0..${imageCount - 1} or the same image twice`);
    }
    const key = `${Math.min(a, b)},${Math.max(a, b)}`;
    if (seen.has(key)) throw new Error(`view-graph.ts: pair (${a}, ${b}) is verified twice`);
    seen.add(key);
    const drop = (reason: string) => droppedEdges.push({ first: Math.min(a, b), second: Math.max(a, b), reason });
    if (geometry.configuration === TwoViewConfiguration.DEGENERATE) continue; // no match, not worth a line each
    if (geometry.inliers.length < minInliers) {
      drop(`${geometry.inliers.length} inliers, fewer than ${minInliers}`);
      continue;
    }
    let pose = relativePose(input, a, b, geometry, inlierMatches);
    if (typeof pose === 'string') {
      drop(pose);
      continue;
    }
    let matches = inlierMatches;
    if (a > b) {
      // Store every edge first < second: the inverse pose, the match columns swapped.
      const inverse = transpose3(pose.rotation);
      const t = pose.translation && applyMat3(inverse, pose.translation);
      pose = { rotation: inverse, translation: t && [-t[0], -t[1], -t[2]] };
      matches = new Uint32Array(inlierMatches.length);
      for (let k = 0; k < matches.length; k += 2) [matches[k], matches[k + 1]] = [inlierMatches[k + 1], inlierMatches[k]];
      [a, b] = [b, a];
    }
    usable.push({ first: a, second: b, ...pose, inlierCount: geometry.inliers.length, inlierMatches: matches, configuration: geometry.configuration });
  }
  return keepLargestComponent(imageCount, usable, droppedEdges, [], 'verified pair with a relative pose');
}

type Pose = { rotation: Mat3; translation: Vec3 | undefined };

function relativePose(input: ViewGraphInput, a: number, b: number, geometry: VerifiedPair['geometry'], inlierMatches: Uint32Array): Pose | string {
  const { configuration, rotation, translation, fundamental } = geometry;
  switch (configuration) {
    case TwoViewConfiguration.CALIBRATED:
      if (!rotation || !translation) return 'CALIBRATED without a relative pose';
      return validPose(rotation, translation) ?? 'CALIBRATED with a pose that is not a rotation and a unit direction';
    case TwoViewConfiguration.PANORAMIC:
      if (!rotation) return 'PANORAMIC without a rotation';
      return validPose(rotation, undefined) ?? 'PANORAMIC with a matrix that is not a rotation';
    case TwoViewConfiguration.UNCALIBRATED: {
      if (!fundamental) return 'UNCALIBRATED without a fundamental matrix';
      const [ka, kb] = [intrinsicMatrix(input.cameras[a]), intrinsicMatrix(input.cameras[b])];
      const essential = multiply3(multiply3(transpose3(kb), fundamental), ka);
      const [pointsA, pointsB] = inlierPoints(input.keypoints[a], input.keypoints[b], inlierMatches);
      const normalisedA = normalisedCoordinates(pointsA, input.cameras[a]);
      const normalisedB = normalisedCoordinates(pointsB, input.cameras[b]);
      const all = Array.from({ length: pointsA.length / 2 }, (_, k) => k);
      const pose = poseFromEssential(essential, normalisedA, normalisedB, all);
      // Half the inliers in front of both cameras at least: else the intrinsics do not fit F.
      if (pose.pointsInFront < all.length / 2) return `UNCALIBRATED: E = K2^T F K1 puts only ${pose.pointsInFront} of ${all.length} inliers in front of both cameras`;
      return validPose(pose.rotation, pose.translation) ?? 'UNCALIBRATED: E = K2^T F K1 gives no valid pose';
    }
    case TwoViewConfiguration.PLANAR:
    case TwoViewConfiguration.PLANAR_OR_PANORAMIC:
      return planarPose(input, a, b, geometry.homography, inlierMatches);
    default:
      return `configuration ${configuration} has no relative pose`;
  }
}

/**
 * A planar pair's pose from H and the mapper's cameras: panoramic where one rotation explains the
 * inliers as verification's test has it, else H decomposed (the candidate with the plane in front
 * and the most inliers in front of both cameras on their epipolar lines; at least half of them).
 */
function planarPose(input: ViewGraphInput, a: number, b: number, homography: Mat3 | undefined, inlierMatches: Uint32Array): Pose | string {
  if (!homography) return 'PLANAR without a homography';
  const [cameraA, cameraB] = [input.cameras[a], input.cameras[b]];
  const [ka, kb] = [intrinsicMatrix(cameraA), intrinsicMatrix(cameraB)];
  const [pointsA, pointsB] = inlierPoints(input.keypoints[a], input.keypoints[b], inlierMatches);
  const normalisedA = normalisedCoordinates(pointsA, cameraA);
  const normalisedB = normalisedCoordinates(pointsB, cameraB);
  const all = Array.from({ length: pointsA.length / 2 }, (_, k) => k);
  // The rotation nearest K2^-1 H K1 (H is RANSAC's: outliers do not pull it), then Kabsch again on
  // the inliers it explains (least squares on every inlier would be pulled off by tenths of a
  // degree, pixels at these focal lengths, by the outliers F keeps near epipolar lines)
  const maxError = VERIFY_DEFAULTS.maxErrorPx;
  const rotationK = inverse3(ka)!;
  let explainedBy: number[] = all;
  let rotationOnly = nearestRotation(multiply3(multiply3(inverse3(kb)!, homography), ka));
  for (let round = 0; round < 3; round++) {
    const errors = new Float64Array(all.length);
    homographySquaredErrors(multiply3(multiply3(kb, rotationOnly), rotationK), pointsA, pointsB, errors);
    const next = all.filter((k) => errors[k] <= maxError * maxError);
    if (next.length === explainedBy.length || next.length < 3) {
      explainedBy = next;
      break;
    }
    explainedBy = next;
    rotationOnly = rotationBetweenRays(normalisedA, normalisedB, explainedBy);
  }
  const explained = explainedBy.length;
  // of H's inliers among the pair's: those may be F's (COLMAP's rule), which a rotation's
  // F-degenerate pair pads with outliers near epipolar lines. Counted here from H itself, not
  // taken from verification's counts, which a pair read back from database.db does not carry
  // (they were 0 there, and every planar pair of the apple clip passed as a pure rotation)
  const hErrors = new Float64Array(all.length);
  homographySquaredErrors(homography, pointsA, pointsB, hErrors);
  const homographyInliers = all.filter((k) => hErrors[k] <= maxError * maxError).length;
  if (explained >= VERIFY_DEFAULTS.minRotationInlierRatio * homographyInliers) return validPose(rotationOnly, undefined) ?? 'PANORAMIC (from H) with a matrix that is not a rotation';
  const meanFocal = (cameraA.focalX + cameraA.focalY + cameraB.focalX + cameraB.focalY) / 4;
  const pose = poseFromHomography(homography, ka, kb, normalisedA, normalisedB, all, maxError / meanFocal);
  if (!pose || pose.baselineOverDistance === 0) return 'PLANAR: H has no decomposition with a baseline';
  if (pose.consistent < all.length / 2) return `PLANAR: H's best decomposition puts only ${pose.consistent} of ${all.length} inliers in front of both cameras on their epipolar lines`;
  return validPose(pose.rotation, pose.translation) ?? 'PLANAR: H gives no valid pose';
}

/** The rotation nearest a matrix up to scale and sign (U V^T of its SVD, the sign making det(M) positive). */
function nearestRotation(m: Mat3): Mat3 {
  const positive = determinant3(m) < 0 ? m.map((x) => -x) : m;
  const { u, v } = svd3(positive);
  const r = multiply3(u, transpose3(v));
  return determinant3(r) < 0 ? multiply3(u.map((x, i) => (i % 3 === 2 ? -x : x)), transpose3(v)) : r;
}

function validPose(rotation: Mat3, translation: Vec3 | undefined): Pose | undefined {
  if (!rotation.every(Number.isFinite) || Math.abs(determinant3(rotation) - 1) > 1e-6) return undefined;
  if (translation && (!translation.every(Number.isFinite) || Math.abs(Math.hypot(...translation) - 1) > 1e-6)) return undefined;
  return { rotation, translation };
}

function inlierPoints(keypointsA: Float32Array, keypointsB: Float32Array, matches: Uint32Array): [Float64Array, Float64Array] {
  const n = matches.length / 2;
  const pa = new Float64Array(2 * n);
  const pb = new Float64Array(2 * n);
  for (let k = 0; k < n; k++) {
    pa[2 * k] = keypointsA[4 * matches[2 * k]];
    pa[2 * k + 1] = keypointsA[4 * matches[2 * k] + 1];
    pb[2 * k] = keypointsB[4 * matches[2 * k + 1]];
    pb[2 * k + 1] = keypointsB[4 * matches[2 * k + 1] + 1];
  }
  return [pa, pb];
}

/**
 * The largest connected component of `edges` (ties to the one holding the lowest image index);
 * every image outside it is reported, those in `alreadyOut` keep their reason. `why` names what
 * the edges are ("verified pair with a relative pose"), for the reasons.
 */
export function keepLargestComponent(
  imageCount: number,
  edges: readonly ViewEdge[],
  droppedEdges: DroppedEdge[],
  alreadyOut: readonly UnregisteredImage[],
  why: string,
): ViewGraph {
  const parent = Array.from({ length: imageCount }, (_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]];
    return i;
  };
  const degree = new Array<number>(imageCount).fill(0);
  for (const e of edges) {
    const [ra, rb] = [find(e.first), find(e.second)];
    if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
    degree[e.first]++;
    degree[e.second]++;
  }
  const size = new Map<number, number>();
  for (let i = 0; i < imageCount; i++) if (degree[i] > 0) size.set(find(i), (size.get(find(i)) ?? 0) + 1);
  let root = -1;
  for (const [r, s] of size) if (root < 0 || s > size.get(root)! || (s === size.get(root)! && r < root)) root = r;
  const images: number[] = [];
  const reasons = new Map(alreadyOut.map((u) => [u.image, u.reason]));
  const unregistered: UnregisteredImage[] = [];
  for (let i = 0; i < imageCount; i++) {
    if (root >= 0 && degree[i] > 0 && find(i) === root) images.push(i);
    else if (reasons.has(i)) unregistered.push({ image: i, reason: reasons.get(i)! });
    else if (degree[i] === 0) unregistered.push({ image: i, reason: `no ${why} joins it to another image` });
    else unregistered.push({ image: i, reason: `in a separate group of ${size.get(find(i))} image(s), joined to the largest (${size.get(root)} images) by no ${why}` });
  }
  const kept = new Set(images);
  return { images, edges: edges.filter((e) => kept.has(e.first)), droppedEdges, unregistered };
}
