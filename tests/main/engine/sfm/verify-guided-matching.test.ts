import { describe, expect, it } from 'vitest';
import { crossMatrix, multiply3, type Mat3, type Vec3 } from '../../../../main/engine/sfm/verify/dense.js';
import { guidedRelativePose, normalisedKeypoints } from '../../../../main/engine/sfm/verify/guided-matching.js';
import { refineEssential } from '../../../../main/engine/sfm/verify/refine-essential.js';
import { poseFromEssential } from '../../../../main/engine/sfm/verify/relative-pose.js';
import { reestimatePairs } from '../../../../main/engine/sfm/verify/reestimate-pairs.js';
import { TwoViewConfiguration } from '../../../../main/engine/sfm/verify/verify-options.js';
import { DESCRIPTOR_SIZE } from '../../../../main/engine/sfm/sift-options.js';
import { Random } from '../../../../shared/random.js';
import { freshSeed } from '../../../helpers/random.js';
import { angleBetweenDeg, CAMERA, HEIGHT, rotationAngleDeg, rotationFromAxisAngle, syntheticPair, WIDTH } from './verify-scenes.js';

const seed = freshSeed();

/** A random RootSIFT-like descriptor: non-negative, unit length x 512, as bytes. */
function randomDescriptor(random: Random): Uint8Array {
  const v = Array.from({ length: DESCRIPTOR_SIZE }, () => random.next() ** 2);
  const n = Math.hypot(...v);
  return Uint8Array.from(v, (x) => Math.min(255, Math.round((512 * x) / n)));
}

/** Each byte moved by up to +-`amount` (descriptor noise between two views of one point). */
function jittered(d: Uint8Array, random: Random, amount: number): Uint8Array {
  return d.map((x) => Math.max(0, Math.min(255, x + Math.round((2 * random.next() - 1) * amount))));
}

/**
 * Two images of a general scene (300 points at 0.3 px): image 2's keypoints shuffled, 150
 * distractors with their own descriptors in each image, and for a third of the points a twin in
 * image 2 (the same descriptor at a random place: repeated texture, which the unguided ratio test
 * loses). Returns the features and, per keypoint of image 1, its true partner in image 2 (-1: none).
 */
function scene(random: Random) {
  const pair = syntheticPair(random.next() * 2 ** 32 >>> 0, 'general', 300, 0, 0.3);
  const n = pair.points1.length / 2;
  const order = random.permutation(n);
  const keypointsA: number[] = [];
  const keypointsB: number[] = new Array<number>(4 * n).fill(0);
  const descriptorsA: Uint8Array[] = [];
  const descriptorsB: Uint8Array[] = new Array<Uint8Array>(n);
  const partner: number[] = [];
  for (let k = 0; k < n; k++) {
    const d = randomDescriptor(random);
    keypointsA.push(pair.points1[2 * k], pair.points1[2 * k + 1], 2, 0);
    descriptorsA.push(d);
    const b = order[k];
    keypointsB.splice(4 * b, 4, pair.points2[2 * k], pair.points2[2 * k + 1], 2, 0);
    descriptorsB[b] = jittered(d, random, 3);
    partner.push(b);
  }
  for (let k = 0; k < n; k += 3) {
    keypointsB.push(random.next() * WIDTH, random.next() * HEIGHT, 2, 0);
    descriptorsB.push(jittered(descriptorsA[k], random, 3));
  }
  for (let k = 0; k < 150; k++) {
    keypointsA.push(random.next() * WIDTH, random.next() * HEIGHT, 2, 0);
    descriptorsA.push(randomDescriptor(random));
    partner.push(-1);
    keypointsB.push(random.next() * WIDTH, random.next() * HEIGHT, 2, 0);
    descriptorsB.push(randomDescriptor(random));
  }
  const pack = (ds: Uint8Array[]) => {
    const out = new Uint8Array(ds.length * DESCRIPTOR_SIZE);
    ds.forEach((d, k) => out.set(d, k * DESCRIPTOR_SIZE));
    return out;
  };
  return {
    pair,
    first: { keypoints: Float32Array.from(keypointsA), descriptors: pack(descriptorsA), camera: CAMERA },
    second: { keypoints: Float32Array.from(keypointsB), descriptors: pack(descriptorsB), camera: CAMERA },
    partner,
    trueCount: n,
  };
}

function essentialOf(rotation: Mat3, translation: Vec3): Mat3 {
  return multiply3(crossMatrix(translation), rotation);
}

/** The pose moved by `deg` about a random axis, and its translation tilted by `deg`. */
function perturbed(random: Random, rotation: Mat3, translation: Vec3, deg: number): Mat3 {
  const axis: Vec3 = [random.normal(), random.normal(), random.normal()];
  const rad = (deg * Math.PI) / 180;
  const tilt = rotationFromAxisAngle([random.normal(), random.normal(), random.normal()], rad);
  const t: Vec3 = [0, 1, 2].map((r) => tilt[3 * r] * translation[0] + tilt[3 * r + 1] * translation[1] + tilt[3 * r + 2] * translation[2]) as Vec3;
  return essentialOf(multiply3(rotationFromAxisAngle(axis, rad), rotation), t);
}

