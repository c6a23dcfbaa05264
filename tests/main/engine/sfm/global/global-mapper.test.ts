import { describe, expect, it } from 'vitest';
import { globalMapping } from '../../../../../main/engine/sfm/global/global-mapper.js';
import { cameraCentre } from '../../../../../main/engine/sfm/global/so3.js';
import type { Vec3 } from '../../../../../main/engine/sfm/verify/dense.js';
import { freshSeed } from '../../../../helpers/random.js';
import { median, rotationErrorsDeg, similarityAligned } from './alignment.js';
import { TwoViewConfiguration } from '../../../../../main/engine/sfm/verify/verify-options.js';
import { verifyPairs, type VerifiedPair } from '../../../../../main/engine/sfm/verify/verify-pairs.js';
import { Random } from '../../../../../shared/random.js';
import { CAMERA, syntheticScene, type SceneOptions } from './global-scenes.js';

const seed = freshSeed();

const BASE: SceneOptions = { cameras: 40, points: 2000, layout: 'circle', noisePx: 0.5, wrongEdgeRatio: 0.15, poseNoiseDeg: 0.1, minShared: 30 };

function sceneSize(centres: readonly Vec3[]): number {
  let size = 0;
  for (const a of centres) for (const b of centres) size = Math.max(size, Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]));
  return size;
}

