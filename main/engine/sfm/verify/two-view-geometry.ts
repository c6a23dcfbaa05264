/**
 * Two-view geometry of one image pair, COLMAP's way (EstimateCalibratedTwoViewGeometry): RANSAC
 * for E (with intrinsics, on normalised coordinates), F and H; the configuration from their inlier
 * counts; the relative pose from E (cheirality), or a pure rotation for a panorama.
 *
 * Decision (ratios of inlier counts; thresholds in VERIFY_DEFAULTS):
 * - every model below minInliers: DEGENERATE;
 * - E / F > 0.95 and E >= minInliers: CALIBRATED, unless H / E > 0.8: PLANAR_OR_PANORAMIC;
 * - else F >= minInliers: UNCALIBRATED, unless H / F > 0.8: PLANAR_OR_PANORAMIC;
 * - else H >= minInliers: PLANAR_OR_PANORAMIC; else DEGENERATE.
 * The inliers returned are those of E or F (the one with more), or H's where planar or panoramic
 * (planarInliers 'homography'; 'larger': H's only where it has more, COLMAP's rule).
 * With intrinsics, PLANAR_OR_PANORAMIC is split: PANORAMIC when one rotation (H = K2 R K1^-1,
 * fitted to H's inliers by Kabsch) explains >= 90% of H's inliers, t = 0; else PLANAR, with no
 * pose yet: a plane seen twice has two physically valid poses (E's twofold ambiguity, H's two
 * decompositions), and choosing between them is for the mapper's triangulation with a third view.
 */
import { inverse3, multiply3, type Mat3, type Vec3 } from './dense.js';
import { essentialEstimator } from './essential.js';
import { fundamentalEstimator } from './fundamental.js';
import { homographyEstimator, homographySquaredErrors } from './homography.js';
import { gatherPoints } from './point-normalisation.js';
import { ransac, type RansacOptions, type RansacReport } from './ransac.js';
import { poseFromEssential, rotationBetweenRays } from './relative-pose.js';
import { TwoViewConfiguration, VERIFY_DEFAULTS, type PinholeIntrinsics, type VerifyOptions } from './verify-options.js';

export interface TwoViewGeometry {
  configuration: TwoViewConfiguration;
  /** Indices into the pair's correspondences (its match list), ascending. */
  inliers: Uint32Array;
  essential?: Mat3;
  fundamental?: Mat3;
  homography?: Mat3;
  /** X2 = R X1 + t; t unit length, or 0 for PANORAMIC; absent unless CALIBRATED or PANORAMIC. */
  rotation?: Mat3;
  translation?: Vec3;
  inlierCounts: { essential: number; fundamental: number; homography: number };
}

/**
 * points1[2k..2k+1] in image 1 corresponds to points2[2k..2k+1] in image 2 (pixels). Without
 * cameras only F and H are estimated (UNCALIBRATED or PLANAR_OR_PANORAMIC at best).
 */