/** refineEssential from the true pose on the true correspondences alone: the pose the noise allows. */
function bestFit(s: ReturnType<typeof scene>) {
  const n = s.trueCount;
  const a = normalisedKeypoints(s.first.keypoints.subarray(0, 4 * n), CAMERA);
  const b = normalisedKeypoints(s.second.keypoints.subarray(0, 4 * n), CAMERA);
  const partnerB = new Float64Array(2 * n);
  for (let k = 0; k < n; k++) [partnerB[2 * k], partnerB[2 * k + 1]] = [b[2 * s.partner[k]], b[2 * s.partner[k] + 1]];
  const all = Uint32Array.from({ length: n }, (_, k) => k);
  const e = refineEssential(essentialOf(s.pair.rotation, s.pair.translation), a, partnerB, all);
  return poseFromEssential(e, a, partnerB, all);
}

function scoreMatches(matches: Uint32Array, partner: readonly number[]): { right: number; wrong: number } {
  let right = 0;
  for (let m = 0; m < matches.length; m += 2) if (partner[matches[m]] === matches[m + 1]) right++;
  return { right, wrong: matches.length / 2 - right };
}

describe(`guided matching and relative-pose re-estimation (seed ${seed})`, () => {
  it('from a pose 0.1 deg off: finds the twins the ratio test loses, no false matches, and the refit reaches the best fit of the true correspondences', () => {
    const random = new Random(seed);
    for (let trial = 0; trial < 5; trial++) {
      const s = scene(random);
      const guided = guidedRelativePose(s.first, s.second, perturbed(random, s.pair.rotation, s.pair.translation, 0.1));
      const { right, wrong } = scoreMatches(guided.inlierMatches, s.partner);
      expect(right, `trial ${trial}: ${right} of ${s.trueCount} true correspondences`).toBeGreaterThan(0.9 * s.trueCount);
      expect(wrong, `trial ${trial}`).toBeLessThanOrEqual(0.02 * s.trueCount);
      // the pose is noise-limited (0.01-0.1 deg from the truth at 0.3 px): it must be the minimum a
      // fit on the true correspondences reaches from the true pose (measured within 0.03 deg of
      // it, 0.1 deg of translation: the Cauchy weights differ with the sets)
      const best = bestFit(s);
      expect(rotationAngleDeg(guided.rotation, best.rotation), `trial ${trial}`).toBeLessThan(0.05);
      expect(angleBetweenDeg(guided.translation, best.translation), `trial ${trial}`).toBeLessThan(0.25);
      expect(rotationAngleDeg(guided.rotation, s.pair.rotation), `trial ${trial}`).toBeLessThan(0.2);
    }
  });

  it("a false pair (the first image's descriptors at random places in the second, a random pose) keeps under a tenth of what a true pair keeps", () => {
    const random = new Random(seed ^ 0x9e3779b9);
    for (let trial = 0; trial < 5; trial++) {
      const s = scene(random);
      const count = s.first.keypoints.length / 4;
      const second = { ...s.first, keypoints: Float32Array.from({ length: 4 * count }, (_, k) => (k % 4 === 0 ? random.next() * WIDTH : k % 4 === 1 ? random.next() * HEIGHT : k % 4 === 2 ? 2 : 0)) };
      const guided = guidedRelativePose(s.first, second, perturbed(random, rotationFromAxisAngle([random.normal(), random.normal(), random.normal()], 0.3), s.pair.translation, 0));
      expect(guided.inlierMatches.length / 2, `trial ${trial}`).toBeLessThan(0.1 * s.trueCount);
    }
  });

  it('reestimatePairs: an UNCALIBRATED pair comes back CALIBRATED from E = K2^T F K1; PLANAR passes unchanged', () => {
    const random = new Random(seed ^ 0x51ed);
    const s = scene(random);
    const e = perturbed(random, s.pair.rotation, s.pair.translation, 0.1);
    // F = K2^-T E K1^-1 for the shared camera
    const kInverse = Float64Array.from([1 / CAMERA.focalX, 0, -CAMERA.principalX / CAMERA.focalX, 0, 1 / CAMERA.focalY, -CAMERA.principalY / CAMERA.focalY, 0, 0, 1]);
    const kInverseT = Float64Array.from([kInverse[0], 0, 0, 0, kInverse[4], 0, kInverse[2], kInverse[5], 1]);
    const fundamental = multiply3(multiply3(kInverseT, e), kInverse);
    const counts = { essential: 0, fundamental: 40, homography: 0 };
    const [out, planar] = reestimatePairs(
      [
        { pair: [0, 1], inlierMatches: new Uint32Array(0), geometry: { configuration: TwoViewConfiguration.UNCALIBRATED, inliers: new Uint32Array(0), fundamental, inlierCounts: counts } },
        { pair: [0, 1], inlierMatches: Uint32Array.of(0, 0), geometry: { configuration: TwoViewConfiguration.PLANAR, inliers: Uint32Array.of(0), inlierCounts: counts } },
      ],
      [s.first, s.second],
      [CAMERA, CAMERA],
    );
    expect(out.geometry.configuration).toBe(TwoViewConfiguration.CALIBRATED);
    expect(out.geometry.inliers.length).toBe(out.inlierMatches.length / 2);
    expect(scoreMatches(out.inlierMatches, s.partner).right).toBeGreaterThan(0.9 * s.trueCount);
    expect(rotationAngleDeg(out.geometry.rotation!, s.pair.rotation)).toBeLessThan(0.2);
    expect(planar.geometry.configuration).toBe(TwoViewConfiguration.PLANAR);
    expect(planar.inlierMatches).toEqual(Uint32Array.of(0, 0));
  });
});