describe(`global mapping of synthetic scenes (seed ${seed})`, () => {
  for (const layout of ['circle', 'sphere'] as const) {
    it(`registers every camera of a ${layout} of 40 with 15% wrong pairs: rotations and centres match the truth`, () => {
      const scene = syntheticScene(seed, { ...BASE, layout });
      const started = performance.now();
      const result = globalMapping({ imageCount: scene.poses.length, verified: scene.verified, keypoints: scene.keypoints, cameras: scene.cameras });
      const ms = performance.now() - started;
      const registered = result.poses.map((p, i) => (p ? i : -1)).filter((i) => i >= 0);
      const rotationErrors = rotationErrorsDeg(registered.map((i) => result.poses[i]!.rotation), registered.map((i) => scene.poses[i].rotation));
      const truth = registered.map((i) => scene.centres[i]);
      const aligned = similarityAligned(registered.map((i) => cameraCentre(result.poses[i]!.rotation, result.poses[i]!.translation)), truth);
      const size = sceneSize(truth);
      const positionErrors = aligned.map((p, k) => Math.hypot(p[0] - truth[k][0], p[1] - truth[k][1], p[2] - truth[k][2]) / size);
      const s = result.stats;
      console.log(
        `${layout}: ${registered.length}/${scene.poses.length} registered, ${scene.verified.length} pairs (${scene.wrong.size} wrong), ${s.edgesUsed} used, ` +
          `rotation error median ${median(rotationErrors).toFixed(4)} max ${Math.max(...rotationErrors).toFixed(4)} deg, ` +
          `position error median ${(100 * median(positionErrors)).toFixed(3)}% max ${(100 * Math.max(...positionErrors)).toFixed(3)}% of ${size.toFixed(2)}, ` +
          `${result.points.length} points of ${s.tracks} tracks (${s.inconsistentTracks} inconsistent, rejected ${JSON.stringify(s.rejectedTracks)}), ` +
          `${s.meanReprojectionErrorPx.toFixed(3)} px; rounds ${s.rotationRounds}, positioning ${s.positioningIterations.cameras} + ${s.positioningIterations.points}; ` +
          `${ms.toFixed(0)} ms (${Object.entries(s.stageMs).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ')})`,
      );
      expect(registered).toHaveLength(scene.poses.length);
      // Every wrong pair is dropped by the rotation filter, no right one.
      const used = new Set(result.droppedEdges.map((d) => `${d.first},${d.second}`));
      for (const k of scene.wrong) expect(used.has(scene.verified[k].pair.join(','))).toBe(true);
      expect(median(rotationErrors)).toBeLessThan(0.1);
      expect(Math.max(...rotationErrors)).toBeLessThan(0.5);
      expect(Math.max(...positionErrors)).toBeLessThan(0.01);
      expect(s.meanReprojectionErrorPx).toBeLessThan(2);
      expect(result.points.length).toBeGreaterThan(0.9 * scene.points.length);
    }, 120_000);
  }

  it('maps a scene through the real verification: raw matches with 30% outliers, verifyPairs, then globalMapping', () => {
    const scene = syntheticScene(seed, { cameras: 10, points: 500, layout: 'circle', noisePx: 0.5, wrongEdgeRatio: 0, poseNoiseDeg: 0, minShared: 40 });
    const random = new Random(seed ^ 0x51);
    const pairs = scene.verified.map((v) => v.pair);
    // The true matches plus 30% random ones, shuffled, as the matcher's output.
    const raw = scene.verified.map(({ pair, inlierMatches }) => {
      const list = Array.from(inlierMatches);
      const extra = Math.round((0.3 / 0.7) * (list.length / 2));
      // Each keypoint in one match at most, as the matcher's mutual check gives.
      const usedA = new Set(list.filter((_, k) => k % 2 === 0));
      const usedB = new Set(list.filter((_, k) => k % 2 === 1));
      const a = random.permutation(scene.keypoints[pair[0]].length / 4).filter((k) => !usedA.has(k));
      const b = random.permutation(scene.keypoints[pair[1]].length / 4).filter((k) => !usedB.has(k));
      for (let k = 0; k < Math.min(extra, a.length, b.length); k++) list.push(a[k], b[k]);
      const order = random.permutation(list.length / 2);
      return Uint32Array.from(order.flatMap((k) => [list[2 * k], list[2 * k + 1]]));
    });
    const verified = verifyPairs(pairs, raw, scene.keypoints, scene.cameras);
    const result = globalMapping({ imageCount: 10, verified, keypoints: scene.keypoints, cameras: scene.cameras });
    const rotationErrors = rotationErrorsDeg(result.poses.map((p) => p!.rotation), scene.poses.map((p) => p.rotation));
    const aligned = similarityAligned(result.poses.map((p) => cameraCentre(p!.rotation, p!.translation)), scene.centres);
    const size = sceneSize(scene.centres);
    const positionErrors = aligned.map((p, k) => Math.hypot(p[0] - scene.centres[k][0], p[1] - scene.centres[k][1], p[2] - scene.centres[k][2]) / size);
    console.log(`through verifyPairs: ${pairs.length} pairs, rotation error max ${Math.max(...rotationErrors).toFixed(3)} deg, position error max ${(100 * Math.max(...positionErrors)).toFixed(3)}%, ${result.points.length} points of ${result.stats.tracks} tracks (${result.stats.inconsistentTracks} inconsistent, rejected ${JSON.stringify(result.stats.rejectedTracks)}), ${result.stats.meanReprojectionErrorPx.toFixed(3)} px`);
    expect(result.unregistered).toEqual([]);
    expect(median(rotationErrors)).toBeLessThan(0.1);
    expect(Math.max(...rotationErrors)).toBeLessThan(0.5);
    expect(Math.max(...positionErrors)).toBeLessThan(0.01);
    expect(result.points.length).toBeGreaterThan(0.8 * scene.points.length);
  }, 300_000);

  it('registers the largest of two groups and reports the other, image by image', () => {
    const a = syntheticScene(seed, { ...BASE, cameras: 8, points: 400 , wrongEdgeRatio: 0 });
    const b = syntheticScene(seed + 1, { ...BASE, cameras: 4, points: 400, wrongEdgeRatio: 0 });
    const verified = [...a.verified, ...b.verified.map((v) => ({ ...v, pair: [v.pair[0] + 8, v.pair[1] + 8] as const }))];
    const result = globalMapping({ imageCount: 12, verified, keypoints: [...a.keypoints, ...b.keypoints], cameras: [...a.cameras, ...b.cameras] });
    expect(result.poses.slice(0, 8).every(Boolean)).toBe(true);
    expect(result.poses.slice(8).some(Boolean)).toBe(false);
    expect(result.unregistered.map((u) => u.image)).toEqual([8, 9, 10, 11]);
    for (const u of result.unregistered) expect(u.reason).toMatch(/separate group of 4 image\(s\), joined to the largest \(8 images\)/);
  });

  it('refuses a single image, images that no pair joins, and pure rotations, naming the problem and what to try', () => {
    const one = { imageCount: 1, verified: [], keypoints: [new Float32Array(0)], cameras: [CAMERA] };
    expect(() => globalMapping(one)).toThrow(/global-mapper\.ts: 1 image\(s\); mapping needs at least 2 that overlap/);
    const scene = syntheticScene(seed, { ...BASE, cameras: 5, points: 300, wrongEdgeRatio: 0 });
    const thin = scene.verified.map((v) => ({ ...v, inlierMatches: v.inlierMatches.subarray(0, 20), geometry: { ...v.geometry, inliers: v.geometry.inliers.subarray(0, 10) } }));
    expect(() => globalMapping({ imageCount: 5, verified: thin, keypoints: scene.keypoints, cameras: scene.cameras })).toThrow(/no two of the 5 images are joined by a verified pair with >= 15 inliers.*too few inliers.*try images that overlap more/);
    // All images identical (or turned on the spot): verification calls every pair PANORAMIC, t = 0.
    const panoramic: VerifiedPair[] = scene.verified.map((v) => ({ ...v, geometry: { ...v.geometry, configuration: TwoViewConfiguration.PANORAMIC, translation: [0, 0, 0] } }));
    expect(() => globalMapping({ imageCount: 5, verified: panoramic, keypoints: scene.keypoints, cameras: scene.cameras })).toThrow(/every pair that joins the images is a pure rotation.*move the camera between shots/);
  });

  it('is deterministic, and its points observe registered images only, within the reprojection bound', () => {
    const scene = syntheticScene(seed, { ...BASE, cameras: 12, points: 400, wrongEdgeRatio: 0.1 });
    const input = { imageCount: 12, verified: scene.verified, keypoints: scene.keypoints, cameras: scene.cameras };
    const [first, second] = [globalMapping(input), globalMapping(input)];
    expect(second.poses).toEqual(first.poses);
    expect(second.points).toEqual(first.points);
    for (const point of first.points) {
      expect(point.observations.length).toBeGreaterThanOrEqual(2);
      for (const o of point.observations) expect(first.poses[o.image]).toBeDefined();
      expect(point.meanErrorPx).toBeLessThanOrEqual(4);
    }
  });
});
