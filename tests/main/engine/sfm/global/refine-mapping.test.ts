import { describe, expect, it } from 'vitest';
import { BA_DEFAULTS, bundleAdjustCpu } from '../../../../../main/engine/sfm/bundle/bundle-adjust-cpu.js';
import type { BundleAdjuster } from '../../../../../main/engine/sfm/bundle/problem.js';
import { globalMapping } from '../../../../../main/engine/sfm/global/global-mapper.js';
import { refineMapping } from '../../../../../main/engine/sfm/global/refine-mapping.js';
import type { Observation } from '../../../../../main/engine/sfm/global/tracks.js';
import type { CameraPose } from '../../../../../main/engine/sfm/global/triangulate.js';
import type { Vec3 } from '../../../../../main/engine/sfm/verify/dense.js';
import { median } from '../../../../../shared/math/median.js';
import { Random } from '../../../../../shared/random.js';
import { freshSeed } from '../../../../helpers/random.js';
import { perturbed, syntheticScene as baScene } from '../bundle/ba-scenes.js';
import { rotationErrorsDeg } from './alignment.js';
import { CAMERA, syntheticScene } from './global-scenes.js';

const seed = freshSeed();

describe(`refineMapping (seed ${seed})`, () => {
  const random = new Random(seed);

  it('refines a shared SIMPLE_RADIAL camera from no distortion, drops observations 30 px off, triangulates the tracks without a point', async () => {
    const truth = baScene(random, { images: 16, points: 400, models: ['SIMPLE_RADIAL'], params: [Float64Array.from([800, 400, 300, -0.05])], visibility: 0.6, noisePx: 0.5 });
    const start = perturbed(truth, random, { rotationDeg: 0.3, translationFraction: 0.005, pointSigma: 0.005, focalFraction: 0.03 });
    // Keypoints: each image's observations in order; tracks: each point's observations.
    const keypoints: number[][] = Array.from({ length: 16 }, () => []);
    const tracks: Observation[][] = Array.from({ length: 400 }, () => []);
    for (let o = 0; o < truth.obsImage.length; o++) {
      const image = truth.obsImage[o];
      let [x, y] = [truth.obsXY[2 * o], truth.obsXY[2 * o + 1]];
      // The first observation of points 10-19 is a wrong match, 30 px off.
      const point = truth.obsPoint[o];
      if (point >= 10 && point < 20 && tracks[point].length === 0) [x, y] = [x + 30, y - 2];
      tracks[point].push({ image, keypoint: keypoints[image].length / 4 });
      keypoints[image].push(x, y, 2, 0);
    }
    const poses: CameraPose[] = Array.from({ length: 16 }, (_, i) => ({ rotation: start.rotations.slice(9 * i, 9 * i + 9), translation: Array.from(start.translations.subarray(3 * i, 3 * i + 3)) as Vec3 }));
    // Points 0-9 have no point yet (as if triangulation had rejected them): the rounds between BAs must add them.
    const points = tracks.map((observations, j) => ({ position: Array.from(start.points.subarray(3 * j, 3 * j + 3)) as Vec3, observations, meanErrorPx: 0 })).slice(10);
    const refined = await refineMapping(
      { mapped: { poses, points, tracks }, keypoints: keypoints.map((k) => Float32Array.from(k)), cameras: [{ model: 'SIMPLE_RADIAL', params: Float64Array.from([start.cameras[0].params[0], 400, 300, 0]) }], imageCamera: new Uint32Array(16) },
      bundleAdjustCpu,
    );
    const [f, cx, cy, k] = refined.cameras[0].params;
    const rotationErrors = rotationErrorsDeg(refined.poses.map((p) => p!.rotation), Array.from({ length: 16 }, (_, i) => truth.rotations.slice(9 * i, 9 * i + 9)));
    console.log(
      `refine-mapping synthetic: f ${f.toFixed(2)} k ${k.toFixed(4)}, rotation error median ${median(rotationErrors).toFixed(4)} deg, ` +
        `${refined.initialMeanReprojectionErrorPx.toFixed(2)} -> ${refined.meanReprojectionErrorPx.toFixed(3)} px; rounds ${JSON.stringify(refined.rounds.map((r) => ({ ...r, seconds: +r.seconds.toFixed(2), initialCost: +r.initialCost.toFixed(1), finalCost: +r.finalCost.toFixed(1), meanReprojectionErrorPx: +r.meanReprojectionErrorPx.toFixed(3) })))}`,
    );
    // 16 images, 400 points: k lands within ~0.006 of the truth over seeds (0.003 on
    // bundle-adjust-cpu.test.ts's 30 images), so the bounds here are for the loop, not the precision.
    expect(Math.abs(f / 800 - 1)).toBeLessThan(0.003);
    expect([cx, cy]).toEqual([400, 300]); // the principal point is not refined by default
    expect(Math.abs(k + 0.05)).toBeLessThan(0.015);
    expect(median(rotationErrors)).toBeLessThan(0.08);
    expect(refined.meanReprojectionErrorPx).toBeLessThan(0.7);
    expect(refined.rounds).toHaveLength(3);
    expect(refined.rounds[0].removedObservations).toBeGreaterThanOrEqual(10);
    expect(refined.rounds[0].addedPoints).toBeGreaterThanOrEqual(10);
    // Every withheld track has its point, and no wrong match survives.
    for (let j = 0; j < 10; j++) expect(refined.points.some((p) => p.observations.some((ob) => ob.image === tracks[j][0].image && ob.keypoint === tracks[j][0].keypoint))).toBe(true);
    for (let j = 10; j < 20; j++) expect(refined.points.some((p) => p.observations.some((ob) => ob.image === tracks[j][0].image && ob.keypoint === tracks[j][0].keypoint))).toBe(false);
    expect(refined.points.every((p) => p.observations.length >= 2 && p.meanErrorPx <= 4)).toBe(true);
    expect(refined.unregistered).toEqual([]);
  });

  it('after global mapping: bundle adjustment lowers the rotation error and the reprojection error (pinhole cameras, 0.5 deg noisy relative poses)', async () => {
    const scene = syntheticScene(seed, { cameras: 16, points: 500, layout: 'circle', noisePx: 0.5, wrongEdgeRatio: 0.05, poseNoiseDeg: 0.5, minShared: 30 });
    const mapped = globalMapping({ imageCount: 16, verified: scene.verified, keypoints: scene.keypoints, cameras: scene.cameras });
    const refined = await refineMapping(
      { mapped, keypoints: scene.keypoints, cameras: [{ model: 'PINHOLE', params: Float64Array.from([CAMERA.focalX, CAMERA.focalY, CAMERA.principalX, CAMERA.principalY]) }], imageCamera: new Uint32Array(16) },
      bundleAdjustCpu,
    );
    const registered = mapped.poses.map((p, i) => (p ? i : -1)).filter((i) => i >= 0);
    const before = median(rotationErrorsDeg(registered.map((i) => mapped.poses[i]!.rotation), registered.map((i) => scene.poses[i].rotation)));
    const after = median(rotationErrorsDeg(registered.map((i) => refined.poses[i]!.rotation), registered.map((i) => scene.poses[i].rotation)));
    console.log(`refine-mapping after global mapping: rotation error median ${before.toFixed(4)} -> ${after.toFixed(4)} deg, ${mapped.stats.meanReprojectionErrorPx.toFixed(3)} -> ${refined.meanReprojectionErrorPx.toFixed(3)} px, focal ${refined.cameras[0].params[0].toFixed(2)}`);
    expect(registered).toHaveLength(16);
    expect(after).toBeLessThan(before);
    expect(after).toBeLessThan(0.05);
    expect(refined.meanReprojectionErrorPx).toBeLessThan(Math.min(0.7, mapped.stats.meanReprojectionErrorPx));
    expect(Math.abs(refined.cameras[0].params[0] / CAMERA.focalX - 1)).toBeLessThan(0.003);
  });

  it('runs the solver it is given, once a round, with the BA options; names a bad camera index and an empty mapping', async () => {
    const truth = baScene(random, { images: 6, points: 60, models: ['PINHOLE'], visibility: 0.8, noisePx: 0.3 });
    const keypoints: number[][] = Array.from({ length: 6 }, () => []);
    const tracks: Observation[][] = Array.from({ length: 60 }, () => []);
    for (let o = 0; o < truth.obsImage.length; o++) {
      tracks[truth.obsPoint[o]].push({ image: truth.obsImage[o], keypoint: keypoints[truth.obsImage[o]].length / 4 });
      keypoints[truth.obsImage[o]].push(truth.obsXY[2 * o], truth.obsXY[2 * o + 1], 2, 0);
    }
    const poses: CameraPose[] = Array.from({ length: 6 }, (_, i) => ({ rotation: truth.rotations.slice(9 * i, 9 * i + 9), translation: Array.from(truth.translations.subarray(3 * i, 3 * i + 3)) as Vec3 }));
    const points = tracks.map((observations, j) => ({ position: Array.from(truth.points.subarray(3 * j, 3 * j + 3)) as Vec3, observations, meanErrorPx: 0 }));
    const input = { mapped: { poses, points, tracks }, keypoints: keypoints.map((k) => Float32Array.from(k)), cameras: truth.cameras, imageCamera: new Uint32Array(6) };
    const calls: { images: number; maxIterations: number; held: number }[] = [];
    const spy: BundleAdjuster = (problem, options, control) => {
      calls.push({ images: problem.rotations.length / 9, maxIterations: options.maxIterations, held: problem.fixedImages!.reduce((s, v) => s + v, 0) });
      return bundleAdjustCpu(problem, options, control);
    };
    const refined = await refineMapping(input, spy, { bundleAdjustmentRounds: 2, bundle: { ...BA_DEFAULTS, maxIterations: 7 } });
    expect(calls).toEqual([{ images: 6, maxIterations: 7, held: 1 }, { images: 6, maxIterations: 7, held: 1 }]);
    expect(refined.rounds).toHaveLength(2);
    // The first registered image is the gauge: its pose comes back as it went in.
    expect(Array.from(refined.poses[0]!.rotation)).toEqual(Array.from(poses[0].rotation));
    await expect(refineMapping({ ...input, imageCamera: Uint32Array.from([0, 0, 0, 0, 0, 3]) }, bundleAdjustCpu)).rejects.toThrow(/refine-mapping\.ts: image 5 names camera 3, but there are 1/);
    await expect(refineMapping({ ...input, mapped: { poses, points: [], tracks } }, bundleAdjustCpu)).rejects.toThrow(/refine-mapping\.ts: the mapping has no triangulated point/);
  });
});
