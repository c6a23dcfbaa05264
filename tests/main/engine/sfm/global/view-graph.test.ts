import { describe, expect, it } from 'vitest';
import { buildViewGraph } from '../../../../../main/engine/sfm/global/view-graph.js';
import { applyMat3, transpose3 } from '../../../../../main/engine/sfm/verify/dense.js';
import { estimateTwoViewGeometry } from '../../../../../main/engine/sfm/verify/two-view-geometry.js';
import { TwoViewConfiguration } from '../../../../../main/engine/sfm/verify/verify-options.js';
import type { VerifiedPair } from '../../../../../main/engine/sfm/verify/verify-pairs.js';
import { freshSeed } from '../../../../helpers/random.js';
import { angleBetweenDeg, CAMERA, rotationAngleDeg, syntheticPair } from '../verify-scenes.js';
import { syntheticScene } from './global-scenes.js';

const seed = freshSeed();

function withConfiguration(pair: VerifiedPair, configuration: TwoViewConfiguration, inliers?: number): VerifiedPair {
  const n = inliers ?? pair.geometry.inliers.length;
  return { ...pair, inlierMatches: pair.inlierMatches.subarray(0, 2 * n), geometry: { ...pair.geometry, configuration, inliers: pair.geometry.inliers.subarray(0, n) } };
}

