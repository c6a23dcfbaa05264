import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ArgonautError } from '../../../../shared/rpc/errors.js';
import { loadDataset, sceneScaleOf, scaleCamera } from '../../../../main/engine/dataset/dataset.js';
import { worldToCameraFromQuaternion } from '../../../../main/engine/dataset/pose.js';
import type { PinholeCamera } from '../../../../shared/scene/camera.js';
import { makeColmapDataset } from '../../../helpers/datasets.js';

const roots: string[] = [];
afterAll(async () => Promise.all(roots.map((r) => rm(r, { recursive: true, force: true }))));

async function colmap(options: Parameters<typeof makeColmapDataset>[0] = {}) {
  const d = await makeColmapDataset(options);
  roots.push(d.root);
  return d;
}

function cameraAt(center: [number, number, number]): PinholeCamera {
  // Identity rotation: t = -C.
  return { width: 1, height: 1, fx: 1, fy: 1, cx: 0.5, cy: 0.5, worldToCamera: [1, 0, 0, -center[0], 0, 1, 0, -center[1], 0, 0, 1, -center[2], 0, 0, 0, 1] };
}

describe('dataset options and shared rules', () => {
  it('splits every testEvery-th view (index % testEvery == 0); 0 holds none out', async () => {
    const d = await colmap({ count: 10 });
    const split = async (testEvery?: number) => (await loadDataset(d.root, testEvery === undefined ? {} : { testEvery })).views.map((v) => (v.split === 'test' ? 'T' : '.')).join('');
    expect(await split()).toBe('T.......T.');
    expect(await split(3)).toBe('T..T..T..T');
    expect(await split(1)).toBe('TTTTTTTTTT');
    expect(await split(0)).toBe('..........');
  });

  it('refuses bad options as invalid_argument', async () => {
    const d = await colmap();
    for (const options of [{ downscale: 0.5 }, { downscale: NaN }, { testEvery: -1 }, { testEvery: 1.5 }, { background: [2, 0, 0] as [number, number, number] }]) {
      const error = await loadDataset(d.root, options).catch((e: unknown) => e);
      expect(error, JSON.stringify(options)).toBeInstanceOf(ArgonautError);
      expect((error as ArgonautError).code).toBe('invalid_argument');
    }
  });

  it('a missing path or a stray file is bad_input naming it', async () => {
    const d = await colmap();
    const missing = path.join(d.root, 'nope');
    await expect(loadDataset(missing)).rejects.toThrow(`${missing}: dataset not found`);
    const stray = path.join(d.root, 'notes.txt');
    await writeFile(stray, 'hi');
    await expect(loadDataset(stray)).rejects.toThrow(`${stray}: not a dataset`);
  });

  it('accepts sparse/ directly when there is no sparse/0, and prefers binary to text', async () => {
    const d = await colmap({ kind: 'txt' });
    const { rename } = await import('node:fs/promises');
    for (const f of ['cameras.txt', 'images.txt', 'points3D.txt']) await rename(path.join(d.sparse, f), path.join(d.root, 'sparse', f));
    await rm(d.sparse, { recursive: true });
    expect((await loadDataset(d.root)).views).toHaveLength(3);
    // A binary model next to a broken text one: the binary one is read.
    const b = await colmap({ kind: 'bin' });
    await writeFile(path.join(b.sparse, 'cameras.txt'), 'garbage');
    expect((await loadDataset(b.root)).views).toHaveLength(3);
  });

  it('keeps the dataset background only when there is one', async () => {
    const d = await colmap();
    expect((await loadDataset(d.root)).background).toBeUndefined();
    expect((await loadDataset(d.root, { background: [0, 1, 0] })).background).toEqual([0, 1, 0]);
  });
});

describe('scene scale and intrinsics scaling', () => {
  it('is 1.1 x the largest distance from the centroid of the camera centres (getNerfppNorm)', () => {
    expect(sceneScaleOf([cameraAt([0, 0, 0]), cameraAt([2, 0, 0]), cameraAt([1, 3, 0])])).toBeCloseTo(1.1 * 2, 12); // centroid (1, 1, 0); farthest (1, 3, 0)
    expect(sceneScaleOf([cameraAt([5, 5, 5])])).toBe(1); // a single position has no extent
  });

  it('uses camera centres, not translations', () => {
    const w2c = worldToCameraFromQuaternion([Math.SQRT1_2, 0, Math.SQRT1_2, 0], [0, 0, 3]);
    const rotated = { ...cameraAt([0, 0, 0]), worldToCamera: w2c };
    // Centre is -R^T t: at distance 3 from the origin whatever the rotation.
    expect(sceneScaleOf([rotated, cameraAt([0, 0, 0])])).toBeCloseTo(1.1 * 1.5, 12);
  });

  it('scales focal lengths and principal point by the exact size ratio per axis', () => {
    const c: PinholeCamera = { width: 1000, height: 657, fx: 2000, fy: 2010, cx: 500, cy: 328.5, worldToCamera: cameraAt([0, 0, 0]).worldToCamera };
    const s = scaleCamera(c, 500, 329);
    expect(s.fx).toBe(1000);
    expect(s.fy).toBeCloseTo(2010 * (329 / 657), 12);
    expect(s.cy).toBeCloseTo(328.5 * (329 / 657), 12);
  });
});
