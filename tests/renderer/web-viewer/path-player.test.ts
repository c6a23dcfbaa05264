/**
 * The exported viewer's path player: the pose at a keyframe's time is that keyframe seen through
 * the studio's OpenCV -> Babylon conversion; the clock wraps a looping path, stops at the end of
 * one that does not, and plays it again from the start.
 */
import { describe, expect, it } from 'vitest';
import { PathPlayer, poseOnPath } from '../../../renderer/web-viewer/path-player.js';
import { babylonCameraPose, type Vec3 } from '../../../renderer/src/viewer/opencv-frame.js';
import { cameraAt, orbitPath } from '../../../shared/scene/camera-path-sample.js';
import type { CameraPath } from '../../../shared/scene/camera-path.js';

const orbit = orbitPath({ centre: [1, 2, 3], radius: 4, height: 1, up: [0, -1, 0], turns: 1, duration: 8, fovYDeg: 50, keyframes: 8 });
const close = (a: readonly number[], b: readonly number[], tolerance = 1e-9) => a.every((v, i) => Math.abs(v - b[i]) < tolerance);

describe('web viewer path player', () => {
  it('shows each keyframe at its time as the studio viewer would look through that camera', () => {
    for (const keyframe of orbit.keyframes) {
      const pose = poseOnPath(orbit, keyframe.time);
      const expected = babylonCameraPose(cameraAt({ position: [...keyframe.position], rotation: [...keyframe.rotation], fovYDeg: keyframe.fovYDeg }, 640, 480));
      expect(close(pose.position, expected.position, 1e-6), `position at ${keyframe.time} s`).toBe(true);
      expect(close(pose.forward, expected.forward, 1e-6), `forward at ${keyframe.time} s`).toBe(true);
      expect(close(pose.up, expected.up, 1e-6), `up at ${keyframe.time} s`).toBe(true);
      expect(pose.fovYRadians).toBeCloseTo((50 * Math.PI) / 180, 9);
      // every orbit camera looks at the centre (Babylon frame: y negated)
      const toCentre: Vec3 = [1 - pose.position[0], -2 - pose.position[1], 3 - pose.position[2]];
      const length = Math.hypot(...toCentre);
      expect(close(pose.forward, toCentre.map((v) => v / length), 1e-6)).toBe(true);
    }
  });

  it('wraps a looping path, stops a path that does not loop at its end, and replays it from the start', () => {
    const player = new PathPlayer();
    expect(player.advance(1)).toBeUndefined();
    player.select(orbit);
    player.play();
    player.advance(5);
    player.advance(5);
    expect(player.time).toBeCloseTo(2, 9);
    expect(player.isPlaying).toBe(true);

    const once: CameraPath = { ...orbit, id: 'once', loop: false, duration: 7 };
    player.select(once);
    expect([player.time, player.isPlaying]).toEqual([0, false]);
    player.advance(3);
    expect(player.time).toBe(0); // paused: the clock stands
    player.play();
    const end = player.advance(100)!;
    expect([player.time, player.isPlaying]).toEqual([7, false]);
    expect(close(end.position, poseOnPath(once, 7).position)).toBe(true);
    player.play();
    player.advance(0.5);
    expect(player.time).toBeCloseTo(0.5, 9);
    player.seek(-3);
    expect(player.time).toBe(0);
    player.seek(99);
    expect(player.time).toBe(7);
  });
});
