import { describe, expect, it } from 'vitest';
import { lookAt } from '../../../shared/scene/camera.js';
import { orbitFromCameras, orbitFromPoints, sceneOrbit } from '../../../shared/scene/scene-orbit.js';

const camera = (eye: number[], target: number[], up: number[]) => ({ width: 64, height: 48, fx: 60, fy: 60, cx: 32, cy: 24, worldToCamera: lookAt(eye, target, up) });

describe('the orbit of a scene', () => {
  it('from cameras circling a point: their centre, up, radius, height and field of view', () => {
    const centre = [1, 2, -1];
    const cameras = Array.from({ length: 12 }, (_, i) => {
      const a = (2 * Math.PI * i) / 12;
      return camera([centre[0] + 3 * Math.cos(a), centre[1] + 3 * Math.sin(a), centre[2] + 1.5], centre, [0, 0, 1]);
    });
    const orbit = orbitFromCameras(cameras, { duration: 4 })!;
    orbit.centre.forEach((v, i) => expect(v).toBeCloseTo(centre[i], 6));
    orbit.up.forEach((v, i) => expect(v).toBeCloseTo([0, 0, 1][i], 1));
    expect(orbit.radius).toBeCloseTo(3, 1);
    expect(orbit.height).toBeCloseTo(1.5, 1);
    expect(orbit.fovYDeg).toBeCloseTo((2 * Math.atan(24 / 60) * 180) / Math.PI, 9);
    expect(orbit).toMatchObject({ turns: 1, duration: 4, keyframes: 8 });
  });

  it('falls back to the splats when the cameras look away from any common point (a forward-facing capture)', () => {
    const cameras = [0, 1, 2, 3].map((x) => camera([x, 0, 0], [x, 0, 5], [0, -1, 0]));
    expect(orbitFromCameras(cameras, { duration: 4 })).toBeUndefined();
    expect(orbitFromCameras(cameras.slice(0, 1), { duration: 4 })).toBeUndefined();
    const points = new Float32Array([0, 0, 5, 1, 0, 5, -1, 0, 5, 0, 1, 5, 0, -1, 5]);
    const path = sceneOrbit(cameras, points, { duration: 2 });
    expect(path.keyframes[0].position[2]).not.toBeNaN();
    expect(orbitFromPoints(points, { duration: 2 }).centre).toEqual([0, 0, 5]);
    expect(() => orbitFromPoints(new Float32Array(0), { duration: 2 })).toThrow(/no points/);
  });
});
