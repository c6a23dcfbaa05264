/**
 * Relative-pose re-estimation of verified pairs with known intrinsics (guided-matching.ts per
 * pair): every CALIBRATED pair from its E, every UNCALIBRATED one from E = K2^T F K1 (with the
 * true camera, F's extra inliers are what no calibrated pose explains; the band of that E keeps
 * what one does), is matched again in the band of its pose, refit, and comes back CALIBRATED with
 * the inliers within inlierPx. PLANAR and PANORAMIC pairs pass unchanged (no E to guide by), as do
 * pairs whose images have no intrinsics. A pair whose re-estimation keeps fewer than 8 inliers
 * keeps them all the same: the view graph's minInliers drops it, with its count as the reason.
 */
import type { Features } from '../features.js';
import { multiply3, transpose3 } from './dense.js';
import { GUIDED_MATCHING_DEFAULTS, guidedRelativePose, type GuidedMatchingOptions } from './guided-matching.js';
import { intrinsicMatrix } from './two-view-geometry.js';
import { TwoViewConfiguration, type PinholeIntrinsics } from './verify-options.js';
import type { VerifiedPair } from './verify-pairs.js';

export function reestimatePairs(
  verified: readonly VerifiedPair[],
  features: readonly Pick<Features, 'keypoints' | 'descriptors'>[],
  cameras: readonly (PinholeIntrinsics | undefined)[],
  options: Partial<GuidedMatchingOptions> = {},
  onPair?: (done: number, total: number) => void,
): VerifiedPair[] {
  const o = { ...GUIDED_MATCHING_DEFAULTS, ...options };
  if (features.length !== cameras.length) throw new Error(`reestimate-pairs.ts: ${features.length} feature sets but ${cameras.length} cameras`);
  return verified.map((pair, p) => {
    onPair?.(p + 1, verified.length);
    const [a, b] = pair.pair;
    const [cameraA, cameraB] = [cameras[a], cameras[b]];
    const { configuration, essential, fundamental } = pair.geometry;
    if (!cameraA || !cameraB) return pair;
    let guide = configuration === TwoViewConfiguration.CALIBRATED ? essential : undefined;
    if (configuration === TwoViewConfiguration.UNCALIBRATED && fundamental) guide = multiply3(multiply3(transpose3(intrinsicMatrix(cameraB)), fundamental), intrinsicMatrix(cameraA));
    if (!guide) return pair;
    const image = (i: number, camera: PinholeIntrinsics) => ({ keypoints: features[i].keypoints, descriptors: features[i].descriptors, camera });
    const guided = guidedRelativePose(image(a, cameraA), image(b, cameraB), guide, o);
    const count = guided.inlierMatches.length / 2;
    return {
      pair: pair.pair,
      inlierMatches: guided.inlierMatches,
      geometry: {
        ...pair.geometry,
        configuration: TwoViewConfiguration.CALIBRATED,
        inliers: Uint32Array.from({ length: count }, (_, k) => k),
        essential: guided.essential,
        rotation: guided.rotation,
        translation: guided.translation,
      },
    };
  });
}
