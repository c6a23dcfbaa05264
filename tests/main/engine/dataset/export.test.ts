import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDataset, type Dataset, type DatasetView } from '../../../../main/engine/dataset/dataset.js';
import { lensOf } from '../../../../main/engine/dataset/distortion.js';
import { exportDataset, openGlCameraToWorld } from '../../../../main/engine/dataset/export.js';
import { quaternionFromRotation, worldToCameraFromQuaternion } from '../../../../main/engine/dataset/pose.js';
import { openGlCameraToWorldToOpenCvWorldToCamera } from '../../../../shared/scene/camera.js';
import { colmapImage, writeColmapModel } from '../../../../main/engine/dataset/colmap-write.js';
import { makeColmapDataset, randomPng, tempDir } from '../../../helpers/datasets.js';
import { freshSeed, rng } from '../../../helpers/random.js';
import { sharedDataset } from '../../../helpers/shared-data.js';
import { mkdir, writeFile } from 'node:fs/promises';

const statue = sharedDataset('colmap_statue');
const mic = sharedDataset('nerf_synthetic_mic');
const temps: string[] = [];
afterAll(async () => Promise.all(temps.map((t) => rm(t, { recursive: true, force: true }))));

async function temp(prefix: string): Promise<string> {
  const dir = await tempDir(prefix);
  temps.push(dir);
  return dir;
}

const base = (v: DatasetView) => path.basename(v.name);

/** Same views (matched by file name), intrinsics, poses (1e-6), lens and split. */
function expectSameCameras(a: Dataset, b: Dataset, options: { split?: boolean } = {}): void {
  expect(b.views.map(base).sort()).toEqual(a.views.map(base).sort());
  const other = new Map(b.views.map((v) => [options.split ? `${v.split}/${base(v)}` : base(v), v]));
  for (const v of a.views) {
    const w = other.get(options.split ? `${v.split}/${base(v)}` : base(v))!;
    expect(w, v.name).toBeDefined();
    expect([w.camera.width, w.camera.height]).toEqual([v.camera.width, v.camera.height]);
    for (const k of ['fx', 'fy', 'cx', 'cy'] as const) expect(Math.abs(w.camera[k] - v.camera[k]), `${v.name} ${k}`).toBeLessThan(1e-6);
    for (let i = 0; i < 16; i++) expect(Math.abs(w.camera.worldToCamera[i] - v.camera.worldToCamera[i]), `${v.name} worldToCamera[${i}]`).toBeLessThan(1e-6);
    const lens = (x: DatasetView) => (x.distortion ? lensOf(x.distortion) : null);
    const [la, lb] = [lens(v), lens(w)];
    if (!la) expect(lb).toBeNull();
    else {
      expect(lb!.projection).toBe(la.projection);
      for (const k of ['fx', 'fy', 'cx', 'cy', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'p1', 'p2'] as const) expect(Math.abs(lb![k] - la[k]), `${v.name} lens ${k}`).toBeLessThan(1e-9);
    }
  }
}

describe('pose conversions for export', () => {
  it('quaternionFromRotation inverts worldToCameraFromQuaternion on random rotations (all four branches)', () => {
    const seed = freshSeed();
    const random = rng(seed);
    for (let i = 0; i < 200; i++) {
      const q = [random() - 0.5, random() - 0.5, random() - 0.5, random() - 0.5];
      if (i < 4) q[i] = 10; // one dominant component per branch
      const m = worldToCameraFromQuaternion(q, [1, 2, 3]);
      const back = worldToCameraFromQuaternion(quaternionFromRotation(m), [1, 2, 3]);
      for (let k = 0; k < 16; k++) expect(Math.abs(back[k] - m[k]), `seed ${seed} #${i}`).toBeLessThan(1e-12);
      expect(quaternionFromRotation(m)[0]).toBeGreaterThanOrEqual(0);
    }
  });

  it('openGlCameraToWorld is the inverse of the loaders\' OpenGL conversion', () => {
    const m = worldToCameraFromQuaternion([0.9, 0.1, -0.3, 0.2], [0.5, -1, 4]);
    const back = openGlCameraToWorldToOpenCvWorldToCamera(openGlCameraToWorld(m).flat());
    for (let k = 0; k < 16; k++) expect(back[k]).toBeCloseTo(m[k], 12);
  });
});

