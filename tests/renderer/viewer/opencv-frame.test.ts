import { describe, expect, it } from 'vitest';
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import { invertRigid, lookAt } from '../../../shared/scene/camera.js';
import {
  babylonCameraPose,
  babylonUpFromCameras,
  cameraAxes,
  cameraCenter,
  engineToBabylon,
  frustumWorldPoints,
  projectToPixel,
  type Vec3,
} from '../../../renderer/src/viewer/opencv-frame.js';

const cross = (a: Vec3, b: Vec3): Vec3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
/** An OpenCV camera in a y-down world (world up is -y). */
const camera = (eye: Vec3, target: Vec3 = [0, 0, 0], up: Vec3 = [0, -1, 0]): PinholeCamera => ({ width: 640, height: 480, fx: 500, fy: 520, cx: 330, cy: 236, worldToCamera: lookAt(eye, target, up) });

describe('engine (OpenCV) frame to Babylon', () => {
  it('reads centre and axes of world-to-camera matrices (shared lookAt: image down along world +y here)', () => {
    const cam = camera([3, -2, 5], [0.5, 0.25, -1]);
    const { right, down, forward } = cameraAxes(cam);
    expect(cameraCenter(cam).map((v) => Number(v.toFixed(9)))).toEqual([3, -2, 5]);
    const pixel = projectToPixel(cam, [0.5, 0.25, -1])!;
    expect(pixel[0]).toBeCloseTo(cam.cx, 9);
    expect(pixel[1]).toBeCloseTo(cam.cy, 9);
    // a right-handed camera frame: x = y cross z
    cross(down, forward).forEach((v, i) => expect(v).toBeCloseTo(right[i], 12));
    expect(down[1]).toBeGreaterThan(0);
    // the matrix is a rigid transform: its inverse (shared/scene) maps the origin to the centre
    const c2w = invertRigid(cam.worldToCamera);
    expect([c2w[3], c2w[7], c2w[11]].map((v) => Number(v.toFixed(9)))).toEqual([3, -2, 5]);
  });

  it('unprojects the frustum corners to the image corners at the given depth', () => {
    const cam = camera([1, -1, -6]);
    const [apex, ...corners] = frustumWorldPoints(cam, 2);
    expect(apex.map((v) => Number(v.toFixed(9)))).toEqual([1, -1, -6]);
    const expected = [
      [0, 0],
      [640, 0],
      [640, 480],
      [0, 480],
    ];
    corners.forEach((corner, i) => {
      const [u, v] = projectToPixel(cam, corner)!;
      expect(u).toBeCloseTo(expected[i][0], 6);
      expect(v).toBeCloseTo(expected[i][1], 6);
    });
  });

  it('negates y: one reflection, so the right-handed engine frame becomes left-handed and y-up', () => {
    expect(engineToBabylon([1, 2, 3])).toEqual([1, -2, 3]);
  });

  it('places a Babylon camera that sees what the OpenCV camera saw, not mirrored', () => {
    for (const eye of [[4, -3, 2], [-2, 5, -7], [0.5, -8, 0.1]] as Vec3[]) {
      const cam = camera(eye, [0.3, -0.2, 0.1]);
      const pose = babylonCameraPose(cam);
      expect(pose.position).toEqual(engineToBabylon(cameraCenter(cam)));
      // Babylon (left-handed) puts screen right along up x forward; it must be the camera's right, reflected.
      const screenRight = cross(pose.up, pose.forward);
      const expected = engineToBabylon(cameraAxes(cam).right);
      screenRight.forEach((v, i) => expect(v).toBeCloseTo(expected[i], 12));
      // up is image up (-down), reflected
      const up = engineToBabylon(cameraAxes(cam).down).map((v) => -v);
      pose.up.forEach((v, i) => expect(v).toBeCloseTo(up[i], 12));
      expect(pose.fovYRadians).toBeCloseTo(2 * Math.atan(240 / 520), 12);
    }
  });

  it('takes the scene up from the cameras, whatever way the world is oriented', () => {
    const ring = (up: Vec3) => [0, 1, 2, 3].map((k) => camera([3 * Math.cos(k) + up[0] * 2, 2 * up[1] + 3 * Math.sin(k) * (up[1] === 0 ? 1 : 0), up[2] * 2 + 3 * Math.sin(k) * (up[2] === 0 ? 1 : 0)], [0, 0, 0], up));
    // y-down world (OpenCV habit): Babylon's up is +y after the reflection.
    const yDown = babylonUpFromCameras(ring([0, -1, 0]));
    expect(yDown[1]).toBeGreaterThan(0.9);
    // y-up world (the engine's sample scene): up is -y in Babylon's frame, so the orbit turns over.
    const yUp = babylonUpFromCameras(ring([0, 1, 0]));
    expect(yUp[1]).toBeLessThan(-0.9);
    // z-up world (Blender, NeRF-synthetic)
    const zUp = babylonUpFromCameras(ring([0, 0, 1]));
    expect(zUp[2]).toBeGreaterThan(0.9);
    expect(babylonUpFromCameras([])).toEqual([0, 1, 0]);
  });

  it('names the problem when a matrix is not 4x4', () => {
    expect(() => cameraCenter({ ...camera([0, 0, -5]), worldToCamera: [1, 0, 0] })).toThrow('expected 16 numbers (row-major 4x4), got 3');
  });
});
