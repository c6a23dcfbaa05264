/**
 * Guided matching and relative-pose re-estimation of a pair that already has a calibrated pose
 * (COLMAP's guided matching, GLOMAP's relative-pose re-estimation at 1 px): every keypoint of the
 * first image is matched only against the second image's keypoints within a Sampson band of the
 * pair's essential matrix, E is refined on those matches (refine-essential.ts: Levenberg-Marquardt
 * on the essential manifold, Cauchy weights), the inliers recounted at a tight threshold, and the
 * band matched again with the refined E.
 *
 * Why: the unguided matcher's ratio test runs over the whole image, so a keypoint whose twin sits
 * elsewhere in the image (repeated texture, symmetric objects) is lost, and verification's 4 px
 * RANSAC threshold lets in correspondences that miss by pixels. In the band the competitors are
 * the few keypoints on one epipolar strip: a right pose gains the matches the ratio test lost, and
 * its inliers at 1 px are the ones that fix it; a false pose's band holds no consistent matches,
 * so its count at 1 px falls. The pose comes out of the refit, not verification's RANSAC.
 *
 * Inputs are the two images' keypoints (features.ts: x, y, scale, orientation) and descriptors
 * (RootSIFT x 512 as bytes), their intrinsics and E (x2^T E x1 = 0 on normalised coordinates).
 * Deterministic: no random numbers.
 */
import { DESCRIPTOR_BYTE_SCALE, DESCRIPTOR_SIZE } from '../sift-options.js';
import type { Mat3, Vec3 } from './dense.js';
import { sampsonSquaredErrors } from './fundamental.js';
import { gatherPoints } from './point-normalisation.js';
import { refineEssential } from './refine-essential.js';
import { countInFront, poseFromEssential } from './relative-pose.js';
import { normalisedCoordinates } from './two-view-geometry.js';
import type { PinholeIntrinsics } from './verify-options.js';

export interface GuidedMatchingOptions {
  /**
   * Half-width of the band, pixels of Sampson distance. 2: a right pose from verification's RANSAC
   * at 4 px is off by a pixel or two at the image's edges, and the refit narrows it to inlierPx.
   */
  bandPx: number;
  /** Inlier threshold after the refit, pixels (GLOMAP's relative-pose re-estimation: 1 px; SIFT localises to ~0.5 px). */
  inlierPx: number;
  /**
   * Lowe's ratio on descriptor angles among the band's candidates. 0.9, looser than the matcher's
   * 0.8: the band has removed the far look-alikes, and the second nearest there is a neighbour on
   * the same strip, which is what the ratio guards against.
   */
  ratio: number;
  /** Largest descriptor angle of a match, radians (the matcher's maxDistance, COLMAP's 0.7). */
  maxDistance: number;
  /** Band matching and refit rounds (each narrows the band's pose; 2: a third changed no count on the scenes we measured). */
  rounds: number;
}

export const GUIDED_MATCHING_DEFAULTS: Readonly<GuidedMatchingOptions> = { bandPx: 2, inlierPx: 1, ratio: 0.9, maxDistance: 0.7, rounds: 2 };

export interface GuidedImage {
  keypoints: Float32Array;
  descriptors: Uint8Array;
  camera: PinholeIntrinsics;
}

export interface GuidedPose {
  essential: Mat3;
  /** X2 = R X1 + t, t unit length (cheirality on the inliers). */
  rotation: Mat3;
  translation: Vec3;
  /** Keypoint index pairs [k_first, k_second, ...] within inlierPx of the refined E, in front of both cameras. */
  inlierMatches: Uint32Array;
  /** Band matches of the last round (before the inlier threshold). */
  bandMatches: number;
}

/** Guided matches of `first` against `second` under E, the refit pose and its inliers. */
export function guidedRelativePose(first: GuidedImage, second: GuidedImage, essential: Mat3, options: Partial<GuidedMatchingOptions> = {}): GuidedPose {
  const o = { ...GUIDED_MATCHING_DEFAULTS, ...options };
  const normalisedA = normalisedKeypoints(first.keypoints, first.camera);
  const normalisedB = normalisedKeypoints(second.keypoints, second.camera);
  const focal = (first.camera.focalX + first.camera.focalY + second.camera.focalX + second.camera.focalY) / 4;
  let model = essential;
  let matches: Uint32Array = new Uint32Array(0);
  let inliers: Uint32Array = new Uint32Array(0);
  for (let round = 0; round < o.rounds; round++) {
    matches = bandMatches(first.descriptors, second.descriptors, normalisedA, normalisedB, model, o.bandPx / focal, o);
    if (matches.length / 2 < 8) break;
    const pointsA = gatherKeypoints(normalisedA, matches, 0);
    const pointsB = gatherKeypoints(normalisedB, matches, 1);
    const all = Uint32Array.from({ length: matches.length / 2 }, (_, k) => k);
    model = refineEssential(model, pointsA, pointsB, all);
    inliers = withinSampson(model, pointsA, pointsB, o.inlierPx / focal);
    // a second refit on the inliers alone: the Cauchy weights of the first still let the band's outliers pull
    if (inliers.length >= 8) {
      model = refineEssential(model, pointsA, pointsB, inliers);
      inliers = withinSampson(model, pointsA, pointsB, o.inlierPx / focal);
    }
  }
  const pointsA = gatherKeypoints(normalisedA, matches, 0);
  const pointsB = gatherKeypoints(normalisedB, matches, 1);
  const pose = poseFromEssential(model, pointsA, pointsB, inliers);
  const inFront = inliers.filter((k) => countInFront(pose.rotation, pose.translation, pointsA, pointsB, [k]) === 1);
  const inlierMatches = new Uint32Array(2 * inFront.length);
  inFront.forEach((k, m) => {
    inlierMatches[2 * m] = matches[2 * k];
    inlierMatches[2 * m + 1] = matches[2 * k + 1];
  });
  return { essential: model, rotation: pose.rotation, translation: pose.translation, inlierMatches, bandMatches: matches.length / 2 };
}