describe('export: write -> load gives the same cameras', () => {
  for (const [model, params] of [
    ['PINHOLE', [10, 11, 4, 3]],
    ['SIMPLE_RADIAL', [10, 4.2, 2.9, 0.03]],
    ['RADIAL', [10, 4, 3, 0.03, -0.01]],
    ['OPENCV', [10, 11, 4, 3, 0.03, -0.01, 0.001, -0.002]],
    ['FULL_OPENCV', [10, 11, 4, 3, 0.03, -0.01, 0.001, -0.002, 0.004, 0, 0, 0]],
    ['OPENCV_FISHEYE', [10, 11, 4, 3, 0.03, -0.01, 0.002, -0.001]],
  ] as const) {
    it(`${model}: to transforms.json (OPENCV or OPENCV_FISHEYE coefficients) and to a COLMAP text model (${model} kept)`, async () => {
      const source = await makeColmapDataset({ model, params: [...params], count: 4, seed: freshSeed() });
      temps.push(source.root);
      const original = await loadDataset(source.root, { testEvery: 0 });
      const out = await temp('export');
      const transforms = await exportDataset(source.root, path.join(out, 'tf'), { format: 'transforms' });
      expect(transforms).toMatchObject({ out: path.join(out, 'tf', 'transforms.json'), views: 4, points: 5, imagesCopied: 4 });
      const json = JSON.parse(await readFile(transforms.out, 'utf8'));
      expect(json.camera_model).toBe(model === 'PINHOLE' ? 'PINHOLE' : model === 'OPENCV_FISHEYE' ? 'OPENCV_FISHEYE' : 'OPENCV');
      expect(json.fl_x).toBeDefined(); // one camera: intrinsics at the top level
      expect(json.frames.map((f: { file_path: string }) => f.file_path).sort()).toEqual(['images/img_0.png', 'images/img_1.png', 'images/img_2.png', 'images/img_3.png']);
      const viaTransforms = await loadDataset(transforms.out, { testEvery: 0 });
      expectSameCameras(original, viaTransforms);
      expect([...viaTransforms.points!.positions]).toEqual([...original.points!.positions]); // sparse_pc.ply, float32 both ways

      const colmap = await exportDataset(source.root, path.join(out, 'colmap'), { format: 'colmap' });
      expect(colmap.out).toBe(path.join(out, 'colmap', 'sparse', '0'));
      expect((await readFile(path.join(colmap.out, 'cameras.txt'), 'utf8')).split('\n').filter((l) => !l.startsWith('#') && l)).toEqual([`1 ${model} 8 6 ${params.join(' ')}`]);
      const viaColmap = await loadDataset(path.join(out, 'colmap'), { testEvery: 0 });
      expectSameCameras(original, viaColmap);
      expect(viaColmap.views.map((v) => v.distortion?.model)).toEqual(original.views.map((v) => v.distortion?.model));
    });
  }

  it('a rational FULL_OPENCV (k4..k6) has no transforms.json form: refused, and the COLMAP export keeps it', async () => {
    const params = [10, 11, 4, 3, 0.03, -0.01, 0.001, -0.002, 0.004, 0.02, 0.003, 0.001];
    const source = await makeColmapDataset({ model: 'FULL_OPENCV', params, count: 2 });
    temps.push(source.root);
    const out = await temp('export');
    await expect(exportDataset(source.root, path.join(out, 'tf'), { format: 'transforms' })).rejects.toThrow(/FULL_OPENCV with k4..k6 .* has no transforms.json form/);
    const colmap = await exportDataset(source.root, path.join(out, 'colmap'), { format: 'colmap' });
    expectSameCameras(await loadDataset(source.root, { testEvery: 0 }), await loadDataset(path.join(out, 'colmap'), { testEvery: 0 }));
    expect(colmap.views).toBe(2);
  });

  it('per-frame intrinsics when the cameras differ; image names with sub-folders survive', async () => {
    const root = await temp('export-multi');
    const random = rng(freshSeed());
    const cameras = [
      { id: 1, model: 'PINHOLE', width: 8, height: 6, params: [10, 11, 4, 3], source: '' },
      { id: 2, model: 'SIMPLE_RADIAL', width: 6, height: 8, params: [9, 3, 4, 0.02], source: '' },
    ];
    const images = [colmapImage(1, 'a/one.png', 1, [1, 0.1, 0, 0], [0, 0, 3]), colmapImage(2, 'b/two.png', 2, [0.9, 0, 0.2, 0.1], [0.5, 0, 3])];
    for (const [name, w, h] of [['a/one.png', 8, 6], ['b/two.png', 6, 8]] as const) {
      await mkdir(path.join(root, 'images', path.dirname(name)), { recursive: true });
      await writeFile(path.join(root, 'images', name), randomPng(w, h, random));
    }
    await writeColmapModel(path.join(root, 'sparse', '0'), { cameras, images, points: { ids: new Float64Array(0), positions: new Float64Array(0), colors: new Uint8Array(0), errors: new Float64Array(0) } }, 'bin');
    const original = await loadDataset(root, { testEvery: 0 });
    const out = await temp('export-multi-out');
    const result = await exportDataset(root, out, { format: 'transforms' });
    const json = JSON.parse(await readFile(result.out, 'utf8'));
    expect(json.fl_x).toBeUndefined();
    expect(json.frames.map((f: { fl_x: number; file_path: string }) => [f.file_path, f.fl_x])).toEqual([['images/a/one.png', 10], ['images/b/two.png', 9]]);
    expectSameCameras(original, await loadDataset(result.out, { testEvery: 0 }));
    await exportDataset(root, path.join(out, 'colmap'), { format: 'colmap' });
    expectSameCameras(original, await loadDataset(path.join(out, 'colmap'), { testEvery: 0 }));
  });

  it.runIf(statue.available)('colmap_statue (23 real views, 1,443 points) through both formats', async () => {
    const original = await loadDataset(statue.dir, { testEvery: 0 });
    const out = await temp('export-statue');
    expectSameCameras(original, await loadDataset((await exportDataset(statue.dir, path.join(out, 'tf'), { format: 'transforms', images: 'reference' })).out, { testEvery: 0 }));
    await exportDataset(statue.dir, path.join(out, 'colmap'), { format: 'colmap' });
    const viaColmap = await loadDataset(path.join(out, 'colmap'), { testEvery: 0 });
    expectSameCameras(original, viaColmap);
    expect(viaColmap.points!.positions).toEqual(original.points!.positions);
  }, 120_000);

  it.runIf(mic.available)("NeRF-synthetic mic keeps its own train/test split (referenced images, file names kept)", async () => {
    const original = await loadDataset(mic.dir);
    const out = await temp('export-mic');
    const result = await exportDataset(mic.dir, path.join(out, 'mic.json'), { format: 'transforms', images: 'reference' });
    const json = JSON.parse(await readFile(result.out, 'utf8'));
    expect(json.test_filenames).toHaveLength(original.views.filter((v) => v.split === 'test').length);
    expect(path.basename(json.frames[0].file_path)).toBe(path.basename(original.views[0].imagePath));
    expectSameCameras(original, await loadDataset(result.out), { split: true });
  }, 120_000);

  it('refuses a reference COLMAP export and names the missing dataset', async () => {
    const source = await makeColmapDataset({});
    temps.push(source.root);
    await expect(exportDataset(source.root, await temp('x'), { format: 'colmap', images: 'reference' })).rejects.toThrow(/copies its images/);
    await expect(exportDataset('/no/such/dataset', await temp('y'), { format: 'transforms' })).rejects.toThrow(/\/no\/such\/dataset: dataset not found/);
  });
});
