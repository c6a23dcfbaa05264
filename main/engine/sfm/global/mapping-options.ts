/**
 * Global mapping's parameters: one source of truth for the stages, the tests and docs/sfm.md.
 * Where GLOMAP has a counterpart its default is named; the rest are ours, with the reason.
 */
export interface MappingOptions {
  /** An edge needs at least this many inliers (COLMAP's and GLOMAP's min_num_inliers: 15). */
  minInliers: number;
  /**
   * Estimate each camera's focal from its F-only (UNCALIBRATED) pairs before their relative poses
   * (view-graph-calibration.ts; GLOMAP's view-graph calibration). Pairs with E or a prior focal are
   * untouched, so input that is all CALIBRATED maps as without it. Off by default: on real photos
   * the F's pull focals short (8 statue photos, one camera each: 480 px -> 141-149, COLMAP's ~820;
   * 0.67 -> 1.23 px), and on the 23 the pairs do not fix it (docs/sfm.md); synthetic scenes
   * recover to 0.1%. BA's shared focal recovers the statue's from the guess instead.
   */
  viewGraphCalibration: boolean;
  /** Cauchy scale of a pair's calibration error (s1 - s2) / (s1 + s2) of E = K2^T F K1 (ours; GLOMAP's Cauchy scale on Fetzer's cost is 0.01). */
  calibrationLoss: number;
  /** A pair whose calibration error stays above this is left out of the view graph (ours; GLOMAP drops pairs on Fetzer's cost above 2). */
  maxCalibrationError: number;
  /**
   * L1 rounds of rotation averaging before the Geman-McClure IRLS, at most. Each is one reweighted
   * solve (GLOMAP runs 5 ADMM solves to convergence instead): 5 left a chain of 50 cameras with
   * 20% wrong edges 120 deg off, 50 reach the basin (rotation-averaging.test.ts).
   */
  rotationL1Iterations: number;
  /** Geman-McClure IRLS rounds at most (GLOMAP: 100). */
  rotationIrlsIterations: number;
  /**
   * The Geman-McClure scale in degrees. GLOMAP's is 5; 2 measured better on the statue photos,
   * whose verified relative rotations are off by 1.3 deg (median) against COLMAP's model: median
   * rotation error 0.81 deg against 1.25 at 5 (docs/sfm.md, "Global mapping").
   */
  rotationLossDeg: number;
  /** Edges whose relative rotation disagrees with the averaged ones by more than this are dropped and the averaging re-run (GLOMAP's relpose filter: 5 degrees). */
  maxRotationResidualDeg: number;
  /**
   * Rounds of positioning (each a weighted least-squares solve) at most, per stage. They converge
   * linearly; position-refinement.ts finishes the points stage, so they only need to come near:
   * on the statue 50 and 400 rounds give the same model after it.
   */
  positioningIterations: number;
  /**
   * The Cauchy scale of a direction residual |s (b - a) - v| (unit directions, so about radians):
   * 0.1 keeps directions within ~6 degrees at full weight (ours; GLOMAP's Huber uses 0.1 too).
   */
  positioningLoss: number;
  /**
   * The points stage's rounds stop once no camera moves more than this in a round (units of the
   * mean camera distance), and position-refinement.ts's Levenberg-Marquardt finishes: its result
   * does not depend on where they stopped (apple clip: cameras within 1e-7 of the scene of a run to
   * 100 rounds, at half the rounds; the rounds converge linearly, ~3.5% a round there).
   */
  positioningPointsConvergence: number;
  /**
   * The refinement stops when a step lowers its cost by less than this, relative: it converges
   * linearly too (Cauchy weights held fixed in each step: the gain fell ~3x a step on the apple
   * clip), and bundle adjustment follows; 1e-7 left cameras within 1e-7 of the scene of 1e-10's.
   */
  refinementTolerance: number;
  /** Refine centres jointly with points from camera-to-point directions (GLOMAP's positioning) after the pairwise stage. */
  positionWithPoints: boolean;
  /** Levenberg-Marquardt steps on the bounded residual after the points stage's rounds (position-refinement.ts), at most. */
  refinementIterations: number;
  /** Tracks used by the points stage of positioning (the longest first); all tracks are triangulated after. */
  positioningMaxTracks: number;
  /** ... and beyond that cap, tracks of any image that has fewer than this. */
  positioningMinTracksPerImage: number;
  /** A track's observation is dropped beyond this reprojection error, pixels (COLMAP's filter_max_reproj_error: 4). */
  maxReprojectionErrorPx: number;
  /** A point needs two rays at least this far apart, degrees (COLMAP's min_tri_angle: 1.5). */
  minTriangulationAngleDeg: number;
  /** Seed of the positioning's random start (GLOMAP starts from random centres too). */
  seed: number;
  /**
   * Bundle adjustments after global positioning (refine-mapping.ts), each followed by the
   * reprojection and angle filters above; between them tracks are completed and re-triangulated
   * with the refined cameras (GLOMAP: BA, retriangulation, BA, filter). 3 rounds.
   */
  bundleAdjustmentRounds: number;
  /** Complete and re-triangulate tracks between the rounds (GLOMAP's retriangulation). */
  retriangulateBetweenRounds: boolean;
}

export const MAPPING_DEFAULTS: Readonly<MappingOptions> = {
  minInliers: 15,
  viewGraphCalibration: false,
  calibrationLoss: 0.05,
  maxCalibrationError: 0.25,
  rotationL1Iterations: 50,
  rotationIrlsIterations: 100,
  rotationLossDeg: 2,
  maxRotationResidualDeg: 5,
  positioningIterations: 100,
  positioningLoss: 0.1,
  positionWithPoints: true,
  refinementIterations: 30,
  positioningPointsConvergence: 5e-4,
  refinementTolerance: 1e-7,
  positioningMaxTracks: 1000,
  positioningMinTracksPerImage: 50,
  maxReprojectionErrorPx: 4,
  minTriangulationAngleDeg: 1.5,
  seed: 0x61706c,
  bundleAdjustmentRounds: 3,
  retriangulateBetweenRounds: true,
};

/** Why an image is not in the mapped model: the report's per-image diagnostic. */
export interface UnregisteredImage {
  image: number;
  reason: string;
}
