/**
 * Relative pose from a plane's homography, float64. A calibrated homography (pixels undone by the
 * cameras: G = K2^-1 H K1) of a plane n^T X1 = d seen by two cameras (X2 = R X1 + t) is, up to
 * scale, G = R + t n^T / d. Decomposed by the SVD method (Faugeras and Lustman 1988; the form in
 * Ma, Soatto, Kosecka and Sastry, "An Invitation to 3-D Vision", section 5.3.3): G scaled to a
 * middle singular value of 1 gives 4 (R, t / d, n); two of them are its negations (the plane seen
 * from behind). The pose is chosen on the pair's inliers:
 * 1. the plane in front of both cameras: the depths it gives each inlier's ray (1 / n^T x1 in
 *    camera 1, d2 / (R n)^T x2 in camera 2, d2 = 1 + (R n)^T t) positive for most inliers;
 * 2. cheirality and the epipolar constraint: the most inliers triangulated in front of both
 *    cameras with a Sampson error of E = [t]x R under the threshold. Points on the plane satisfy
 *    every candidate's epipolar constraint (the twofold ambiguity of a plane seen twice); inliers
 *    off the plane (COLMAP's rule keeps F's where it has more) pick the true one;
 * 3. where every inlier lies on the plane the two stay within noise of each other (2%): the more
 *    frontal plane (normal nearer camera 1's optical axis) wins. COLMAP takes the first of the
 *    tied (PoseFromHomographyMatrix); a camera that films a surface mostly faces it, and the
 *    dual solution's normal leans towards the baseline. The mapper's rotation filter drops a
 *    wrong one against the other pairs.
 */
import { applyMat3, crossMatrix, determinant3, inverse3, multiply3, normalise3, svd3, transpose3, type Mat3, type Vec3 } from './dense.js';
import { countInFront } from './relative-pose.js';

export interface HomographyPose {
  rotation: Mat3;
  /** Unit direction of X2 = R X1 + t. */
  translation: Vec3;
  /** The plane's unit normal in camera 1's frame (pointing away from camera 1: n^T x1 > 0 in front). */
  normal: Vec3;
  /** |t| / d: the baseline over the plane's distance from camera 1 (0 for a pure rotation). */
  baselineOverDistance: number;
}

export interface ScoredHomographyPose extends HomographyPose {
  /** Inliers with both plane depths positive. */
  planeInFront: number;
  /** Inliers triangulated in front of both cameras with an epipolar error under the threshold (not counted, 0, for a candidate that fails the plane test when another passes it). */
  consistent: number;
  /** MSAC cost over the inliers: the sum of min(Sampson error^2, maxError^2), normalised units (Infinity where not counted). */
  cost: number;
}

