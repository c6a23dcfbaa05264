/**
 * Verified pairs as the front-end caches (statue-pairs.ts, posed-front-end.ts) store them in JSON
 * and back: plain number arrays for the typed ones, every field of the geometry kept.
 */
import type { TwoViewConfiguration } from '../../../../../main/engine/sfm/verify/verify-options.js';
import type { VerifiedPair } from '../../../../../main/engine/sfm/verify/verify-pairs.js';

export interface CachedPair {
  pair: [number, number];
  configuration: number;
  inliers: number[];
  rotation?: number[];
  translation?: number[];
  essential?: number[];
  fundamental?: number[];
  homography?: number[];
  inlierMatches: number[];
  inlierCounts: { essential: number; fundamental: number; homography: number };
}

export function cachedPairOf({ pair, geometry, inlierMatches }: VerifiedPair): CachedPair {
  return {
    pair: [pair[0], pair[1]],
    configuration: geometry.configuration,
    inliers: Array.from(geometry.inliers),
    rotation: geometry.rotation && Array.from(geometry.rotation),
    translation: geometry.translation && [...geometry.translation],
    essential: geometry.essential && Array.from(geometry.essential),
    fundamental: geometry.fundamental && Array.from(geometry.fundamental),
    homography: geometry.homography && Array.from(geometry.homography),
    inlierMatches: Array.from(inlierMatches),
    inlierCounts: geometry.inlierCounts,
  };
}

export function verifiedPairOf(p: CachedPair): VerifiedPair {
  return {
    pair: p.pair,
    inlierMatches: Uint32Array.from(p.inlierMatches),
    geometry: {
      configuration: p.configuration as TwoViewConfiguration,
      inliers: Uint32Array.from(p.inliers),
      rotation: p.rotation && Float64Array.from(p.rotation),
      translation: p.translation as [number, number, number] | undefined,
      essential: p.essential && Float64Array.from(p.essential),
      fundamental: p.fundamental && Float64Array.from(p.fundamental),
      homography: p.homography && Float64Array.from(p.homography),
      inlierCounts: p.inlierCounts,
    },
  };
}
