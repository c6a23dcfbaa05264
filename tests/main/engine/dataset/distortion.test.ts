import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readColmapModel } from '../../../../main/engine/dataset/colmap.js';
import {
  distortNormalized,
  distortPixel,
  lensOf,
  undistortNormalized,
  undistortPixel,
  type Lens,
} from '../../../../main/engine/dataset/distortion.js';
import { worldToCameraFromQuaternion } from '../../../../main/engine/dataset/pose.js';
import { percentile, project } from '../../../helpers/geometry.js';
import { freshSeed, rng } from '../../../helpers/random.js';
import { undistortImage } from '../../../helpers/undistort.js';
import { sharedDataset } from '../../../helpers/shared-data.js';

const lens: Lens = lensOf({ model: 'OPENCV', params: [100, 95, 60.5, 44.5, -0.2, 0.05, 0.01, -0.005] });

describe('distortion model', () => {
  it('follows the OPENCV polynomial (hand-computed point)', () => {
    const [x, y] = [0.3, -0.2];
    const r2 = 0.13;
    const radial = -0.2 * r2 + 0.05 * r2 * r2;
    const xd = x * (1 + radial) + 2 * 0.01 * x * y + -0.005 * (r2 + 2 * x * x);
    const yd = y * (1 + radial) + 0.01 * (r2 + 2 * y * y) + 2 * -0.005 * x * y;
    const [ax, ay] = distortNormalized(lens, x, y);
    expect(ax).toBeCloseTo(xd, 14);
    expect(ay).toBeCloseTo(yd, 14);
  });

  const seed = freshSeed();
  it(`undistortion inverts distortion to 1e-9 px across the image (seed ${seed})`, () => {
    const random = rng(seed);
    for (let i = 0; i < 500; i++) {
      const u = random() * 121;
      const v = random() * 89;
      const [uu, vu] = undistortPixel(lens, u, v);
      const [ud, vd] = distortPixel(lens, uu, vu);
      expect(Math.hypot(ud - u, vd - v)).toBeLessThan(1e-9);
      const [xn, yn] = undistortNormalized(lens, ...distortNormalized(lens, (u - 60.5) / 100, (v - 44.5) / 95));
      expect(Math.hypot(xn - (u - 60.5) / 100, yn - (v - 44.5) / 95)).toBeLessThan(1e-12);
    }
  });

  it('maps COLMAP parameter orders to one lens', () => {
    const none = { k1: 0, k2: 0, k3: 0, k4: 0, k5: 0, k6: 0, p1: 0, p2: 0 };
    expect(lensOf({ model: 'SIMPLE_RADIAL', params: [500, 320, 240, 0.1] })).toEqual({ projection: 'perspective', fx: 500, fy: 500, cx: 320, cy: 240, ...none, k1: 0.1 });
    expect(lensOf({ model: 'RADIAL', params: [500, 320, 240, 0.1, -0.02] })).toMatchObject({ k1: 0.1, k2: -0.02 });
    expect(lensOf({ model: 'OPENCV', params: [500, 510, 320, 240, 0.1, -0.02, 0.001, 0.002] })).toEqual({ projection: 'perspective', fx: 500, fy: 510, cx: 320, cy: 240, ...none, k1: 0.1, k2: -0.02, p1: 0.001, p2: 0.002 });
    expect(lensOf({ model: 'FULL_OPENCV', params: [500, 510, 320, 240, 0.1, -0.02, 0.001, 0.002, 0.003, 0.04, 0.005, 0.0006] })).toEqual({
      projection: 'perspective', fx: 500, fy: 510, cx: 320, cy: 240, k1: 0.1, k2: -0.02, p1: 0.001, p2: 0.002, k3: 0.003, k4: 0.04, k5: 0.005, k6: 0.0006,
    });
    expect(lensOf({ model: 'OPENCV_FISHEYE', params: [500, 510, 320, 240, 0.1, -0.02, 0.003, -0.0004] })).toEqual({ projection: 'fisheye', fx: 500, fy: 510, cx: 320, cy: 240, ...none, k1: 0.1, k2: -0.02, k3: 0.003, k4: -0.0004 });
    expect(lensOf({ model: 'SIMPLE_RADIAL_FISHEYE', params: [500, 320, 240, 0.1] })).toEqual({ projection: 'fisheye', fx: 500, fy: 500, cx: 320, cy: 240, ...none, k1: 0.1 });
    expect(lensOf({ model: 'RADIAL_FISHEYE', params: [500, 320, 240, 0.1, 0.02] })).toEqual({ projection: 'fisheye', fx: 500, fy: 500, cx: 320, cy: 240, ...none, k1: 0.1, k2: 0.02 });
    expect(() => lensOf({ model: 'FOV', params: [1, 1, 1, 1, 0.1] }, 'cameras.bin', 'record 1')).toThrow(/cameras.bin: record 1: cannot undistort camera model FOV/);
    expect(() => lensOf({ model: 'OPENCV', params: [1, 2, 3] }, 'x.json', 'frames[0]')).toThrow(/needs 8 finite parameters/);
    expect(() => lensOf({ model: 'OPENCV_FISHEYE', params: [1, 2, 3, 4, NaN, 0, 0, 0] }, 'x.json', 'frames[0]')).toThrow(/x.json: frames\[0\]: OPENCV_FISHEYE needs 8 finite parameters/);
  });

  it('undistortImage resamples a distorted picture back to the pinhole one', () => {
    // A smooth pattern defined on undistorted normalized coordinates...
    const pattern = (x: number, y: number): number => 0.5 + 0.4 * Math.sin(6 * x) * Math.cos(5 * y);
    const w = 121;
    const h = 89;
    // ...photographed through the lens: distorted pixel (u, v) sees the ray undistort(u, v).
    const distorted = new Float32Array(w * h);
    for (let v = 0; v < h; v++) {
      for (let u = 0; u < w; u++) {
        const [x, y] = undistortNormalized(lens, (u + 0.5 - lens.cx) / lens.fx, (v + 0.5 - lens.cy) / lens.fy);
        distorted[v * w + u] = pattern(x, y);
      }
    }
    const { image: out } = undistortImage({ width: w, height: h, channels: 1, data: distorted }, lens);
    const errors: number[] = [];
    const unchanged: number[] = [];
    for (let v = 0; v < h; v++) {
      for (let u = 0; u < w; u++) {
        const [sx, sy] = distortPixel(lens, u + 0.5, v + 0.5);
        if (sx < 1 || sx > w - 1 || sy < 1 || sy > h - 1) continue; // rays leaving the photo
        const truth = pattern((u + 0.5 - lens.cx) / lens.fx, (v + 0.5 - lens.cy) / lens.fy);
        errors.push(Math.abs(out.data[v * w + u] - truth));
        unchanged.push(Math.abs(distorted[v * w + u] - truth));
      }
    }
    expect(errors.length).toBeGreaterThan(0.8 * w * h);
    expect(Math.max(...errors)).toBeLessThan(0.02); // bilinear interpolation error only
    expect(percentile(unchanged, 0.9)).toBeGreaterThan(0.05); // the distortion was not negligible
  });
});