const cross = (a: Vec3, b: Vec3): Vec3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const dot = (a: Vec3, b: Vec3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const column = (m: Mat3, c: number): Vec3 => [m[c], m[3 + c], m[6 + c]];
const fromColumns = (a: Vec3, b: Vec3, c: Vec3): Mat3 => Float64Array.from([a[0], b[0], c[0], a[1], b[1], c[1], a[2], b[2], c[2]]);

/**
 * The calibrated homography K2^-1 H K1 scaled to a middle singular value of 1, with the sign that
 * maps the given normalised points with a positive depth ratio (x2 ~ G x1, x2^T G x1 > 0 for most).
 */
export function calibratedHomography(homography: Mat3, inverseK2: Mat3, k1: Mat3, normalised1: Float64Array, normalised2: Float64Array, indices: ArrayLike<number>): Mat3 {
  const g = multiply3(multiply3(inverseK2, homography), k1);
  const { singularValues } = svd3(g);
  let positive = 0;
  for (let k = 0; k < indices.length; k++) {
    const i = indices[k];
    const mapped = applyMat3(g, [normalised1[2 * i], normalised1[2 * i + 1], 1]);
    if (dot(mapped, [normalised2[2 * i], normalised2[2 * i + 1], 1]) > 0) positive++;
  }
  const scale = (positive * 2 >= indices.length ? 1 : -1) / singularValues[1];
  return g.map((x) => x * scale);
}

/**
 * The 4 decompositions G = R + t' n^T of a calibrated homography scaled to a middle singular value
 * of 1 (calibratedHomography). Singular values within `rotationTolerance` of each other (relative)
 * mean no translation: one candidate, the rotation nearest G, t = 0.
 */
export function decomposeHomography(g: Mat3, rotationTolerance = 1e-9): HomographyPose[] {
  const gtg = multiply3(transpose3(g), g);
  const { singularValues: eigen, v: vRaw } = svd3(gtg); // symmetric: eigenvalues sigma^2, descending
  const v = determinant3(vRaw) < 0 ? vRaw.map((x) => -x) : vRaw;
  const [s1, , s3] = eigen;
  if (s1 - s3 <= rotationTolerance * s1) {
    const { u, v: w } = svd3(g);
    const flip = determinant3(multiply3(u, transpose3(w))) < 0 ? -1 : 1;
    const rotation = multiply3(u.map((x, i) => (i % 3 === 2 ? flip * x : x)), transpose3(w));
    return [{ rotation, translation: [0, 0, 0], normal: [0, 0, 1], baselineOverDistance: 0 }];
  }
  const [v1, v2, v3] = [column(v, 0), column(v, 1), column(v, 2)];
  const a = Math.sqrt(Math.max(0, 1 - s3));
  const b = Math.sqrt(Math.max(0, s1 - 1));
  const norm = Math.sqrt(s1 - s3);
  const candidates: HomographyPose[] = [];
  for (const sign of [1, -1]) {
    const u: Vec3 = [(a * v1[0] + sign * b * v3[0]) / norm, (a * v1[1] + sign * b * v3[1]) / norm, (a * v1[2] + sign * b * v3[2]) / norm];
    const gv2 = applyMat3(g, v2);
    const gu = applyMat3(g, u);
    const frameU = fromColumns(v2, u, cross(v2, u));
    const frameW = fromColumns(gv2, gu, cross(gv2, gu));
    const rotation = multiply3(frameW, transpose3(frameU));
    const normal = normalise3(cross(v2, u));
    // t' = (G - R) n
    const difference = g.map((x, i) => x - rotation[i]);
    const scaled = applyMat3(difference, normal);
    const length = Math.hypot(...scaled);
    const translation: Vec3 = length > 0 ? [scaled[0] / length, scaled[1] / length, scaled[2] / length] : [0, 0, 0];
    candidates.push({ rotation, translation, normal, baselineOverDistance: length });
    candidates.push({ rotation, translation: [-translation[0], -translation[1], -translation[2]], normal: [-normal[0], -normal[1], -normal[2]], baselineOverDistance: length });
  }
  return candidates;
}

/**
 * The candidates scored on the inliers (normalised coordinates), best first: most inliers
 * consistent (in front, epipolar error under maxError, normalised units) among those whose plane
 * lies in front of both cameras for at least half the inliers; ties keep decomposition order.
 */
export function scoreHomographyPoses(candidates: readonly HomographyPose[], normalised1: Float64Array, normalised2: Float64Array, indices: ArrayLike<number>, maxError: number): ScoredHomographyPose[] {
  const half = indices.length / 2;
  const inFront = candidates.map((candidate) => {
    const { rotation, normal, baselineOverDistance } = candidate;
    const t: Vec3 = candidate.translation.map((x) => x * baselineOverDistance) as Vec3;
    const normal2 = applyMat3(rotation, normal);
    const distance2 = 1 + dot(normal2, t);
    let planeInFront = 0;
    for (let k = 0; k < indices.length; k++) {
      const i = indices[k];
      const depth1 = 1 / dot(normal, [normalised1[2 * i], normalised1[2 * i + 1], 1]);
      const depth2 = distance2 / dot(normal2, [normalised2[2 * i], normalised2[2 * i + 1], 1]);
      if (depth1 > 0 && depth2 > 0) planeInFront++;
    }
    return planeInFront;
  });
  // The epipolar and cheirality count (a triangulation per inlier: most of the cost) only where it
  // can decide: for the candidates that pass the plane test, or for all when none does
  const anyPasses = inFront.some((count) => count >= half);
  const scored = candidates.map((candidate, k) => {
    const planeInFront = inFront[k];
    if (anyPasses && planeInFront < half) return { ...candidate, planeInFront, consistent: 0, cost: Infinity };
    const { kept, cost } = epipolarIndices(multiply3(crossMatrix(candidate.translation), candidate.rotation), normalised1, normalised2, indices, maxError);
    const consistent = countInFront(candidate.rotation, candidate.translation, normalised1, normalised2, kept);
    return { ...candidate, planeInFront, consistent, cost };
  });
  const passing = (c: ScoredHomographyPose) => c.planeInFront >= half;
  const bestConsistent = Math.max(0, ...scored.filter(passing).map((c) => c.consistent));
  // within 2% of the best count: the plane's twofold ambiguity, or points off the plane with too
  // little parallax to leave the looser pose's threshold; their epipolar errors still tell them
  // apart, so only those within AMBIGUOUS_COST of the lowest cost are the ambiguity, broken by the
  // more frontal plane
  const tiedCount = (c: ScoredHomographyPose) => passing(c) && c.consistent >= AMBIGUOUS_SHARE * bestConsistent;
  const bestCost = Math.min(...scored.filter(tiedCount).map((c) => c.cost));
  const tied = (c: ScoredHomographyPose) => tiedCount(c) && c.cost <= bestCost / AMBIGUOUS_COST;
  return scored
    .map((c, order) => ({ c, order }))
    .sort((x, y) => Number(passing(y.c)) - Number(passing(x.c)) || Number(tied(y.c)) - Number(tied(x.c)) || (tied(x.c) ? y.c.normal[2] - x.c.normal[2] : 0) || y.c.consistent - x.c.consistent || x.order - y.order)
    .map(({ c }) => c);
}

/**
 * Candidates explaining at least this share of the best one's consistent inliers may be the
 * plane's ambiguity, not a worse pose: a 10% share off the plane with parallax separates them by
 * 10%, noise by far less.
 */
const AMBIGUOUS_SHARE = 0.98;
/**
 * ... and they are when their MSAC cost is at least this fraction of the lowest: on a plane alone
 * both decompositions fit every point alike (the same noise, costs a few percent apart), while
 * points off the plane with little parallax (394 of 400 against 400 in the same threshold, R
 * 2 deg off: seeds 3583072233 and 2386177679 of verify-homography-decomposition.test.ts) cost the
 * wrong one many times the noise.
 */
const AMBIGUOUS_COST = 0.8;

/** The indices whose Sampson error under E (normalised coordinates) is at most maxError, and the MSAC cost over all of them. */
function epipolarIndices(e: Mat3, normalised1: Float64Array, normalised2: Float64Array, indices: ArrayLike<number>, maxError: number): { kept: number[]; cost: number } {
  const kept: number[] = [];
  let cost = 0;
  for (let k = 0; k < indices.length; k++) {
    const i = indices[k];
    const x1: Vec3 = [normalised1[2 * i], normalised1[2 * i + 1], 1];
    const x2: Vec3 = [normalised2[2 * i], normalised2[2 * i + 1], 1];
    const ex1 = applyMat3(e, x1);
    const etx2 = applyMat3(transpose3(e), x2);
    const c = dot(x2, ex1);
    const denominator = ex1[0] * ex1[0] + ex1[1] * ex1[1] + etx2[0] * etx2[0] + etx2[1] * etx2[1];
    const squared = denominator > 0 ? (c * c) / denominator : Infinity;
    if (squared <= maxError * maxError) kept.push(i);
    cost += Math.min(squared, maxError * maxError);
  }
  return { kept, cost };
}

/**
 * The relative pose of a planar pair from its homography (pixels) and cameras' K: the best scored
 * decomposition, or undefined when H is singular.
 */
export function poseFromHomography(homography: Mat3, k1: Mat3, k2: Mat3, normalised1: Float64Array, normalised2: Float64Array, indices: ArrayLike<number>, maxError: number): ScoredHomographyPose | undefined {
  const inverseK2 = inverse3(k2);
  if (!inverseK2 || !homography.every(Number.isFinite) || Math.abs(determinant3(homography)) < 1e-300) return undefined;
  const g = calibratedHomography(homography, inverseK2, k1, normalised1, normalised2, indices);
  if (!g.every(Number.isFinite)) return undefined;
  return scoreHomographyPoses(decomposeHomography(g), normalised1, normalised2, indices, maxError)[0];
}
