import { describe, expect, it } from 'vitest';
import { cameraAt, orbitPath, pathFrames, samplePath, sampleOfCamera, type PathSample } from '../../../shared/scene/camera-path-sample.js';
import { CameraPathSchema, type CameraKeyframe, type CameraPath } from '../../../shared/scene/camera-path.js';
import { quatConjugate, quatFromMatrix, quatLogBetween, quatMultiply, quatNearest, quatNormalize, type Quaternion } from '../../../shared/math/quaternion.js';
import { lookAt } from '../../../shared/scene/camera.js';
import { seededRandom } from '../../../shared/random.js';

/** Unevenly timed keyframes at random positions and rotations (seeded). */
function randomPath(seed: number, interpolation: 'smooth' | 'linear', loop: boolean, count = 6): CameraPath {
  const random = seededRandom(seed);
  const keyframes: CameraKeyframe[] = [];
  let time = random() * 0.5;
  for (let k = 0; k < count; k++) {
    const q = quatNormalize([random() - 0.5, random() - 0.5, random() - 0.5, random() - 0.5]);
    keyframes.push({ time, position: [4 * random() - 2, 4 * random() - 2, 4 * random() - 2], rotation: q, fovYDeg: 30 + 40 * random() });
    time += 0.3 + 1.5 * random();
  }
  const duration = loop ? time : keyframes.at(-1)!.time;
  return CameraPathSchema.parse({ id: 'random', name: 'Random', interpolation, loop, duration, keyframes });
}

/** Angle between two rotations (radians), either sign of either quaternion. */
// The angle of a^-1 b from its vector part (atan2 keeps full precision near zero, where acos of
// the dot turns one rounding step into 3e-8 rad).
const rotationAngle = (a: readonly number[], b: readonly number[]) => {
  const d = quatMultiply(quatConjugate(a as Quaternion), b as Quaternion);
  return 2 * Math.atan2(Math.hypot(d[0], d[1], d[2]), Math.abs(d[3]));
};
const distance = (a: readonly number[], b: readonly number[]) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

/** Velocity of position, rotation (local angular, radians/s) and fov by a central difference. */
function velocity(path: CameraPath, t: number, h: number) {
  const before = samplePath(path, t - h);
  const after = samplePath(path, t + h);
  const turn = quatLogBetween(before.rotation, quatNearest(after.rotation, before.rotation));
  return {
    position: [0, 1, 2].map((i) => (after.position[i] - before.position[i]) / (2 * h)),
    rotation: turn.map((x) => (2 * x) / (2 * h)), // log is half the rotation vector
    fov: (after.fovYDeg - before.fovYDeg) / (2 * h),
    before, after,
  };
}

/**
 * The jump between one-sided velocities around `t` at step h: it shrinks linearly with h where
 * the path is C1 (not C2), and stays where it has a kink.
 */
function velocityJump(path: CameraPath, t: number, h: number) {
  const left = velocity(path, t - 2 * h, h);
  const right = velocity(path, t + 2 * h, h);
  return {
    position: Math.hypot(...left.position.map((v, i) => v - right.position[i])),
    rotation: Math.hypot(...left.rotation.map((v, i) => v - right.rotation[i])),
    fov: Math.abs(left.fov - right.fov),
  };
}