const statue = sharedDataset('colmap_statue');

describe('undistortion agrees with COLMAP image_undistorter (colmap_statue)', () => {
  it.runIf(statue.available)('SIMPLE_RADIAL keypoints, undistorted by us, land on the PINHOLE model (observations and projections)', async () => {
    const distorted = await readColmapModel(path.join(statue.dir, 'distorted_sparse', '0'));
    const pinhole = await readColmapModel(path.join(statue.dir, 'sparse', '0'));
    const pointIndex = new Map<number, number>();
    pinhole.points.ids.forEach((id, i) => pointIndex.set(id, i));
    const toObservation: number[] = [];
    const toProjection: number[] = [];
    const withoutUndistortion: number[] = [];
    for (const image of distorted.images) {
      const camera = distorted.cameras.get(image.cameraId)!;
      expect(camera.model).toBe('SIMPLE_RADIAL');
      const ours = lensOf({ model: camera.model, params: camera.params });
      const target = pinhole.images.find((im) => im.name === image.name)!;
      const tc = pinhole.cameras.get(target.cameraId)!;
      expect(tc.model).toBe('PINHOLE');
      const [fx2, fy2, cx2, cy2] = tc.params;
      const viewCamera = { width: tc.width, height: tc.height, fx: fx2, fy: fy2, cx: cx2, cy: cy2, worldToCamera: worldToCameraFromQuaternion(target.qvec, target.tvec) };
      // Our undistorted image is a pinhole of the same focal and centre; COLMAP's is rescaled and
      // cropped, so compare in its pixels through the shared normalized coordinates.
      const toTarget = (u: number, v: number): [number, number] => [((u - ours.cx) / ours.fx) * fx2 + cx2, ((v - ours.cy) / ours.fy) * fy2 + cy2];
      for (let k = 0; k < image.point3DIds.length; k++) {
        const id = image.point3DIds[k];
        const i = pointIndex.get(id);
        if (id < 0 || i === undefined) continue;
        const [du, dv] = [image.xy[2 * k], image.xy[2 * k + 1]];
        const [u, v] = toTarget(...undistortPixel(ours, du, dv));
        toObservation.push(Math.hypot(u - target.xy[2 * k], v - target.xy[2 * k + 1]));
        const p = pinhole.points.positions;
        const projected = project(viewCamera, p[i * 3], p[i * 3 + 1], p[i * 3 + 2]);
        toProjection.push(Math.hypot(u - projected.u, v - projected.v));
        const [nu, nv] = toTarget(du, dv);
        withoutUndistortion.push(Math.hypot(nu - target.xy[2 * k], nv - target.xy[2 * k + 1]));
      }
    }
    expect(toObservation.length).toBeGreaterThan(5000);
    // COLMAP undistorted the same keypoints: we must agree to a small fraction of a pixel...
    expect(percentile(toObservation, 0.99)).toBeLessThan(0.05);
    // ...and land within the model's reprojection error of the projected SfM points.
    expect(percentile(toProjection, 0.5)).toBeLessThan(1);
    expect(percentile(toProjection, 0.95)).toBeLessThan(2);
    // Ignoring the distortion would be visibly wrong.
    expect(percentile(withoutUndistortion, 0.9)).toBeGreaterThan(0.3);
  });
});
