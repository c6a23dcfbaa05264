/**
 * NeRF-synthetic (Blender) scenes: `transforms_train.json` and `transforms_test.json` beside
 * `train/` and `test/` PNGs (`file_path` without extension), `camera_angle_x` for a square pinhole,
 * RGBA images composited over white by default. The split is the dataset's own; the val split is
 * ignored. Frames stay in file order (r_0, r_1, ...), train then test, as 3DGS reads them.
 */
import path from 'node:path';
import { badInput } from '../../../shared/rpc/errors.js';
import type { SourceDataset } from './source-view.js';
import { readJsonObject, readTransformsFrames } from './transforms.js';

export async function readNerfSynthetic(root: string): Promise<SourceDataset> {
  const views = [];
  for (const split of ['train', 'test'] as const) {
    const file = path.join(root, `transforms_${split}.json`);
    const json = await readJsonObject(file);
    if (typeof json.camera_angle_x !== 'number') throw badInput(file, 'camera_angle_x must be a number (the horizontal field of view in radians)');
    views.push(...(await readTransformsFrames(file, json, { split })));
  }
  return { root, format: 'nerf-synthetic', views, defaultBackground: [1, 1, 1] };
}