describe('samplePath', () => {
  for (const interpolation of ['smooth', 'linear'] as const) {
    for (const loop of [false, true]) {
      it(`${interpolation}${loop ? ', looping' : ''}: passes through every keyframe at its time, unit quaternions throughout`, () => {
        for (const seed of [1, 2, 3]) {
          const path = randomPath(seed, interpolation, loop);
          for (const key of path.keyframes) {
            const sample = samplePath(path, key.time);
            expect(distance(sample.position, key.position)).toBeLessThan(1e-9);
            expect(rotationAngle(sample.rotation, key.rotation)).toBeLessThan(1e-6);
            expect(sample.fovYDeg).toBeCloseTo(key.fovYDeg, 9);
          }
          for (let t = -0.5; t <= path.duration + 0.5; t += 0.01) {
            const { rotation, position, fovYDeg } = samplePath(path, t);
            expect(Math.abs(Math.hypot(...rotation) - 1)).toBeLessThan(1e-12);
            expect(position.every(Number.isFinite) && Number.isFinite(fovYDeg)).toBe(true);
          }
        }
      });
    }
  }

  it('smooth: C1 in time at every keyframe (position, angular velocity, fov), even unevenly spaced', () => {
    for (const seed of [4, 5, 6]) {
      for (const loop of [false, true]) {
        const path = randomPath(seed, 'smooth', loop);
        const interior = loop ? path.keyframes : path.keyframes.slice(1, -1);
        for (const key of interior) {
          const coarse = velocityJump(path, key.time, 1e-4);
          const fine = velocityJump(path, key.time, 1e-5);
          expect(fine.position).toBeLessThan(0.15 * coarse.position + 1e-6);
          expect(fine.rotation).toBeLessThan(0.15 * coarse.rotation + 1e-6);
          expect(fine.fov).toBeLessThan(0.15 * coarse.fov + 1e-6);
          expect(fine.position + fine.rotation).toBeLessThan(0.05);
        }
      }
    }
  });

  it('linear is not C1: its velocity jumps at a keyframe (the check above can fail)', () => {
    const path = randomPath(4, 'linear', false);
    const key = path.keyframes[2];
    const coarse = velocityJump(path, key.time, 1e-4);
    const fine = velocityJump(path, key.time, 1e-5);
    expect(fine.position).toBeGreaterThan(0.9 * coarse.position);
    expect(fine.position).toBeGreaterThan(1e-2);
  });

  it('a loop is seamless: position, rotation and velocity at duration match time 0', () => {
    const path = randomPath(7, 'smooth', true);
    const first = path.keyframes[0].time;
    const start = samplePath(path, first);
    const end = samplePath(path, first + path.duration);
    expect(distance(start.position, end.position)).toBeLessThan(1e-9);
    expect(rotationAngle(start.rotation, end.rotation)).toBeLessThan(1e-6);
    const vStart = velocity(path, first + 1e-4, 1e-5);
    const vEnd = velocity(path, first + path.duration - 1e-4, 1e-5);
    for (let i = 0; i < 3; i++) expect(vStart.position[i]).toBeCloseTo(vEnd.position[i], 2);
    // Just before the end is near the first keyframe, not the last (the spline closes back).
    expect(distance(samplePath(path, first + path.duration - 1e-3).position, start.position)).toBeLessThan(0.1);
  });

  it('rotations take the shortest arc: keyframes stored with opposite signs turn 20 degrees, not 340', () => {
    const half = (10 * Math.PI) / 180;
    const keyframes = [
      { time: 0, position: [0, 0, 0], rotation: [0, 0, 0, 1], fovYDeg: 50 },
      { time: 1, position: [1, 0, 0], rotation: [0, -Math.sin(half), 0, -Math.cos(half)], fovYDeg: 50 },
      { time: 2, position: [2, 0, 0], rotation: [0, 0, 0, 1], fovYDeg: 50 },
    ];
    for (const interpolation of ['smooth', 'linear'] as const) {
      const path = CameraPathSchema.parse({ id: 'turn', name: 'Turn', interpolation, loop: false, duration: 2, keyframes });
      let largest = 0;
      for (let t = 0; t <= 2; t += 0.01) largest = Math.max(largest, rotationAngle(samplePath(path, t).rotation, [0, 0, 0, 1]));
      expect(largest).toBeLessThan((21 * Math.PI) / 180);
      expect(largest).toBeGreaterThan((19 * Math.PI) / 180);
    }
  });

  it('holds the first and last keyframe outside a path that does not loop', () => {
    const path = randomPath(8, 'smooth', false);
    expect(samplePath(path, -3).position).toEqual(path.keyframes[0].position);
    expect(samplePath(path, path.duration + 5).position).toEqual(path.keyframes.at(-1)!.position);
  });
});

