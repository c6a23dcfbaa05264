/** A synthetic city (synthetic-city.ts) written as a COLMAP dataset: its cameras, its points, random images. */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ColmapImage } from '../../../../main/engine/dataset/colmap-model.js';
import { colmapImage, writeColmapModel } from '../../../../main/engine/dataset/colmap-write.js';
import type { PinholeCamera } from '../../../../shared/scene/camera.js';
import { randomPng } from '../../../helpers/datasets.js';
import { encodePng } from '../../../helpers/images.js';
import type { City } from './synthetic-city.js';

/** Rotation (row-major 3x3) -> unit quaternion (w, x, y, z), Shepperd's method. */
export function quaternionOf(m: readonly number[]): [number, number, number, number] {
  const [a, b, c, d, e, f, g, h, i] = m as [number, number, number, number, number, number, number, number, number];
  const trace = a + e + i;
  if (trace > 0) {
    const s = 2 * Math.sqrt(1 + trace);
    return [s / 4, (h - f) / s, (c - g) / s, (d - b) / s];
  }
  if (a > e && a > i) {
    const s = 2 * Math.sqrt(1 + a - e - i);
    return [(h - f) / s, s / 4, (b + d) / s, (c + g) / s];
  }
  if (e > i) {
    const s = 2 * Math.sqrt(1 + e - a - i);
    return [(c - g) / s, (b + d) / s, s / 4, (f + h) / s];
  }
  const s = 2 * Math.sqrt(1 + i - a - e);
  return [(d - b) / s, (c + g) / s, (f + h) / s, s / 4];
}

/** `image`: a view's pixels (RGB bytes, row-major) when the dataset should show something; random noise otherwise. */
export async function writeCityDataset(city: City, root: string, random: () => number, image?: (camera: PinholeCamera) => Promise<Uint8Array>): Promise<void> {
  const first = city.cameras[0]!.camera;
  const images: ColmapImage[] = [];
  await mkdir(path.join(root, 'images'), { recursive: true });
  for (const [index, { name, camera }] of city.cameras.entries()) {
    const w = camera.worldToCamera;
    images.push(colmapImage(index + 1, name, 1, quaternionOf([w[0]!, w[1]!, w[2]!, w[4]!, w[5]!, w[6]!, w[8]!, w[9]!, w[10]!]), [w[3]!, w[7]!, w[11]!]));
    const png = image ? encodePng({ width: camera.width, height: camera.height, colorType: 2, depth: 8, samples: [...(await image(camera))] }) : randomPng(camera.width, camera.height, random);
    await writeFile(path.join(root, 'images', name), png);
  }
  const n = city.points.length / 3;
  await writeColmapModel(path.join(root, 'sparse', '0'), {
    cameras: [{ id: 1, model: 'PINHOLE', width: first.width, height: first.height, params: [first.fx, first.fy, first.cx, first.cy], source: '' }],
    images,
    points: { ids: Float64Array.from({ length: n }, (_, i) => i + 1), positions: Float64Array.from(city.points), colors: Uint8Array.from({ length: n * 3 }, () => Math.floor(random() * 256)), errors: new Float64Array(n) },
  }, 'bin');
}