/**
 * Mutual nearest neighbours by descriptor angle among the pairs (a, b) within the band (Sampson
 * distance of normalised points under E at most `band`), each passing the ratio test against the
 * second nearest in its own band.
 */
export function bandMatches(
  descriptorsA: Uint8Array,
  descriptorsB: Uint8Array,
  normalisedA: Float64Array,
  normalisedB: Float64Array,
  e: Mat3,
  band: number,
  o: Pick<GuidedMatchingOptions, 'ratio' | 'maxDistance'>,
): Uint32Array {
  const countA = normalisedA.length / 2;
  const countB = normalisedB.length / 2;
  const bestA = new Float64Array(countA).fill(-2);
  const secondA = new Float64Array(countA).fill(-2);
  const indexA = new Int32Array(countA).fill(-1);
  const bestB = new Float64Array(countB).fill(-2);
  const secondB = new Float64Array(countB).fill(-2);
  const indexB = new Int32Array(countB).fill(-1);
  // E^T x2 per b (the line in image 1), for the Sampson denominator
  const lineB = new Float64Array(2 * countB);
  for (let b = 0; b < countB; b++) {
    const [x, y] = [normalisedB[2 * b], normalisedB[2 * b + 1]];
    lineB[2 * b] = e[0] * x + e[3] * y + e[6];
    lineB[2 * b + 1] = e[1] * x + e[4] * y + e[7];
  }
  const band2 = band * band;
  const scale = DESCRIPTOR_BYTE_SCALE * DESCRIPTOR_BYTE_SCALE;
  for (let a = 0; a < countA; a++) {
    const [x1, y1] = [normalisedA[2 * a], normalisedA[2 * a + 1]];
    const l0 = e[0] * x1 + e[1] * y1 + e[2];
    const l1 = e[3] * x1 + e[4] * y1 + e[5];
    const l2 = e[6] * x1 + e[7] * y1 + e[8];
    const offsetA = a * DESCRIPTOR_SIZE;
    for (let b = 0; b < countB; b++) {
      const residual = normalisedB[2 * b] * l0 + normalisedB[2 * b + 1] * l1 + l2;
      const denominator = l0 * l0 + l1 * l1 + lineB[2 * b] * lineB[2 * b] + lineB[2 * b + 1] * lineB[2 * b + 1];
      if (!(residual * residual <= band2 * denominator)) continue;
      let dot = 0;
      const offsetB = b * DESCRIPTOR_SIZE;
      for (let d = 0; d < DESCRIPTOR_SIZE; d++) dot += descriptorsA[offsetA + d] * descriptorsB[offsetB + d];
      const cosine = dot / scale;
      if (cosine > bestA[a]) {
        secondA[a] = bestA[a];
        bestA[a] = cosine;
        indexA[a] = b;
      } else if (cosine > secondA[a]) secondA[a] = cosine;
      if (cosine > bestB[b]) {
        secondB[b] = bestB[b];
        bestB[b] = cosine;
        indexB[b] = a;
      } else if (cosine > secondB[b]) secondB[b] = cosine;
    }
  }
  const passes = (best: number, second: number): boolean => {
    const distance = Math.acos(Math.min(1, best));
    if (distance > o.maxDistance) return false;
    return second < -1 || distance < o.ratio * Math.acos(Math.min(1, second));
  };
  const out: number[] = [];
  for (let a = 0; a < countA; a++) {
    const b = indexA[a];
    if (b < 0 || indexB[b] !== a || !passes(bestA[a], secondA[a]) || !passes(bestB[b], secondB[b])) continue;
    out.push(a, b);
  }
  return Uint32Array.from(out);
}

/** K^-1 x of every keypoint (x, y of each 4-float keypoint): normalisedCoordinates of their positions. */
export function normalisedKeypoints(keypoints: Float32Array, camera: PinholeIntrinsics): Float64Array {
  const positions = new Float64Array(keypoints.length / 2);
  for (let k = 0; k < keypoints.length / 4; k++) {
    positions[2 * k] = keypoints[4 * k];
    positions[2 * k + 1] = keypoints[4 * k + 1];
  }
  return normalisedCoordinates(positions, camera);
}

function gatherKeypoints(normalised: Float64Array, matches: Uint32Array, column: 0 | 1): Float64Array {
  const indices = Uint32Array.from({ length: matches.length / 2 }, (_, m) => matches[2 * m + column]);
  return gatherPoints(normalised, indices);
}

function withinSampson(e: Mat3, pointsA: Float64Array, pointsB: Float64Array, threshold: number): Uint32Array {
  const squared = new Float64Array(pointsA.length / 2);
  sampsonSquaredErrors(e, pointsA, pointsB, squared);
  const out: number[] = [];
  squared.forEach((s, k) => {
    if (s <= threshold * threshold) out.push(k);
  });
  return Uint32Array.from(out);
}
