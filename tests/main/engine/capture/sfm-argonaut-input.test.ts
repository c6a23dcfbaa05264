/**
 * Our mapper's input read back from the database the front end writes: the verified pairs as
 * verification gave them (pose where it has one, none where it does not), the cameras shared as
 * extraction made them, and the mapping stage's file round trip. No GPU.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readMappingInput } from '../../../../main/engine/capture/sfm-argonaut-input.js';
import { readMappingFile, showsNoMotion, writeMappingFile } from '../../../../main/engine/capture/sfm-argonaut-mapping.js';
import { twoViewRow } from '../../../../main/engine/capture/sfm-gpu.js';
import { writeColmapDatabase } from '../../../../main/engine/sfm/colmap-database.js';
import type { GlobalMappingResult } from '../../../../main/engine/sfm/global/global-mapper.js';
import { TwoViewConfiguration } from '../../../../main/engine/sfm/verify/verify-options.js';
import type { VerifiedPair } from '../../../../main/engine/sfm/verify/verify-pairs.js';
import { cleanedTempDirs } from '../../../helpers/datasets.js';
import { freshSeed, rng } from '../../../helpers/random.js';

const tempDir = cleanedTempDirs(afterAll);

/** A random rotation (unit quaternion from four normals) as a row-major 3 x 3. */
function randomRotation(random: () => number): Float64Array {
  const g = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const q = [g(), g(), g(), g()];
  const n = Math.hypot(...q);
  const [w, x, y, z] = q.map((v) => v / n);
  return Float64Array.from([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y), 2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x), 2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]);
}

function pair(a: number, b: number, configuration: number, inliers: number, pose?: { rotation: Float64Array; translation?: [number, number, number] }): VerifiedPair {
  return {
    pair: [a, b],
    inlierMatches: Uint32Array.from({ length: 2 * inliers }, (_, k) => k >> 1),
    geometry: { configuration: configuration as VerifiedPair['geometry']['configuration'], inliers: Uint32Array.from({ length: inliers }, (_, k) => k), fundamental: Float64Array.from({ length: 9 }, (_, k) => k + 1), ...(pose ?? {}), inlierCounts: { essential: 0, fundamental: inliers, homography: 0 } },
  };
}

describe("our mapper's input from the database", () => {
  it('keeps every verified pair, its configuration, inliers and pose, and each image its camera (a clip shares one)', async () => {
    const seed = freshSeed();
    const random = rng(seed);
    const rotation = randomRotation(random);
    const turn = randomRotation(random);
    const keypoints = (n: number) => Float32Array.from({ length: 4 * n }, () => 100 * random());
    const database = path.join(await tempDir('argonaut-input'), 'database.db');
    const verified = [
      pair(0, 1, TwoViewConfiguration.CALIBRATED, 20, { rotation, translation: [0.6, 0, 0.8] }),
      pair(1, 2, TwoViewConfiguration.PANORAMIC, 18, { rotation: turn, translation: [0, 0, 0] }),
      pair(0, 2, TwoViewConfiguration.UNCALIBRATED, 16),
    ];
    await writeColmapDatabase(database, {
      cameras: [{ model: 'SIMPLE_RADIAL', width: 64, height: 48 }, { model: 'PINHOLE', width: 80, height: 60, params: Float64Array.from([70, 71, 40, 30]), priorFocalLength: true }],
      images: [0, 1, 2].map((k) => ({ name: `g/${k}.jpg`, cameraId: k < 2 ? 1 : 2, keypoints: keypoints(30), descriptors: new Uint8Array(128 * 30) })),
      matches: [],
      twoViewGeometries: verified.map(twoViewRow),
    });
    const input = await readMappingInput(database);
    expect(input.names).toEqual(['g/0.jpg', 'g/1.jpg', 'g/2.jpg']);
    expect(input.imageCamera).toEqual([0, 0, 1]);
    expect(input.cameras[0]).toBe(input.cameras[1]); // shared: the same object, as globalMapping expects
    expect(input.cameras[0]).toEqual({ focalX: 1.2 * 64, focalY: 1.2 * 64, principalX: 32, principalY: 24 });
    expect(input.cameras[2]).toEqual({ focalX: 70, focalY: 71, principalX: 40, principalY: 30 });
    expect(input.verified.map((v) => [v.pair, v.geometry.configuration, v.geometry.inliers.length])).toEqual([[[0, 1], 2, 20], [[0, 2], 3, 16], [[1, 2], 5, 18]]);
    const [calibrated, uncalibrated, panoramic] = input.verified;
    for (let k = 0; k < 9; k++) expect(calibrated.geometry.rotation![k], `seed ${seed}`).toBeCloseTo(rotation[k], 12);
    expect(calibrated.geometry.translation).toEqual([0.6, 0, 0.8]);
    expect(Array.from(calibrated.inlierMatches)).toEqual(Array.from(verified[0].inlierMatches));
    for (let k = 0; k < 9; k++) expect(panoramic.geometry.rotation![k]).toBeCloseTo(turn[k], 12);
    expect(panoramic.geometry.translation).toBeUndefined(); // a pure rotation has no direction
    expect(uncalibrated.geometry.rotation).toBeUndefined(); // F only: the view graph makes E from the intrinsics
    expect(Array.from(uncalibrated.geometry.fundamental!)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('copies of one view show no motion; a pair whose keypoints moved does', () => {
    const same = Float32Array.from({ length: 4 * 20 }, (_, k) => k);
    const moved = Float32Array.from(same, (v, k) => (k % 4 === 0 ? v + 3 : v));
    const input = (second: Float32Array) => ({ imageCount: 2, verified: [pair(0, 1, TwoViewConfiguration.PLANAR_OR_PANORAMIC, 20)], keypoints: [same, second], cameras: [], names: [], imageIds: [], databaseCameras: [], imageCamera: [] });
    expect(showsNoMotion(input(same))).toBe(true);
    expect(showsNoMotion(input(moved))).toBe(false);
  });

  it("the mapping stage's file gives back the poses, points, tracks and reasons it was given", async () => {
    const file = path.join(await tempDir('argonaut-mapping'), 'mapping.json');
    const mapped: GlobalMappingResult = {
      poses: [{ rotation: Float64Array.from([1, 0, 0, 0, 1, 0, 0, 0, 1]), translation: [0.1, 0.2, 0.3] }, undefined],
      points: [{ position: [1, 2, 3], observations: [{ image: 0, keypoint: 4 }, { image: 2, keypoint: 7 }], meanErrorPx: 0.25 }],
      tracks: [[{ image: 0, keypoint: 4 }, { image: 2, keypoint: 7 }]],
      unregistered: [{ image: 1, reason: 'no verified pair' }],
      droppedEdges: [{ first: 0, second: 1, reason: 'PLANAR' }],
      stats: { stageMs: { calibration: 0, viewGraph: 1, rotations: 2, positions: 3, tracks: 4, points: 5, triangulation: 6 }, edgesInComponent: 1, edgesUsed: 1, rotationRounds: 1, rotationResidualDeg: { median: 0, max: 0 }, positioningIterations: { cameras: 1, points: 2, refinement: 3 }, tracks: 1, inconsistentTracks: 0, rejectedTracks: {}, meanReprojectionErrorPx: 0.25 },
    };
    await writeMappingFile(file, mapped);
    expect(await readMappingFile(file)).toEqual(mapped);
    expect(await readMappingFile(`${file}.absent`)).toBeUndefined();
  });
});