describe('pathFrames', () => {
  it('gives round(duration * fps) frames, frame k at k / fps', () => {
    const path = randomPath(9, 'smooth', true);
    const frames = pathFrames(path, 24);
    expect(frames).toHaveLength(Math.round(path.duration * 24));
    expect(frames[5].timeS).toBe(5 / 24);
    expect(frames[5].position).toEqual(samplePath(path, 5 / 24).position);
    expect(() => pathFrames(path, 0)).toThrow(/fps/);
  });
});

describe('orbitPath', () => {
  const options = { centre: [1, 2, 3] as const, radius: 4, height: 1.5, up: [0, 0, 2] as const, turns: 1, duration: 2, fovYDeg: 45, keyframes: 8 };

  it('is a valid closed path whose cameras all look at the centre, upright, at the radius and height', () => {
    const path = CameraPathSchema.parse(orbitPath(options));
    expect(path.loop).toBe(true);
    const keyTimes = new Set(path.keyframes.map((k) => k.time));
    const samples = [...pathFrames(path, 30), ...path.keyframes.map((k) => ({ timeS: k.time, ...samplePath(path, k.time) }))];
    for (const frame of samples) {
      const camera = cameraAt(frame, 64, 48);
      const m = camera.worldToCamera;
      // The centre projects onto the principal point, in front of the camera: exactly at a
      // keyframe, within 0.6 degrees between them (the spline only approximates the circle).
      const [x, y, z] = [0, 1, 2].map((r) => m[r * 4] * 1 + m[r * 4 + 1] * 2 + m[r * 4 + 2] * 3 + m[r * 4 + 3]);
      const tolerance = keyTimes.has(frame.timeS) ? 1e-9 : 0.01;
      expect(z).toBeGreaterThan(0);
      expect(Math.abs(x / z)).toBeLessThan(tolerance);
      expect(Math.abs(y / z)).toBeLessThan(tolerance);
      // Camera x axis (row 0) is horizontal; its y axis (down) points against world up.
      expect(Math.abs(m[2])).toBeLessThan(tolerance);
      expect(m[6]).toBeLessThan(0);
      expect(frame.position[2] - 3).toBeCloseTo(1.5, 2);
      expect(Math.hypot(frame.position[0] - 1, frame.position[1] - 2)).toBeCloseTo(4, 1);
    }
  });

  it('a fraction of a turn ends on its last keyframe without looping; too few keyframes are refused', () => {
    const path = CameraPathSchema.parse(orbitPath({ ...options, turns: 0.5, keyframes: 4 }));
    expect(path.loop).toBe(false);
    expect(path.keyframes).toHaveLength(5);
    const end = samplePath(path, path.duration).position;
    const start = samplePath(path, 0).position;
    expect(distance(end, [2 - start[0], 4 - start[1], start[2]])).toBeLessThan(1e-9);
    expect(() => orbitPath({ ...options, keyframes: 3 })).toThrow(/at least 4 keyframes/);
    expect(() => orbitPath({ ...options, radius: 0 })).toThrow(/radius/);
  });
});

describe('cameraAt and sampleOfCamera', () => {
  it('are inverse: a camera from lookAt round-trips through a sample', () => {
    const w2c = lookAt([3, -1, 2], [0, 0.5, 0], [0, -1, 0]);
    const camera = { width: 80, height: 60, fx: 70, fy: 70, cx: 40, cy: 30, worldToCamera: w2c };
    const sample: PathSample = sampleOfCamera(camera);
    expect(sample.position.map((v) => Number(v.toFixed(9)))).toEqual([3, -1, 2]);
    expect(sample.fovYDeg).toBeCloseTo((2 * Math.atan(30 / 70) * 180) / Math.PI, 9);
    const back = cameraAt(sample, 80, 60);
    for (let i = 0; i < 16; i++) expect(back.worldToCamera[i]).toBeCloseTo(w2c[i], 9);
    expect(back.fy).toBeCloseTo(70, 9);
    const r = [w2c[0], w2c[4], w2c[8], w2c[1], w2c[5], w2c[9], w2c[2], w2c[6], w2c[10]];
    expect(rotationAngle(quatFromMatrix(r), sample.rotation)).toBeLessThan(1e-9);
  });
});
