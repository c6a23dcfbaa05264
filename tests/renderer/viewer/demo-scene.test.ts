import { describe, expect, it } from 'vitest';
import { generateDemoScene, hsvToRgb, quaternionFromBasis } from '../../../renderer/src/viewer/demo-scene.js';
import { cameraCenter, projectToPixel } from '../../../renderer/src/viewer/opencv-frame.js';
import { readSplat, robustBounds, viewSplatBuffer } from '../../../renderer/src/viewer/splat-layout.js';

describe('procedural sample scene', () => {
  const scene = generateDemoScene();

  it('is deterministic for a seed and different for another', () => {
    const same = (a: ArrayBuffer, b: ArrayBuffer) => Buffer.from(a).equals(Buffer.from(b));
    expect(same(generateDemoScene().splats, scene.splats)).toBe(true);
    const other = generateDemoScene({ seed: 2, splatCount: 100 });
    expect(same(other.splats, scene.splats.slice(0, 3200))).toBe(false);
    expect(same(generateDemoScene({ splatCount: 100 }).splats, scene.splats.slice(0, 3200))).toBe(true);
  });

  it('has the requested counts and buffer sizes', () => {
    const small = generateDemoScene({ splatCount: 10, cameraCount: 3, pointCount: 5 });
    expect(small.count).toBe(10);
    expect(small.splats.byteLength).toBe(320);
    expect(small.cameras).toHaveLength(3);
    expect(small.points.positions).toHaveLength(15);
    expect(small.points.colors).toHaveLength(20);
  });

  it('is a colourful knot of opaque, flat, unit-quaternion splats around the origin', () => {
    const views = viewSplatBuffer(scene.splats, scene.count);
    const bounds = robustBounds(views, 0, 1)!;
    for (let a = 0; a < 3; a++) expect(Math.max(Math.abs(bounds.min[a]), Math.abs(bounds.max[a]))).toBeLessThan(1.2);
    // like the engine's sample: a flat knot around the y axis (y is up)
    expect(bounds.max[1] - bounds.min[1]).toBeLessThan(0.8);
    expect(bounds.max[0] - bounds.min[0]).toBeGreaterThan(1.4);
    const hues = new Set<string>();
    for (let i = 0; i < scene.count; i += 97) {
      const s = readSplat(views, i);
      expect(s.rgba[3]).toBeGreaterThan(200);
      expect(Math.min(...s.scale)).toBeLessThan(Math.max(...s.scale) / 3);
      expect(Math.hypot(...s.quaternion)).toBeCloseTo(1, 1);
      hues.add(s.rgba.slice(0, 3).map((c) => c >> 6).join());
    }
    expect(hues.size).toBeGreaterThan(8);
  });

  it('has cameras above the knot, 3.2 from it, that all look at its centre with world +y up', () => {
    for (const cam of scene.cameras) {
      const [u, v] = projectToPixel(cam, [0, 0, 0])!;
      expect(u).toBeCloseTo(cam.cx, 6);
      expect(v).toBeCloseTo(cam.cy, 6);
      expect(Math.hypot(...cameraCenter(cam))).toBeCloseTo(3.2, 9);
      expect(cameraCenter(cam)[1]).toBeGreaterThan(1);
      // a point above the centre projects above the image centre
      expect(projectToPixel(cam, [0, 0.5, 0])![1]).toBeLessThan(cam.cy);
    }
  });

  it('builds rotations and colours correctly', () => {
    expect(quaternionFromBasis([1, 0, 0], [0, 1, 0], [0, 0, 1])).toEqual([1, 0, 0, 0]);
    const q = quaternionFromBasis([0, 1, 0], [-1, 0, 0], [0, 0, 1]); // 90 degrees about z
    expect(q[0]).toBeCloseTo(Math.SQRT1_2, 12);
    expect(q[3]).toBeCloseTo(Math.SQRT1_2, 12);
    expect(hsvToRgb(0, 1, 1)).toEqual([255, 0, 0]);
    expect(hsvToRgb(1 / 3, 1, 1)).toEqual([0, 255, 0]);
  });
});
