import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDataset, loadViewImage } from '../../../../main/engine/dataset/dataset.js';
import { cameraCenter } from '../../../../main/engine/dataset/pose.js';
import { tempDir } from '../../../helpers/datasets.js';
import { lookAtOpenGl } from '../../../helpers/geometry.js';
import { encodePng } from '../../../helpers/images.js';
import { sharedDataset } from '../../../helpers/shared-data.js';

const mic = sharedDataset('nerf_synthetic_mic');
const roots: string[] = [];
afterAll(async () => Promise.all(roots.map((r) => rm(r, { recursive: true, force: true }))));

/** Angle in degrees between the camera's viewing axis (+z in OpenCV axes) and the direction to the origin. */
function degreesOffOrigin(worldToCamera: readonly number[]): number {
  const forward = [worldToCamera[8], worldToCamera[9], worldToCamera[10]]; // third row of R: camera z in world
  const c = cameraCenter(worldToCamera);
  const toOrigin = c.map((v) => -v);
  const cos = (forward[0] * toOrigin[0] + forward[1] * toOrigin[1] + forward[2] * toOrigin[2]) / (Math.hypot(...forward) * Math.hypot(...toOrigin));
  return (Math.acos(Math.min(1, cos)) * 180) / Math.PI;
}

describe('NeRF-synthetic: nerf_synthetic_mic', () => {
  it.runIf(mic.available)('has its own split: 100 train then 200 test views, in file order, white background', async () => {
    const dataset = await loadDataset(mic.dir);
    expect(dataset.format).toBe('nerf-synthetic');
    expect(dataset.background).toEqual([1, 1, 1]);
    expect(dataset.points).toBeUndefined();
    expect(dataset.views.filter((v) => v.split === 'train')).toHaveLength(100);
    expect(dataset.views.filter((v) => v.split === 'test')).toHaveLength(200);
    expect(dataset.views.slice(0, 3).map((v) => v.name)).toEqual(['train/r_0.png', 'train/r_1.png', 'train/r_2.png']);
    expect(dataset.views[100].name).toBe('test/r_0.png');
    const c = dataset.views[0].camera;
    expect([c.width, c.height, c.cx, c.cy]).toEqual([800, 800, 400, 400]);
    expect(c.fx).toBeCloseTo(1111.111, 2); // 0.5 * 800 / tan(0.5 * camera_angle_x)
    expect(c.fy).toBe(c.fx);
  });

  it.runIf(mic.available)('every camera looks at the object at the origin (within 2 degrees)', async () => {
    const dataset = await loadDataset(mic.dir);
    const worst = Math.max(...dataset.views.map((v) => degreesOffOrigin(v.camera.worldToCamera)));
    expect(worst).toBeLessThan(2);
    for (const v of dataset.views) expect(Math.hypot(...cameraCenter(v.camera.worldToCamera))).toBeCloseTo(4.03, 1);
  });

  it.runIf(mic.available)('loads an image composited over white (transparent corners), and at --downscale 2', async () => {
    const dataset = await loadDataset(mic.dir, { downscale: 2 });
    const view = dataset.views[0];
    expect(view.camera.width).toBe(400);
    expect(view.camera.fx).toBeCloseTo(1111.111 / 2, 2);
    const image = await loadViewImage(view, { downscale: 2, background: dataset.background, cacheDir: null });
    expect([image.width, image.height, image.rgb.length]).toEqual([400, 400, 400 * 400 * 3]);
    expect([...image.rgb.subarray(0, 3)]).toEqual([1, 1, 1]);
    let dark = 0;
    for (let i = 0; i < image.rgb.length; i += 3) if (image.rgb[i] < 0.5) dark++;
    expect(dark).toBeGreaterThan(500); // the microphone itself
    const overBlack = await loadViewImage(view, { downscale: 2, background: [0, 0, 0], cacheDir: null });
    expect([...overBlack.rgb.subarray(0, 3)]).toEqual([0, 0, 0]);
  });
});

describe('NeRF-synthetic layout (synthetic data)', () => {
  it('reads both splits, adds .png, composites over white by default and over the chosen colour', async () => {
    const root = await tempDir('blender');
    roots.push(root);
    for (const split of ['train', 'test']) {
      await mkdir(path.join(root, split));
      const frames = [];
      for (let i = 0; i < 2; i++) {
        // Half transparent, half opaque red.
        const samples = Array.from({ length: 4 * 2 }, (_, p) => (p % 4 < 2 ? [0, 0, 0, 0] : [255, 0, 0, 255])).flat();
        await writeFile(path.join(root, split, `r_${i}.png`), encodePng({ width: 4, height: 2, colorType: 6, depth: 8, samples }));
        frames.push({ file_path: `./${split}/r_${i}`, transform_matrix: lookAtOpenGl([0, -3, 1 + i], [0, 0, 0]) });
      }
      await writeFile(path.join(root, `transforms_${split}.json`), JSON.stringify({ camera_angle_x: 0.7, frames }));
    }
    const dataset = await loadDataset(root);
    expect(dataset.views.map((v) => `${v.split}:${v.name}`)).toEqual(['train:train/r_0.png', 'train:train/r_1.png', 'test:test/r_0.png', 'test:test/r_1.png']);
    const white = await loadViewImage(dataset.views[0], { background: dataset.background, cacheDir: null });
    expect([...white.rgb.subarray(0, 3)]).toEqual([1, 1, 1]);
    expect([...white.rgb.subarray(6, 9)]).toEqual([1, 0, 0]);
    const grey = await loadViewImage((await loadDataset(root, { background: [0.5, 0.5, 0.5] })).views[0], { background: [0.5, 0.5, 0.5], cacheDir: null });
    expect(grey.rgb[0]).toBeCloseTo(128 / 255, 6); // quantized to 8 bits like every processed image
    expect((await loadDataset(path.join(root, 'transforms_test.json'))).format).toBe('nerf-synthetic');
  });
});
