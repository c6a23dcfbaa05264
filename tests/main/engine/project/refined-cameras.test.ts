import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDataset } from '../../../../main/engine/dataset/dataset.js';
import { exportDataset } from '../../../../main/engine/dataset/export.js';
import { readRefinedCameras, refinedCamera, writeRefinedCameras } from '../../../../main/engine/project/refined-cameras.js';
import { correctCamera, type ViewCorrection } from '../../../../shared/scene/camera-correction.js';
import { makeColmapDataset, tempDir } from '../../../helpers/datasets.js';

const temps: string[] = [];
afterAll(async () => Promise.all(temps.map((t) => rm(t, { recursive: true, force: true }))));

const CORRECTION: ViewCorrection = { name: 'img_1.png', pose: { rotation: [0.01, -0.02, 0.005], translation: [0.03, 0, -0.01] }, intrinsics: { logFocal: [0.02, 0.01], principal: [0.001, -0.002] } };

describe("a run's refined cameras (cameras.json)", () => {
  it('round-trip exactly and apply by view name (other views keep their camera)', async () => {
    const dir = await tempDir('refined');
    temps.push(dir);
    const file = path.join(dir, 'cameras.json');
    await writeRefinedCameras(file, [CORRECTION]);
    const back = await readRefinedCameras(file);
    expect(back.get('img_1.png')).toEqual(CORRECTION);
    const camera = { width: 8, height: 6, fx: 10, fy: 11, cx: 4, cy: 3, worldToCamera: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 4, 0, 0, 0, 1] };
    expect(refinedCamera(back, 'img_1.png', camera)).toEqual(correctCamera(camera, CORRECTION.pose, CORRECTION.intrinsics));
    expect(refinedCamera(back, 'img_0.png', camera)).toBe(camera);
  });

  it('refuses a broken file by name and field', async () => {
    const dir = await tempDir('refined-bad');
    temps.push(dir);
    const file = path.join(dir, 'cameras.json');
    await writeFile(file, JSON.stringify({ format: 'argonaut-refined-cameras', version: 1, views: [{ name: 'a', rotation: [0, 0], translation: [0, 0, 0], logFocal: [0, 0], principal: [0, 0] }] }));
    await expect(readRefinedCameras(file)).rejects.toMatchObject({ code: 'bad_input', message: expect.stringContaining('cameras.json: views[0]: expected name, rotation[3]') });
    await writeFile(file, '{"format": "something else", "views": []}');
    await expect(readRefinedCameras(file)).rejects.toMatchObject({ message: expect.stringContaining('not a refined-cameras file') });
  });

  it('export --format colmap writes the refined camera of a refined view', async () => {
    const { root } = await makeColmapDataset({ count: 3 });
    temps.push(root);
    const out = await tempDir('refined-export');
    temps.push(out);
    const corrections = new Map([[CORRECTION.name, CORRECTION]]);
    await exportDataset(root, out, { format: 'colmap', camera: (v) => refinedCamera(corrections, v.name, v.camera) });
    const original = await loadDataset(root, { testEvery: 0 });
    const exported = await loadDataset(out, { testEvery: 0 });
    for (const v of original.views) {
      const w = exported.views.find((x) => path.basename(x.name) === path.basename(v.name))!;
      const want = refinedCamera(corrections, v.name, v.camera);
      for (const k of ['fx', 'fy', 'cx', 'cy'] as const) expect(Math.abs(w.camera[k] - want[k]), `${v.name} ${k}`).toBeLessThan(1e-9);
      for (let i = 0; i < 12; i++) expect(Math.abs(w.camera.worldToCamera[i] - want.worldToCamera[i]), `${v.name} [${i}]`).toBeLessThan(1e-9);
    }
    expect(original.views.some((v) => v.name === CORRECTION.name)).toBe(true);
    expect(await readFile(path.join(out, 'sparse', '0', 'cameras.txt'), 'utf8')).toContain('PINHOLE'); // two cameras now: the refined view's intrinsics differ
  });
});
