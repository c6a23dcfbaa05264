import { mkdtemp, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readColmapModel } from '../../../../main/engine/dataset/colmap.js';
import { loadDataset } from '../../../../main/engine/dataset/dataset.js';
import { writeColmapModel } from '../../../../main/engine/dataset/colmap-write.js';
import { percentile, project } from '../../../helpers/geometry.js';
import { sharedDataset } from '../../../helpers/shared-data.js';

const statue = sharedDataset('colmap_statue');
const maupertuis = sharedDataset('colmap_txt_maupertuis');
const temps: string[] = [];
afterAll(async () => Promise.all(temps.map((t) => rm(t, { recursive: true, force: true }))));

/** Reprojection errors of every 2D observation with a 3D point, using the dataset's cameras. */
async function reprojectionErrors(root: string): Promise<number[]> {
  const dataset = await loadDataset(root);
  const model = await readColmapModel(path.join(root, 'sparse', '0'));
  const pointIndex = new Map<number, number>();
  model.points.ids.forEach((id, i) => pointIndex.set(id, i));
  const errors: number[] = [];
  for (const image of model.images) {
    const camera = dataset.views.find((v) => v.name === image.name)!.camera;
    for (let k = 0; k < image.point3DIds.length; k++) {
      const i = pointIndex.get(image.point3DIds[k]);
      if (i === undefined) continue;
      const p = model.points.positions;
      const { u, v, depth } = project(camera, p[i * 3], p[i * 3 + 1], p[i * 3 + 2]);
      expect(depth).toBeGreaterThan(0);
      errors.push(Math.hypot(u - image.xy[2 * k], v - image.xy[2 * k + 1]));
    }
  }
  return errors;
}

/** Fraction of (point, view) pairs in front of the camera and inside the image. */
function fractionInside(dataset: Awaited<ReturnType<typeof loadDataset>>): number {
  const p = dataset.points!.positions;
  let inside = 0;
  for (const view of dataset.views) {
    const c = view.camera;
    for (let i = 0; i < p.length; i += 3) {
      const { u, v, depth } = project(c, p[i], p[i + 1], p[i + 2]);
      if (depth > 0 && u >= 0 && u < c.width && v >= 0 && v < c.height) inside++;
    }
  }
  return inside / ((p.length / 3) * dataset.views.length);
}

describe('COLMAP binary: colmap_statue', () => {
  it.runIf(statue.available)('has 23 PINHOLE views sorted by name, every 8th held out, 1443 points', async () => {
    const dataset = await loadDataset(statue.dir);
    expect(dataset.format).toBe('colmap');
    expect(dataset.views).toHaveLength(23);
    expect(dataset.points!.positions).toHaveLength(1443 * 3);
    expect(dataset.points!.colors).toHaveLength(1443 * 3);
    const names = dataset.views.map((v) => v.name);
    expect(names).toEqual([...names].sort());
    expect(dataset.views.filter((v) => v.split === 'test').map((v) => v.name)).toEqual([names[0], names[8], names[16]]);
    for (const view of dataset.views) {
      expect(view.distortion).toBeUndefined();
      expect(view.camera.width).toBe(1000);
      expect(view.camera.height).toBeGreaterThanOrEqual(656);
      expect(view.camera.height).toBeLessThanOrEqual(662);
      expect(view.camera.fx).toBeGreaterThan(2000);
    }
    expect(dataset.sceneScale).toBeGreaterThan(0);
  });

  it.runIf(statue.available)('projects its SfM points onto their 2D observations (sub-pixel median)', async () => {
    const errors = await reprojectionErrors(statue.dir);
    expect(errors.length).toBeGreaterThan(5000);
    expect(percentile(errors, 0.5)).toBeLessThan(1);
    expect(percentile(errors, 0.95)).toBeLessThan(3);
  });

  it.runIf(statue.available)('sees most SfM points inside most images', async () => {
    expect(fractionInside(await loadDataset(statue.dir))).toBeGreaterThan(0.8);
  });

  it.runIf(statue.available)('scales intrinsics with --downscale 2.5 (size rounded, focal and centre by the exact ratio)', async () => {
    const full = await loadDataset(statue.dir);
    const small = await loadDataset(statue.dir, { downscale: 2.5 });
    for (let i = 0; i < full.views.length; i++) {
      const a = full.views[i].camera;
      const b = small.views[i].camera;
      expect(b.width).toBe(Math.round(a.width / 2.5));
      expect(b.height).toBe(Math.round(a.height / 2.5));
      expect(b.fx).toBeCloseTo((a.fx * b.width) / a.width, 9);
      expect(b.cy).toBeCloseTo((a.cy * b.height) / a.height, 9);
      expect(b.worldToCamera).toEqual(a.worldToCamera);
    }
  });
});

describe('COLMAP text: colmap_txt_maupertuis', () => {
  it.runIf(maupertuis.available)('has 4 SIMPLE_PINHOLE views and 1039 points', async () => {
    const dataset = await loadDataset(maupertuis.dir);
    expect(dataset.views.map((v) => v.name)).toEqual(['00.jpg', '01.jpg', '02.jpg', '03.jpg']);
    expect(dataset.views.map((v) => v.split)).toEqual(['test', 'train', 'train', 'train']);
    expect(dataset.points!.positions).toHaveLength(1039 * 3);
    const c = dataset.views[0].camera;
    expect([c.width, c.height, c.fx, c.fy, c.cx, c.cy]).toEqual([1919, 1079, 1847.53, 1847.53, 959.5, 539.5]);
  });

  it.runIf(maupertuis.available)('projects its SfM points onto their 2D observations and inside the images', async () => {
    const errors = await reprojectionErrors(maupertuis.dir);
    expect(errors.length).toBeGreaterThan(1000);
    expect(percentile(errors, 0.5)).toBeLessThan(1.5);
    expect(fractionInside(await loadDataset(maupertuis.dir))).toBeGreaterThan(0.8);
  });
});

describe('COLMAP binary and text agree', () => {
  it.runIf(statue.available)('the statue model written as text loads to identical cameras, poses and points', async () => {
    const model = await readColmapModel(path.join(statue.dir, 'sparse', '0'));
    const root = await mkdtemp(path.join(os.tmpdir(), 'argonaut-colmap-txt-'));
    temps.push(root);
    await writeColmapModel(path.join(root, 'sparse', '0'), { cameras: [...model.cameras.values()], images: model.images, points: model.points }, 'txt');
    await symlink(path.join(statue.dir, 'images'), path.join(root, 'images'));
    const fromBin = await loadDataset(statue.dir);
    const fromTxt = await loadDataset(root);
    expect(fromTxt.views.map((v) => v.camera)).toEqual(fromBin.views.map((v) => v.camera));
    expect(fromTxt.views.map((v) => [v.name, v.split])).toEqual(fromBin.views.map((v) => [v.name, v.split]));
    expect(fromTxt.points).toEqual(fromBin.points);
    const txtModel = await readColmapModel(path.join(root, 'sparse', '0'));
    expect(txtModel.images.map((im) => [...im.xy])).toEqual(model.images.map((im) => [...im.xy]));
  });
});
