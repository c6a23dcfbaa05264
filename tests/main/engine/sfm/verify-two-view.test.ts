import { describe, expect, it } from 'vitest';
import { estimateTwoViewGeometry } from '../../../../main/engine/sfm/verify/two-view-geometry.js';
import { TwoViewConfiguration } from '../../../../main/engine/sfm/verify/verify-options.js';
import { freshSeed } from '../../../helpers/random.js';
import { angleBetweenDeg, CAMERA, recallPrecision, rotationAngleDeg, syntheticPair } from './verify-scenes.js';

const seed = freshSeed();
const SEEDS = [seed, seed + 1, seed + 2];
/** Outlier shares drawn per scene in the brief's 30-50% range. */
const outliers = (s: number): number => 0.3 + 0.2 * ((s % 5) / 4);

describe(`two-view geometry on synthetic pairs, 0.5 px noise, 30-50% outliers (seeds ${SEEDS.join(', ')})`, () => {
  it('general scene with intrinsics: CALIBRATED, R within 0.5 deg, t within 1 deg, inliers at >= 95% recall and precision', () => {
    for (const s of SEEDS) {
      const scene = syntheticPair(s, 'general', 600, outliers(s), 0.5);
      const g = estimateTwoViewGeometry(scene.points1, scene.points2, [CAMERA, CAMERA]);
      expect(g.configuration, `seed ${s}`).toBe(TwoViewConfiguration.CALIBRATED);
      expect(rotationAngleDeg(g.rotation!, scene.rotation), `seed ${s}`).toBeLessThan(0.5);
      expect(angleBetweenDeg(g.translation!, scene.translation), `seed ${s}`).toBeLessThan(1);
      const { recall, precision } = recallPrecision(g.inliers, scene.isInlier);
      expect(recall, `seed ${s}`).toBeGreaterThanOrEqual(0.95);
      expect(precision, `seed ${s}`).toBeGreaterThanOrEqual(0.95);
      expect(g.essential && g.fundamental && g.homography).toBeTruthy();
    }
  });

  it('general scene without intrinsics: UNCALIBRATED from F, no pose', () => {
    const scene = syntheticPair(seed, 'general', 600, outliers(seed), 0.5);
    const g = estimateTwoViewGeometry(scene.points1, scene.points2);
    expect(g.configuration).toBe(TwoViewConfiguration.UNCALIBRATED);
    expect(g.essential).toBeUndefined();
    expect(g.rotation).toBeUndefined();
    const { recall, precision } = recallPrecision(g.inliers, scene.isInlier);
    expect(recall).toBeGreaterThanOrEqual(0.95);
    expect(precision).toBeGreaterThanOrEqual(0.95);
  });

  it("planar scene: PLANAR, with the homography's inliers", () => {
    for (const s of SEEDS) {
      const scene = syntheticPair(s, 'planar', 600, outliers(s), 0.5);
      const g = estimateTwoViewGeometry(scene.points1, scene.points2, [CAMERA, CAMERA]);
      expect(g.configuration, `seed ${s}`).toBe(TwoViewConfiguration.PLANAR);
      expect(g.inliers.length).toBe(g.inlierCounts.homography);
      const { recall, precision } = recallPrecision(g.inliers, scene.isInlier);
      expect(recall, `seed ${s}`).toBeGreaterThanOrEqual(0.95);
      expect(precision, `seed ${s}`).toBeGreaterThanOrEqual(0.95);
    }
  });

  it("planarInliers 'larger' (COLMAP's rule, capture's): a planar pair keeps the larger of E / F's and H's inliers", () => {
    for (const s of SEEDS) {
      const scene = syntheticPair(s, 'planar', 600, outliers(s), 0.5);
      const calibrated = estimateTwoViewGeometry(scene.points1, scene.points2, [CAMERA, CAMERA], { planarInliers: 'larger' });
      expect(calibrated.configuration, `seed ${s}`).toBe(TwoViewConfiguration.PLANAR);
      const c = calibrated.inlierCounts;
      expect(calibrated.inliers.length, `seed ${s}`).toBe(Math.max(c.essential, c.fundamental, c.homography));
      expect(recallPrecision(calibrated.inliers, scene.isInlier).recall, `seed ${s}`).toBeGreaterThanOrEqual(0.95);
      const uncalibrated = estimateTwoViewGeometry(scene.points1, scene.points2, undefined, { planarInliers: 'larger' });
      expect(uncalibrated.configuration, `seed ${s}`).toBe(TwoViewConfiguration.PLANAR_OR_PANORAMIC);
      const u = uncalibrated.inlierCounts;
      expect(uncalibrated.inliers.length, `seed ${s}`).toBe(Math.max(u.fundamental, u.homography));
      // the default keeps H's, a subset-sized set no larger
      expect(estimateTwoViewGeometry(scene.points1, scene.points2).inliers.length, `seed ${s}`).toBe(u.homography);
    }
  });

  it('pure rotation: PANORAMIC, R within 0.5 deg, t = 0', () => {
    for (const s of SEEDS) {
      const scene = syntheticPair(s, 'rotation', 600, outliers(s), 0.5);
      const g = estimateTwoViewGeometry(scene.points1, scene.points2, [CAMERA, CAMERA]);
      expect(g.configuration, `seed ${s}`).toBe(TwoViewConfiguration.PANORAMIC);
      expect(rotationAngleDeg(g.rotation!, scene.rotation), `seed ${s}`).toBeLessThan(0.5);
      expect(g.translation).toEqual([0, 0, 0]);
      expect(recallPrecision(g.inliers, scene.isInlier).recall).toBeGreaterThanOrEqual(0.95);
    }
  });

  // 20 random matches: the best model's inliers are its own sample (8 for F) and the few chance
  // ones within 4 px of a line. Over 480 seeds the best held 9-12 of 20, 12 once. Of 60 random
  // matches it held 11-15, and 15 (the minimum: a verified pair) on 2 seeds of 45 (seed 5004: F
  // 15 of 60): there the right answer is UNCALIBRATED, so 60 asked for what chance breaks.
  it('random matches, or fewer than 15: DEGENERATE with no inliers', () => {
    const scene = syntheticPair(seed, 'general', 20, 1, 0.5);
    const g = estimateTwoViewGeometry(scene.points1, scene.points2, [CAMERA, CAMERA]);
    expect(g.configuration, `seed ${seed}: ${JSON.stringify(g.inlierCounts)}`).toBe(TwoViewConfiguration.DEGENERATE);
    expect(g.inliers).toHaveLength(0);
    const few = syntheticPair(seed, 'general', 14, 0, 0.5);
    expect(estimateTwoViewGeometry(few.points1, few.points2, [CAMERA, CAMERA]).configuration).toBe(TwoViewConfiguration.DEGENERATE);
  });

  it('rejects point lists of different lengths, naming the file', () => {
    expect(() => estimateTwoViewGeometry(new Float64Array(40), new Float64Array(38))).toThrow(/two-view-geometry\.ts.*40.*38/);
  });
});
