import { describe, expect, it } from 'vitest';
import { CameraPathSchema } from '../../../shared/scene/camera-path.js';

const key = (time: number, x = 0) => ({ time, position: [x, 0, -3], rotation: [0, 0, 0, 1], fovYDeg: 50 });
const issues = (value: unknown) => CameraPathSchema.safeParse(value).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') ?? '';

describe('camera path files', () => {
  it('accepts an orbit and refuses NaN keys, times that do not increase, a loop that ends on its last keyframe, by field', () => {
    const orbit = { id: 'orbit', name: 'Orbit', interpolation: 'smooth', loop: true, duration: 4, keyframes: [key(0), key(1, 1), key(2, 2)] };
    expect(CameraPathSchema.parse(orbit)).toEqual(orbit);
    expect(issues({ ...orbit, keyframes: [key(0), { ...key(1), position: [Number.NaN, 0, 0] }] })).toMatch(/keyframes\.1\.position\.0: /);
    expect(issues({ ...orbit, keyframes: [key(0), key(2), key(1)] })).toMatch(/keyframes\.2\.time: keyframe times must increase \(2 then 1\)/);
    expect(issues({ ...orbit, duration: 2 })).toMatch(/duration: duration 2 s must be past the last keyframe's time \(2 s\)/);
    expect(issues({ ...orbit, loop: false, duration: 2 })).toBe('');
    expect(issues({ ...orbit, keyframes: [key(0)] })).toMatch(/keyframes: /);
  });

  it('refuses an empty keyframe list as an issue (the refinement does not throw on it)', () => {
    const empty = { id: 'p', name: 'P', interpolation: 'linear', loop: false, duration: 1, keyframes: [] };
    expect(() => CameraPathSchema.safeParse(empty)).not.toThrow();
    expect(issues(empty)).toMatch(/keyframes: /);
  });
});
