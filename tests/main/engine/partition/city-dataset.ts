/**
 * A synthetic city (synthetic-city.ts) written as a COLMAP dataset: its cameras, its points, and
 * random images or real ones (writeRenderedCity: the city's points as small opaque splats of
 * random colours, rendered by our rasterizer). Shared by the partition tests and
 * bench/partition-city.ts (the H200's scene, docs/scale.md).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ColmapImage } from '../../../../main/engine/dataset/colmap-model.js';
import { colmapImage, writeColmapModel } from '../../../../main/engine/dataset/colmap-write.js';
import type { GpuContext } from '../../../../main/engine/gpu/context.js';
import { renderImage } from '../../../../main/engine/render/render-image.js';
import type { PinholeCamera } from '../../../../shared/scene/camera.js';
import { emptySplats, SH_C0, type SplatSet } from '../../../../shared/scene/splats.js';
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

/** The city's points as small opaque splats of random colours: the scene a rendered city's images show. */
export function citySplats(points: Float64Array, random: () => number, scale = 0.12): SplatSet {
  const n = points.length / 3;
  const s = emptySplats(n, 0);
  s.means.set(points);
  for (let i = 0; i < n; i++) {
    s.logScales.set([Math.log(scale), Math.log(scale), Math.log(scale)], 3 * i);
    s.quats.set([1, 0, 0, 0], 4 * i);
    s.opacityLogits[i] = 4;
    for (let c = 0; c < 3; c++) s.sh[3 * i + c] = (random() - 0.5) / SH_C0;
  }
  return s;
}

/** The city as a COLMAP dataset whose images are `scene` (default: citySplats of its points) rendered over black. */
export async function writeRenderedCity(ctx: GpuContext, city: City, root: string, random: () => number, scene: SplatSet = citySplats(city.points, random)): Promise<SplatSet> {
  await writeCityDataset(city, root, random, async (camera) => {
    const { rgba } = await renderImage(ctx, scene, camera, { background: [0, 0, 0], antialiased: false, shDegree: 0 });
    return Uint8Array.from({ length: camera.width * camera.height * 3 }, (_, i) => Math.round(Math.min(1, Math.max(0, rgba[4 * Math.floor(i / 3) + (i % 3)]!)) * 255));
  });
  return scene;
}
