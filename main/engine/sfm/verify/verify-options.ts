/**
 * Geometric verification's parameters: one source of truth for two-view-geometry.ts, the tests and
 * docs/sfm.md. The defaults are COLMAP 3.8's (TwoViewGeometryOptions and the SiftMatching RANSAC
 * options: max_error 4 px, min_num_inliers 15, confidence 0.999, max_num_trials 10000, min_inlier_ratio 0.25,
 * min_E_F_inlier_ratio 0.95, max_H_inlier_ratio 0.8), except what COLMAP has no counterpart for:
 * local optimisation steps, minIterations and the pure-rotation test (COLMAP decomposes H instead).
 */
export interface VerifyOptions {
  /** Inlier threshold in pixels (E's is this over the mean focal length of the two cameras). */
  maxErrorPx: number;
  /** Fewer inliers than this under every model: DEGENERATE. */
  minInliers: number;
  confidence: number;
  maxIterations: number;
  /** Draws made even when the confidence is reached earlier (guards against a lucky first sample). */
  minIterations: number;
  /** Inlier ratio below which RANSAC stops looking: caps the iterations (COLMAP's min_inlier_ratio). */
  minInlierRatio: number;
  localOptimisationSteps: number;
  /** E's inliers over F's above this: the intrinsics explain the pair (CALIBRATED). */
  minEssentialFundamentalRatio: number;
  /** H's inliers over E's (or F's) above this: PLANAR or PANORAMIC. */
  maxHomographyRatio: number;
  /** Of H's inliers, the share a pure rotation (K2 R K1^-1) also explains for PANORAMIC. */
  minRotationInlierRatio: number;
  /**
   * Whose inliers a PLANAR / PANORAMIC pair keeps: 'homography' (point-to-point, stricter: the
   * extra E / F inliers of a truly planar pair are mostly outliers near an epipolar line) or
   * 'larger', COLMAP's rule: H's only where it has more than E / F. Capture uses 'larger': on the
   * apple clip the extra F inliers (off the dominant plane) are 87% in the model's tracks.
   */
  planarInliers: 'homography' | 'larger';
  seed: number;
}

export const VERIFY_DEFAULTS: Readonly<VerifyOptions> = {
  maxErrorPx: 4,
  minInliers: 15,
  confidence: 0.999,
  maxIterations: 10000,
  minIterations: 30,
  minInlierRatio: 0.25,
  localOptimisationSteps: 4,
  minEssentialFundamentalRatio: 0.95,
  maxHomographyRatio: 0.8,
  minRotationInlierRatio: 0.9,
  planarInliers: 'homography',
  seed: 0x5eed,
};

/** COLMAP's TwoViewGeometry::ConfigurationType codes, as its database's two_view_geometries.config stores them. */
export const TwoViewConfiguration = {
  UNDEFINED: 0,
  DEGENERATE: 1,
  CALIBRATED: 2,
  UNCALIBRATED: 3,
  PLANAR: 4,
  PANORAMIC: 5,
  PLANAR_OR_PANORAMIC: 6,
} as const;
export type TwoViewConfiguration = (typeof TwoViewConfiguration)[keyof typeof TwoViewConfiguration];

/** A pinhole camera in pixels, COLMAP's convention: the first pixel's centre is (0.5, 0.5). */
export interface PinholeIntrinsics {
  focalX: number;
  focalY: number;
  principalX: number;
  principalY: number;
}
