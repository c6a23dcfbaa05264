import { describe, expect, it } from 'vitest';
import { globalMapping } from '../../../../../main/engine/sfm/global/global-mapper.js';
import { cameraCentre } from '../../../../../main/engine/sfm/global/so3.js';
import type { Vec3 } from '../../../../../main/engine/sfm/verify/dense.js';
import { freshSeed } from '../../../../helpers/random.js';
import { median, rotationErrorsDeg, similarityAligned } from './alignment.js';
import { syntheticScene, type SceneOptions } from './global-scenes.js';

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
});
