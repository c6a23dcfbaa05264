/** Small synthetic datasets written to temporary folders, for loader and error tests. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ColmapCamera, ColmapImage, ColmapPoints } from '../../main/engine/dataset/colmap-model.js';
import { colmapImage, writeColmapModel } from '../../main/engine/dataset/colmap-write.js';
import { encodePng } from './images.js';
import { rng } from './random.js';

export async function tempDir(prefix: string): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), `argonaut-${prefix}-`));
}

export interface SyntheticColmap {
  root: string;
  sparse: string;
  cameras: ColmapCamera[];
  images: ColmapImage[];
  points: ColmapPoints;
}

export interface SyntheticColmapOptions {
  kind?: 'bin' | 'txt';
  model?: string;
  params?: number[];
  width?: number;
  height?: number;
  count?: number;
  seed?: number;
}

/** A random RGB PNG of the given size. */
export function randomPng(width: number, height: number, random: () => number): Uint8Array {
  return encodePng({ width, height, colorType: 2, depth: 8, samples: Array.from({ length: width * height * 3 }, () => Math.floor(random() * 256)) });
}

/**
 * `count` views of one camera around the origin (looking roughly down +z from z = -4), images
 * `img_0.png`..., a handful of points near the origin. Written in binary or text form.
 */
export async function makeColmapDataset(options: SyntheticColmapOptions = {}): Promise<SyntheticColmap> {
  const { kind = 'bin', model = 'PINHOLE', width = 8, height = 6, count = 3, seed = 1 } = options;
  const random = rng(seed);
  const root = await tempDir('colmap');
  const sparse = path.join(root, 'sparse', '0');
  const params = options.params ?? (model === 'PINHOLE' ? [10, 11, width / 2, height / 2] : [10, width / 2, height / 2]);
  const cameras: ColmapCamera[] = [{ id: 1, model, width, height, params, source: '' }];
  const images: ColmapImage[] = [];
  await mkdir(path.join(root, 'images'), { recursive: true });
  for (let i = 0; i < count; i++) {
    const name = `img_${i}.png`;
    const q: [number, number, number, number] = [1, 0.05 * (random() - 0.5), 0.05 * (random() - 0.5), 0.05 * (random() - 0.5)];
    images.push(colmapImage(i + 1, name, 1, q, [random() - 0.5, random() - 0.5, 4]));
    await writeFile(path.join(root, 'images', name), randomPng(width, height, random));
  }
  const n = 5;
  const points: ColmapPoints = {
    ids: Float64Array.from({ length: n }, (_, i) => i + 1),
    positions: Float64Array.from({ length: n * 3 }, () => random() - 0.5),
    colors: Uint8Array.from({ length: n * 3 }, () => Math.floor(random() * 256)),
    errors: Float64Array.from({ length: n }, () => random()),
  };
  await writeColmapModel(sparse, { cameras, images, points }, kind);
  return { root, sparse, cameras, images, points };
}

/**
 * `temp(prefix)`: a fresh temporary folder, removed with every other it made after the test
 * file's tests (`afterAll` passed in: vitest's, from the calling file).
 */
export function cleanedTempDirs(afterAll: (fn: () => Promise<unknown>) => void): (prefix: string) => Promise<string> {
  const made: string[] = [];
  afterAll(() => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true }))));
  return async (prefix) => {
    const dir = await tempDir(prefix);
    made.push(dir);
    return dir;
  };
}
