import { describe, expect, it } from 'vitest';
import { Random } from '../../../../shared/random.js';
import { applyMat3, type Mat3, type Vec3 } from '../../../../main/engine/sfm/verify/dense.js';
import { calibratedHomography, decomposeHomography, poseFromHomography, scoreHomographyPoses } from '../../../../main/engine/sfm/verify/homography-decomposition.js';
import { estimateTwoViewGeometry, intrinsicMatrix, normalisedCoordinates } from '../../../../main/engine/sfm/verify/two-view-geometry.js';
import { TwoViewConfiguration } from '../../../../main/engine/sfm/verify/verify-options.js';
import { freshSeed } from '../../../helpers/random.js';
import { angleBetweenDeg, CAMERA, HEIGHT, rotationAngleDeg, rotationFromAxisAngle, WIDTH } from './verify-scenes.js';

const seed = freshSeed();

interface PlanarScene {
  rotation: Mat3;
  /** Unit direction of X2 = R X1 + t. */
  translation: Vec3;
  /** The plane n^T X1 = distance in camera 1's frame, n unit, facing away from camera 1. */
  normal: Vec3;
  distance: number;
  points1: Float64Array;
  points2: Float64Array;
}

/**
 * Camera 2 a unit sideways of camera 1, turned 3-15 degrees; a plane 4-8 units ahead tilted up to
 * ~35 degrees; `offPlane` of the points 0.5-2 units in front of or behind it (a table and the
 * object on it); pixels with Gaussian noise.
 */
function planarScene(sceneSeed: number, count: number, offPlane: number, noisePx: number): PlanarScene {
  const random = new Random(sceneSeed);
  const uniform = (lo: number, hi: number) => lo + (hi - lo) * random.next();
  const rotation = rotationFromAxisAngle([random.normal(), random.normal(), random.normal()], (uniform(3, 15) * Math.PI) / 180);
  const c: Vec3 = [uniform(-1, 1), uniform(-0.5, 0.5), uniform(-0.3, 0.3)];
  const length = Math.hypot(...c);
  const centre: Vec3 = [c[0] / length, c[1] / length, c[2] / length];
  const rc = applyMat3(rotation, centre);
  const translation: Vec3 = [-rc[0], -rc[1], -rc[2]];
  const tilt: Vec3 = [uniform(-0.7, 0.7), uniform(-0.7, 0.7), 1];
  const tiltLength = Math.hypot(...tilt);
  const normal: Vec3 = [tilt[0] / tiltLength, tilt[1] / tiltLength, tilt[2] / tiltLength];
  const distance = uniform(4, 8) * normal[2];
  const points1: number[] = [];
  const points2: number[] = [];
  for (let guard = 0; points1.length < 2 * count && guard < 1000 * count; guard++) {
    const ray: Vec3 = [uniform(-0.6, 0.6), uniform(-0.5, 0.5), 1];
    let depth = distance / (normal[0] * ray[0] + normal[1] * ray[1] + normal[2]);
    if (random.next() < offPlane) depth += uniform(0.5, 2) * (random.next() < 0.5 ? -1 : 1);
    if (!(depth > 0.5)) continue;
    const x2 = applyMat3(rotation, [ray[0] * depth, ray[1] * depth, depth]).map((v, i) => v + translation[i]) as Vec3;
    if (x2[2] <= 0.5) continue;
    const [u1, v1] = [CAMERA.focalX * ray[0] + CAMERA.principalX, CAMERA.focalY * ray[1] + CAMERA.principalY];
    const [u2, v2] = [CAMERA.focalX * (x2[0] / x2[2]) + CAMERA.principalX, CAMERA.focalY * (x2[1] / x2[2]) + CAMERA.principalY];
    if (u2 < 0 || u2 >= WIDTH || v2 < 0 || v2 >= HEIGHT) continue;
    points1.push(u1 + noisePx * random.normal(), v1 + noisePx * random.normal());
    points2.push(u2 + noisePx * random.normal(), v2 + noisePx * random.normal());
  }
  return { rotation, translation, normal, distance, points1: Float64Array.from(points1), points2: Float64Array.from(points2) };
}

const all = (n: number) => Array.from({ length: n }, (_, k) => k);

