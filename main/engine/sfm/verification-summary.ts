/**
 * What geometric verification found over a capture's pairs, in the terms the capture log and
 * `bench sfm` report: pairs the mapper will use, inliers per pair, and how many pairs fell in each
 * of COLMAP's configurations (verify/verify-options.ts).
 */
import type { VerifiedPair } from './verify/verify-pairs.js';
import { TwoViewConfiguration, VERIFY_DEFAULTS } from './verify/verify-options.js';
import { median } from '../../../shared/math/median.js';

export type ConfigurationName = keyof typeof TwoViewConfiguration;

export interface VerificationSummary {
  pairs: number;
  /** Pairs with at least minInliers inliers and not DEGENERATE: what COLMAP's mapper loads (its min_num_matches is 15 too). */
  verifiedPairs: number;
  minInliers: number;
  /** Over the verified pairs. */
  inliersPerPair: { mean: number; median: number; min: number; max: number };
  /** Pairs per configuration, every pair counted (DEGENERATE included); configurations no pair has are left out. */
  configurations: Partial<Record<ConfigurationName, number>>;
}

const NAMES = new Map(Object.entries(TwoViewConfiguration).map(([name, code]) => [code as number, name as ConfigurationName]));

export function configurationName(code: number): ConfigurationName | undefined {
  return NAMES.get(code);
}

/** Whether the mapper gets this pair (DatabaseCache::Load keeps pairs with >= min_num_matches inliers). */
export function isVerified(pair: VerifiedPair, minInliers = VERIFY_DEFAULTS.minInliers): boolean {
  return pair.geometry.configuration !== TwoViewConfiguration.DEGENERATE && pair.geometry.inliers.length >= minInliers;
}

export function summariseVerification(verified: readonly VerifiedPair[], minInliers = VERIFY_DEFAULTS.minInliers): VerificationSummary {
  const configurations: Partial<Record<ConfigurationName, number>> = {};
  for (const { geometry } of verified) {
    const name = configurationName(geometry.configuration) ?? 'UNDEFINED';
    configurations[name] = (configurations[name] ?? 0) + 1;
  }
  const inliers = verified.filter((v) => isVerified(v, minInliers)).map((v) => v.geometry.inliers.length).sort((a, b) => a - b);
  return {
    pairs: verified.length,
    verifiedPairs: inliers.length,
    minInliers,
    inliersPerPair: { mean: inliers.reduce((s, n) => s + n, 0) / Math.max(1, inliers.length), median: median(inliers), min: inliers[0] ?? 0, max: inliers.at(-1) ?? 0 },
    configurations,
  };
}
