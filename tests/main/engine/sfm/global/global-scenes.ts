/**
 * Synthetic scenes for global mapping: cameras on a circle (or scattered on a sphere) around a
 * cloud of points, every point projected through a pinhole camera with Gaussian pixel noise; each
 * image's keypoints are its visible points in shuffled order. Pairs sharing enough points become
 * verified pairs whose relative pose is the true one slightly perturbed (what verification gives:
 * 0.02-0.1 deg, docs/sfm.md) and whose inlier matches are the shared points; a share of pairs is
 * made wrong (a random rotation and direction, random matches), as a repeated texture or a
 * symmetric object gives.
 */
import { Random } from '../../../../../shared/random.js';
import { applyMat3, multiply3, normalise3, transpose3, type Mat3, type Vec3 } from '../../../../../main/engine/sfm/verify/dense.js';
import { rotationFromVector } from '../../../../../main/engine/sfm/verify/rotation.js';
import { TwoViewConfiguration, type PinholeIntrinsics } from '../../../../../main/engine/sfm/verify/verify-options.js';
import type { VerifiedPair } from '../../../../../main/engine/sfm/verify/verify-pairs.js';
import type { CameraPose } from '../../../../../main/engine/sfm/global/triangulate.js';

export const WIDTH = 1000;
export const HEIGHT = 800;
export const CAMERA: PinholeIntrinsics = { focalX: 800, focalY: 800, principalX: 500, principalY: 400 };

export interface SceneOptions {
  cameras: number;
  points: number;
  layout: 'circle' | 'sphere';
  noisePx: number;
  /** Share of pairs replaced by a wrong pose and random matches. */
  wrongEdgeRatio: number;
  /** Standard deviation of the relative poses' perturbation, degrees (rotation and direction). */
  poseNoiseDeg: number;
  /** A pair needs this many shared points to be verified. */
  minShared: number;
}

export interface SyntheticScene {
  poses: CameraPose[];
  centres: Vec3[];
  points: Vec3[];
  /** keypoints[image]: x, y, scale, orientation per keypoint. */
  keypoints: Float32Array[];
  /** pointOf[image][keypoint]: the scene point it sees. */
  pointOf: Int32Array[];
  verified: VerifiedPair[];
  /** Indices into `verified` of the pairs made wrong. */
  wrong: Set<number>;
  cameras: PinholeIntrinsics[];
}

/** World to camera for a camera at `centre` looking at `target`, rolled by `roll` radians. */
export function lookAt(centre: Vec3, target: Vec3, roll: number): CameraPose {
  const forward = normalise3([target[0] - centre[0], target[1] - centre[1], target[2] - centre[2]]);
  const upGuess: Vec3 = Math.abs(forward[1]) > 0.95 ? [1, 0, 0] : [0, 1, 0];
  const right = normalise3(cross(upGuess, forward));
  const down = cross(forward, right);
  const base = Float64Array.from([...right, ...down, ...forward]);
  const rotation = multiply3(rotationFromVector([0, 0, roll]), base);
  const rc = applyMat3(rotation, centre);
  return { rotation, translation: [-rc[0], -rc[1], -rc[2]] };
}

