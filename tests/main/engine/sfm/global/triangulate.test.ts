import { describe, expect, it } from 'vitest';
import type { Observation } from '../../../../../main/engine/sfm/global/tracks.js';
import { reprojectionError, triangulateTrack, type CameraPose } from '../../../../../main/engine/sfm/global/triangulate.js';
import type { Vec3 } from '../../../../../main/engine/sfm/verify/dense.js';
import { Random } from '../../../../../shared/random.js';
import { freshSeed } from '../../../../helpers/random.js';
import { CAMERA, lookAt } from './global-scenes.js';

const seed = freshSeed();
const FILTER = { maxReprojectionErrorPx: 4, minTriangulationAngleDeg: 1.5 };

function project(pose: CameraPose, p: Vec3): [number, number] {
  const r = pose.rotation;
  const x = r[0] * p[0] + r[1] * p[1] + r[2] * p[2] + pose.translation[0];
  const y = r[3] * p[0] + r[4] * p[1] + r[5] * p[2] + pose.translation[1];
  const z = r[6] * p[0] + r[7] * p[1] + r[8] * p[2] + pose.translation[2];
  return [CAMERA.focalX * (x / z) + CAMERA.principalX, CAMERA.focalY * (y / z) + CAMERA.principalY];
}

describe(`triangulation (seed ${seed})`, () => {
  const random = new Random(seed);
  const poses = Array.from({ length: 5 }, (_, i) => lookAt([4 * Math.cos(0.3 * i), 0.2 * random.normal(), 4 * Math.sin(0.3 * i)], [0, 0, 0], 0.1 * random.normal()));
  const cameras = poses.map(() => CAMERA);
  const point: Vec3 = [random.normal() * 0.5, random.normal() * 0.5, random.normal() * 0.5];
  const track: Observation[] = poses.map((_, image) => ({ image, keypoint: 0 }));

  it('recovers a point exactly from exact projections', () => {
    const pixels = poses.map((pose) => project(pose, point));
    const outcome = triangulateTrack(track, poses, cameras, (o) => pixels[o.image], FILTER);
    if (typeof outcome === 'string') throw new Error(outcome);
    for (let c = 0; c < 3; c++) expect(outcome.position[c]).toBeCloseTo(point[c], 8);
    expect(outcome.meanErrorPx).toBeLessThan(1e-6);
    expect(outcome.observations).toHaveLength(5);
  });

  it('drops an observation 30 px off and keeps the rest', () => {
    const pixels = poses.map((pose) => project(pose, point));
    pixels[2] = [pixels[2][0] + 30, pixels[2][1] - 10];
    const outcome = triangulateTrack(track, poses, cameras, (o) => pixels[o.image], FILTER);
    if (typeof outcome === 'string') throw new Error(outcome);
    expect(outcome.observations.map((o) => o.image)).toEqual([0, 1, 3, 4]);
    expect(outcome.meanErrorPx).toBeLessThan(1e-6);
  });

  it('rejects two rays closer than the minimum angle, and a point behind the cameras', () => {
    const near = [lookAt([4, 0, 0], [0, 0, 0], 0), lookAt([4 * Math.cos(0.01), 0, 4 * Math.sin(0.01)], [0, 0, 0], 0)]; // ~0.6 deg apart at the point
    const nearPixels = near.map((pose) => project(pose, point));
    expect(triangulateTrack(track.slice(0, 2), near, cameras, (o) => nearPixels[o.image], FILTER)).toBe('triangulation angle');
    // The same pixels with both cameras turned round: the rays meet behind them.
    const behind = poses.slice(0, 2).map((pose) => ({ rotation: pose.rotation.map((v, k) => (k < 3 ? v : -v)), translation: [pose.translation[0], -pose.translation[1], -pose.translation[2]] as Vec3 }));
    const pixels = poses.slice(0, 2).map((pose) => project(pose, point));
    expect(reprojectionError(point, behind[0], CAMERA, pixels[0])).toBe(Infinity);
    expect(triangulateTrack(track.slice(0, 2), behind, cameras, (o) => pixels[o.image], FILTER)).toMatch(/behind a camera|reprojection error/);
  });

  it('needs two posed observations', () => {
    const pixels = poses.map((pose) => project(pose, point));
    expect(triangulateTrack(track.slice(0, 2), [poses[0], undefined], cameras, (o) => pixels[o.image], FILTER)).toBe('too few observations');
  });
});