describe(`homography decomposition (seed ${seed})`, () => {
  it('finds the true R, t and n among the 4 candidates of an exact G = R + t n^T / d (the arbitrary scale and sign of a fitted H: the verified cases below)', () => {
    for (let k = 0; k < 10; k++) {
      const scene = planarScene(seed + k, 50, 0, 0);
      const baseline = 0.3 + k * 0.2;
      const g = scene.rotation.map((r, i) => r + (baseline * scene.translation[Math.floor(i / 3)] * scene.normal[i % 3]) / scene.distance);
      const candidates = decomposeHomography(g);
      expect(candidates).toHaveLength(4);
      const best = Math.min(...candidates.map((c) => rotationAngleDeg(c.rotation, scene.rotation) + angleBetweenDeg(c.translation, scene.translation) + angleBetweenDeg(c.normal, scene.normal)));
      expect(best).toBeLessThan(1e-5);
      const truth = candidates.find((c) => rotationAngleDeg(c.rotation, scene.rotation) < 1e-5 && angleBetweenDeg(c.translation, scene.translation) < 1e-5)!;
      expect(truth.baselineOverDistance).toBeCloseTo(baseline / scene.distance, 9);
      // every candidate reproduces G
      for (const c of candidates) {
        const rebuilt = c.rotation.map((r, i) => r + c.baselineOverDistance * c.translation[Math.floor(i / 3)] * c.normal[i % 3]);
        for (let i = 0; i < 9; i++) expect(rebuilt[i]).toBeCloseTo(g[i], 9);
      }
    }
  });

  it('gives a pure rotation (no baseline) one candidate, the rotation itself', () => {
    const rotation = rotationFromAxisAngle([1, 2, 3], 0.2);
    const [only, ...rest] = decomposeHomography(rotation);
    expect(rest).toHaveLength(0);
    expect(rotationAngleDeg(only.rotation, rotation)).toBeLessThan(1e-5);
    expect(only.baselineOverDistance).toBe(0);
  });

  it('recovers R within 0.5 deg and t within 1.5 deg from a verified plane with objects on it (10% off the plane, 0.5 px noise)', () => {
    for (let k = 0; k < 5; k++) {
      const scene = planarScene(seed + 100 + k, 400, 0.1, 0.5);
      const geometry = estimateTwoViewGeometry(scene.points1, scene.points2, [CAMERA, CAMERA], { planarInliers: 'larger', seed: seed + k });
      expect([TwoViewConfiguration.PLANAR, TwoViewConfiguration.CALIBRATED]).toContain(geometry.configuration);
      const inliers = Array.from(geometry.inliers);
      const [n1, n2] = [normalisedCoordinates(scene.points1, CAMERA), normalisedCoordinates(scene.points2, CAMERA)];
      const pose = poseFromHomography(geometry.homography!, intrinsicMatrix(CAMERA), intrinsicMatrix(CAMERA), n1, n2, inliers, 4 / CAMERA.focalX)!;
      const rotationError = rotationAngleDeg(pose.rotation, scene.rotation);
      const translationError = angleBetweenDeg(pose.translation, scene.translation);
      // the pose is as good as H's fit to the plane's points: measured R 0.02-0.38 deg (mostly under
      // 0.07), t 0.1-0.9 deg over 40 scenes; the exact case above is the decomposition's own accuracy
      expect(rotationError, `scene ${k}: R ${rotationError} deg`).toBeLessThan(0.5);
      expect(translationError, `scene ${k}: t ${translationError} deg`).toBeLessThan(1.5);
      expect(pose.planeInFront).toBeGreaterThan(0.95 * inliers.length);
    }
  });

  it('on a plane alone keeps the true pose among the candidates that pass the plane-in-front test, and picks one that explains every inlier', () => {
    for (let k = 0; k < 5; k++) {
      const scene = planarScene(seed + 200 + k, 300, 0, 0.5);
      const geometry = estimateTwoViewGeometry(scene.points1, scene.points2, [CAMERA, CAMERA]);
      expect(geometry.configuration).toBe(TwoViewConfiguration.PLANAR);
      const inliers = Array.from(geometry.inliers);
      const [n1, n2] = [normalisedCoordinates(scene.points1, CAMERA), normalisedCoordinates(scene.points2, CAMERA)];
      const inverseK = Float64Array.from([1 / CAMERA.focalX, 0, -CAMERA.principalX / CAMERA.focalX, 0, 1 / CAMERA.focalY, -CAMERA.principalY / CAMERA.focalY, 0, 0, 1]);
      const g = calibratedHomography(geometry.homography!, inverseK, intrinsicMatrix(CAMERA), n1, n2, inliers);
      const scored = scoreHomographyPoses(decomposeHomography(g), n1, n2, inliers, 4 / CAMERA.focalX);
      const passing = scored.filter((c) => c.planeInFront >= inliers.length / 2);
      // the negation of the true candidate puts the plane behind camera 1 for every inlier
      expect(passing.length).toBeLessThan(4);
      const truth = passing.find((c) => rotationAngleDeg(c.rotation, scene.rotation) < 0.3 && angleBetweenDeg(c.translation, scene.translation) < 3);
      expect(truth?.planeInFront).toBeGreaterThan(0.95 * inliers.length);
      const pose = poseFromHomography(geometry.homography!, intrinsicMatrix(CAMERA), intrinsicMatrix(CAMERA), n1, n2, inliers, 4 / CAMERA.focalX)!;
      expect(pose.consistent).toBeGreaterThan(0.95 * inliers.length);
    }
  });

  it('refuses a singular homography', () => {
    const n = new Float64Array(8);
    expect(poseFromHomography(new Float64Array(9), intrinsicMatrix(CAMERA), intrinsicMatrix(CAMERA), n, n, all(4), 0.005)).toBeUndefined();
  });
});