export function syntheticScene(seed: number, options: SceneOptions): SyntheticScene {
  const random = new Random(seed);
  const uniform = (lo: number, hi: number) => lo + (hi - lo) * random.next();
  const centres: Vec3[] = [];
  const poses: CameraPose[] = [];
  for (let i = 0; i < options.cameras; i++) {
    let centre: Vec3;
    if (options.layout === 'circle') {
      const angle = (2 * Math.PI * i) / options.cameras + uniform(-0.02, 0.02);
      centre = [4 * Math.cos(angle), uniform(-0.3, 0.3), 4 * Math.sin(angle)];
    } else {
      const d = normalise3([random.normal(), 0.5 * random.normal(), random.normal()]);
      const radius = uniform(3.5, 5);
      centre = [radius * d[0], radius * d[1], radius * d[2]];
    }
    centres.push(centre);
    poses.push(lookAt(centre, [uniform(-0.2, 0.2), uniform(-0.2, 0.2), uniform(-0.2, 0.2)], uniform(-0.2, 0.2)));
  }
  const points: Vec3[] = Array.from({ length: options.points }, () => [uniform(-1.2, 1.2), uniform(-1.2, 1.2), uniform(-1.2, 1.2)]);
  const keypoints: Float32Array[] = [];
  const pointOf: Int32Array[] = [];
  const keypointOf: Map<number, number>[] = [];
  for (const pose of poses) {
    const seen: { point: number; x: number; y: number }[] = [];
    points.forEach((p, k) => {
      const q = applyMat3(pose.rotation, p);
      const z = q[2] + pose.translation[2];
      if (z <= 0.1) return;
      const x = CAMERA.focalX * ((q[0] + pose.translation[0]) / z) + CAMERA.principalX;
      const y = CAMERA.focalY * ((q[1] + pose.translation[1]) / z) + CAMERA.principalY;
      if (x < 0 || x >= WIDTH || y < 0 || y >= HEIGHT) return;
      seen.push({ point: k, x: x + options.noisePx * random.normal(), y: y + options.noisePx * random.normal() });
    });
    const order = random.permutation(seen.length);
    const kp = new Float32Array(4 * seen.length);
    const of = new Int32Array(seen.length);
    const index = new Map<number, number>();
    order.forEach((s, k) => {
      kp.set([seen[s].x, seen[s].y, 2, 0], 4 * k);
      of[k] = seen[s].point;
      index.set(seen[s].point, k);
    });
    keypoints.push(kp);
    pointOf.push(of);
    keypointOf.push(index);
  }
  const verified: VerifiedPair[] = [];
  const wrong = new Set<number>();
  const noise = (options.poseNoiseDeg * Math.PI) / 180;
  for (let a = 0; a < options.cameras; a++) {
    for (let b = a + 1; b < options.cameras; b++) {
      const shared: number[] = [];
      for (const [point, k] of keypointOf[a]) if (keypointOf[b].has(point)) shared.push(k, keypointOf[b].get(point)!);
      if (shared.length / 2 < options.minShared) continue;
      const isWrong = random.next() < options.wrongEdgeRatio;
      let rotation: Mat3;
      let translation: Vec3;
      let matches: Uint32Array;
      if (isWrong) {
        rotation = rotationFromVector([uniform(-2, 2), uniform(-2, 2), uniform(-2, 2)]);
        translation = normalise3([random.normal(), random.normal(), random.normal()]);
        const n = shared.length / 2;
        const pa = random.permutation(keypoints[a].length / 4).slice(0, n);
        const pb = random.permutation(keypoints[b].length / 4).slice(0, n);
        matches = Uint32Array.from(pa.flatMap((k, i) => [k, pb[i]]));
      } else {
        const trueRotation = multiply3(poses[b].rotation, transpose3(poses[a].rotation));
        const rt = applyMat3(trueRotation, poses[a].translation);
        const trueTranslation = normalise3([poses[b].translation[0] - rt[0], poses[b].translation[1] - rt[1], poses[b].translation[2] - rt[2]]);
        rotation = multiply3(rotationFromVector([noise * random.normal(), noise * random.normal(), noise * random.normal()]), trueRotation);
        translation = normalise3(applyMat3(rotationFromVector([noise * random.normal(), noise * random.normal(), noise * random.normal()]), trueTranslation));
        matches = Uint32Array.from(shared);
      }
      if (isWrong) wrong.add(verified.length);
      const n = matches.length / 2;
      verified.push({
        pair: [a, b],
        inlierMatches: matches,
        geometry: {
          configuration: TwoViewConfiguration.CALIBRATED,
          inliers: Uint32Array.from({ length: n }, (_, k) => k),
          rotation,
          translation,
          inlierCounts: { essential: n, fundamental: n, homography: Math.floor(n / 3) },
        },
      });
    }
  }
  return { poses, centres, points, keypoints, pointOf, verified, wrong, cameras: poses.map(() => CAMERA) };
}

function cross(a: Vec3, b: Vec3): Vec3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}