export function estimateTwoViewGeometry(
  points1: Float64Array,
  points2: Float64Array,
  cameras?: readonly [PinholeIntrinsics, PinholeIntrinsics],
  options: Partial<VerifyOptions> = {},
): TwoViewGeometry {
  const o = { ...VERIFY_DEFAULTS, ...options };
  if (points1.length !== points2.length || points1.length % 2 !== 0) {
    throw new Error(`two-view-geometry.ts: points1 (${points1.length}) and points2 (${points2.length}) must hold the same number of x, y pairs`);
  }
  const n = points1.length / 2;
  const ransacOptions: RansacOptions = { ...o, maxError: o.maxErrorPx };
  const degenerate = (counts: TwoViewGeometry['inlierCounts']): TwoViewGeometry => ({
    configuration: TwoViewConfiguration.DEGENERATE,
    inliers: new Uint32Array(0),
    inlierCounts: counts,
  });
  if (n < o.minInliers) return degenerate({ essential: 0, fundamental: 0, homography: 0 });

  const normalised = cameras ? [normalisedCoordinates(points1, cameras[0]), normalisedCoordinates(points2, cameras[1])] : undefined;
  const meanFocal = cameras ? (cameras[0].focalX + cameras[0].focalY + cameras[1].focalX + cameras[1].focalY) / 4 : 1;
  const e = normalised ? ransac(essentialEstimator, normalised[0], normalised[1], { ...ransacOptions, maxError: o.maxErrorPx / meanFocal }) : undefined;
  const f = ransac(fundamentalEstimator, points1, points2, ransacOptions);
  const h = ransac(homographyEstimator, points1, points2, ransacOptions);
  const counts = { essential: e?.inlierCount ?? 0, fundamental: f?.inlierCount ?? 0, homography: h?.inlierCount ?? 0 };
  if (counts.essential < o.minInliers && counts.fundamental < o.minInliers && counts.homography < o.minInliers) return degenerate(counts);

  let configuration: TwoViewConfiguration;
  let best: RansacReport<Mat3> | undefined;
  if (e && counts.essential / Math.max(counts.fundamental, 1) > o.minEssentialFundamentalRatio && counts.essential >= o.minInliers) {
    best = counts.essential >= counts.fundamental || !f ? e : f;
    configuration = counts.homography / counts.essential > o.maxHomographyRatio ? TwoViewConfiguration.PLANAR_OR_PANORAMIC : TwoViewConfiguration.CALIBRATED;
  } else if (f && counts.fundamental >= o.minInliers) {
    best = f;
    configuration = counts.homography / counts.fundamental > o.maxHomographyRatio ? TwoViewConfiguration.PLANAR_OR_PANORAMIC : TwoViewConfiguration.UNCALIBRATED;
  } else if (h && counts.homography >= o.minInliers) {
    best = h;
    configuration = TwoViewConfiguration.PLANAR_OR_PANORAMIC;
  } else return degenerate(counts);
  // A point-to-point model is stricter than a point-to-line one: where H explains the pair, its
  // inliers are kept even when E or F has a few more (those extra are mostly outliers that fell
  // near an epipolar line, in a truly planar scene). COLMAP keeps whichever is larger
  // (planarInliers 'larger'; H wins ties without intrinsics, as in its EstimateUncalibrated).
  if (configuration === TwoViewConfiguration.PLANAR_OR_PANORAMIC && h) {
    const homographyWins = cameras ? counts.homography > best.inlierCount : counts.homography >= best.inlierCount;
    if (o.planarInliers === 'homography' || homographyWins) best = h;
  }

  const geometry: TwoViewGeometry = {
    configuration,
    inliers: maskIndices(best.inlierMask),
    essential: e?.model,
    fundamental: f?.model,
    homography: h?.model,
    inlierCounts: counts,
  };
  if (!cameras || !normalised) return geometry;

  if (configuration === TwoViewConfiguration.PLANAR_OR_PANORAMIC && h) {
    const hInliers = maskIndices(h.inlierMask);
    const rotation = rotationBetweenRays(normalised[0], normalised[1], hInliers);
    const explained = rotationInliers(rotation, cameras, points1, points2, hInliers, o.maxErrorPx);
    if (explained >= o.minRotationInlierRatio * hInliers.length) {
      return { ...geometry, configuration: TwoViewConfiguration.PANORAMIC, rotation, translation: [0, 0, 0] };
    }
    geometry.configuration = TwoViewConfiguration.PLANAR;
  }
  if (e && geometry.configuration === TwoViewConfiguration.CALIBRATED) {
    const pose = poseFromEssential(e.model, normalised[0], normalised[1], maskIndices(e.inlierMask));
    geometry.rotation = pose.rotation;
    geometry.translation = pose.translation;
  }
  return geometry;
}

/** K^-1 x for every point: x' = (x - cx) / fx, y' = (y - cy) / fy. */
export function normalisedCoordinates(points: Float64Array, camera: PinholeIntrinsics): Float64Array {
  const out = new Float64Array(points.length);
  for (let k = 0; k < points.length; k += 2) {
    out[k] = (points[k] - camera.principalX) / camera.focalX;
    out[k + 1] = (points[k + 1] - camera.principalY) / camera.focalY;
  }
  return out;
}

export function intrinsicMatrix(camera: PinholeIntrinsics): Mat3 {
  return Float64Array.from([camera.focalX, 0, camera.principalX, 0, camera.focalY, camera.principalY, 0, 0, 1]);
}

/** How many of the chosen correspondences the homography K2 R K1^-1 maps within maxErrorPx. */
function rotationInliers(
  rotation: Mat3,
  cameras: readonly [PinholeIntrinsics, PinholeIntrinsics],
  points1: Float64Array,
  points2: Float64Array,
  indices: Uint32Array,
  maxErrorPx: number,
): number {
  const inverseK1 = inverse3(intrinsicMatrix(cameras[0]))!;
  const h = multiply3(multiply3(intrinsicMatrix(cameras[1]), rotation), inverseK1);
  const chosen1 = gatherPoints(points1, indices);
  const chosen2 = gatherPoints(points2, indices);
  const errors = new Float64Array(indices.length);
  homographySquaredErrors(h, chosen1, chosen2, errors);
  let count = 0;
  for (const error of errors) if (error <= maxErrorPx * maxErrorPx) count++;
  return count;
}

function maskIndices(mask: Uint8Array): Uint32Array {
  let count = 0;
  for (const m of mask) count += m;
  const out = new Uint32Array(count);
  let next = 0;
  for (let k = 0; k < mask.length; k++) if (mask[k]) out[next++] = k;
  return out;
}