describe(`the view graph (seed ${seed})`, () => {
  const scene = syntheticScene(seed, { cameras: 6, points: 400, layout: 'circle', noisePx: 0.5, wrongEdgeRatio: 0, poseNoiseDeg: 0, minShared: 30 });
  const input = { imageCount: 6, keypoints: scene.keypoints, cameras: scene.cameras, minInliers: 15 };

  it('keeps CALIBRATED and PANORAMIC pairs, and says why a PLANAR pair without H and thin pairs are left out', () => {
    const [first, second, third, fourth, ...rest] = scene.verified;
    const panoramic: VerifiedPair = { ...second, geometry: { ...second.geometry, configuration: TwoViewConfiguration.PANORAMIC, translation: [0, 0, 0] } };
    const planar = withConfiguration(third, TwoViewConfiguration.PLANAR);
    const graph = buildViewGraph({ ...input, verified: [first, panoramic, { ...planar, geometry: { ...planar.geometry, homography: undefined } }, withConfiguration(fourth, TwoViewConfiguration.CALIBRATED, 14), ...rest] });
    expect(graph.edges).toHaveLength(scene.verified.length - 2);
    expect(graph.edges.find((e) => e.first === second.pair[0] && e.second === second.pair[1])?.translation).toBeUndefined();
    expect(graph.droppedEdges).toEqual([
      { first: third.pair[0], second: third.pair[1], reason: 'PLANAR without a homography' },
      { first: fourth.pair[0], second: fourth.pair[1], reason: '14 inliers, fewer than 15' },
    ]);
    expect(graph.images).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('stores a pair given as (second, first) with the inverse pose and swapped matches', () => {
    const forward = scene.verified[0];
    const { rotation, translation } = forward.geometry;
    const inverse = transpose3(rotation!);
    const t = applyMat3(inverse, translation!);
    const backward: VerifiedPair = {
      pair: [forward.pair[1], forward.pair[0]],
      inlierMatches: Uint32Array.from({ length: forward.inlierMatches.length }, (_, k) => forward.inlierMatches[k ^ 1]),
      geometry: { ...forward.geometry, rotation: inverse, translation: [-t[0], -t[1], -t[2]] },
    };
    const [a] = buildViewGraph({ ...input, verified: [forward] }).edges;
    const [b] = buildViewGraph({ ...input, verified: [backward] }).edges;
    expect([b.first, b.second]).toEqual([a.first, a.second]);
    expect(rotationAngleDeg(b.rotation, a.rotation)).toBeLessThan(1e-5); // acos near 1 resolves ~1e-8 rad
    expect(angleBetweenDeg(b.translation!, a.translation!)).toBeLessThan(1e-5);
    expect(Array.from(b.inlierMatches)).toEqual(Array.from(a.inlierMatches));
  });

  it('decomposes an UNCALIBRATED pair through the mapper intrinsics (E = K2^T F K1)', () => {
    const pair = syntheticPair(seed, 'general', 300, 0.2, 0.5);
    const geometry = estimateTwoViewGeometry(pair.points1, pair.points2);
    expect(geometry.configuration).toBe(TwoViewConfiguration.UNCALIBRATED);
    const keypoints = [pair.points1, pair.points2].map((p) => Float32Array.from({ length: 2 * p.length }, (_, k) => (k % 4 < 2 ? p[(k >> 2) * 2 + (k % 4)] : 0)));
    const inlierMatches = Uint32Array.from(Array.from(geometry.inliers).flatMap((k) => [k, k]));
    const graph = buildViewGraph({ imageCount: 2, keypoints, cameras: [CAMERA, CAMERA], minInliers: 15, verified: [{ pair: [0, 1], geometry, inlierMatches }] });
    expect(graph.edges).toHaveLength(1);
    expect(rotationAngleDeg(graph.edges[0].rotation, pair.rotation)).toBeLessThan(1);
    // F from 300 points at 0.5 px: the direction's error has a tail (3.54 deg once in ten seeds)
    expect(angleBetweenDeg(graph.edges[0].translation!, pair.translation)).toBeLessThan(5);
  });

  it('poses PLANAR_OR_PANORAMIC pairs (verified without intrinsics) from H: a plane by its decomposition, a pure rotation as PANORAMIC', () => {
    const keypointsOf = (p: Float64Array) => Float32Array.from({ length: 2 * p.length }, (_, k) => (k % 4 < 2 ? p[(k >> 2) * 2 + (k % 4)] : 0));
    for (const kind of ['planar', 'rotation'] as const) {
      const pair = syntheticPair(seed + 3, kind, 300, 0.2, 0.5);
      const geometry = estimateTwoViewGeometry(pair.points1, pair.points2, undefined, { planarInliers: 'larger' });
      expect(geometry.configuration).toBe(TwoViewConfiguration.PLANAR_OR_PANORAMIC);
      const inlierMatches = Uint32Array.from(Array.from(geometry.inliers).flatMap((k) => [k, k]));
      // as verification gives the pair, and as capture reads it back from database.db, which keeps
      // no per-model inlier counts (zeros: every planar pair once passed as a pure rotation there)
      for (const given of [geometry, { ...geometry, inlierCounts: { essential: 0, fundamental: 0, homography: 0 } }]) {
        const graph = buildViewGraph({ imageCount: 2, keypoints: [keypointsOf(pair.points1), keypointsOf(pair.points2)], cameras: [CAMERA, CAMERA], minInliers: 15, verified: [{ pair: [0, 1], geometry: given, inlierMatches }] });
        expect(graph.droppedEdges).toEqual([]);
        expect(graph.edges).toHaveLength(1);
        expect(rotationAngleDeg(graph.edges[0].rotation, pair.rotation), kind).toBeLessThan(0.5);
        if (kind === 'rotation') expect(graph.edges[0].translation).toBeUndefined();
        // a plane alone leaves H's twofold ambiguity: the direction is checked where off-plane points decide (verify-homography-decomposition.test.ts)
        else expect(graph.edges[0].translation, `${kind}, counts ${JSON.stringify(given.inlierCounts)}`).toBeDefined();
      }
    }
  });

  it('keeps the largest of two groups and reports the other by image with the reason', () => {
    // Images 0-5 one scene, 6-8 another; nothing joins them.
    const other = syntheticScene(seed + 1, { cameras: 3, points: 300, layout: 'circle', noisePx: 0.5, wrongEdgeRatio: 0, poseNoiseDeg: 0, minShared: 30 });
    const shifted = other.verified.map((v) => ({ ...v, pair: [v.pair[0] + 6, v.pair[1] + 6] as const }));
    const graph = buildViewGraph({ imageCount: 10, keypoints: [...scene.keypoints, ...other.keypoints, new Float32Array(0)], cameras: [...scene.cameras, ...other.cameras, CAMERA], minInliers: 15, verified: [...scene.verified, ...shifted] });
    expect(graph.images).toEqual([0, 1, 2, 3, 4, 5]);
    expect(graph.unregistered.map((u) => u.image)).toEqual([6, 7, 8, 9]);
    expect(graph.unregistered[0].reason).toBe('in a separate group of 3 image(s), joined to the largest (6 images) by no verified pair with a relative pose');
    expect(graph.unregistered[3].reason).toMatch(/no verified pair with a relative pose joins it to another image/);
  });

  it('names a pair outside the images or verified twice', () => {
    expect(() => buildViewGraph({ ...input, verified: [{ ...scene.verified[0], pair: [0, 6] }] })).toThrow(/view-graph\.ts: pair \(0, 6\) names an image outside 0\.\.5/);
    expect(() => buildViewGraph({ ...input, verified: [scene.verified[0], scene.verified[0]] })).toThrow(/is verified twice/);
  });
});
