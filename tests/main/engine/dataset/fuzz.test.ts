/**
 * Bounded fuzzing: random mutations and truncations of valid files must give either a valid result
 * or a bad_input ArgonautError: never another exception, never a hang. Each target runs a fixed
 * number of iterations or until its time budget is spent, whichever comes first.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ArgonautError } from '../../../../shared/rpc/errors.js';
import { parseCamerasBin, parseImagesBin } from '../../../../main/engine/dataset/colmap-binary.js';
import { loadDataset } from '../../../../main/engine/dataset/dataset.js';
import { decodeImage } from '../../../../main/engine/formats/images.js';
import { camerasBin, colmapImage, imagesBin } from '../../../../main/engine/dataset/colmap-write.js';
import { makeColmapDataset } from '../../../helpers/datasets.js';
import { encodePng } from '../../../helpers/images.js';
import { fuzz, mutate } from '../../../helpers/fuzz.js';
import { freshSeed, rng } from '../../../helpers/random.js';

const BUDGET_MS = 4000;

const cameras = [
  { id: 1, model: 'PINHOLE', width: 640, height: 480, params: [500, 510, 320, 240], source: '' },
  { id: 2, model: 'SIMPLE_RADIAL', width: 800, height: 600, params: [700, 400, 300, -0.05], source: '' },
  { id: 7, model: 'OPENCV', width: 320, height: 240, params: [300, 300, 160, 120, 0.01, -0.002, 0.0001, 0.0002], source: '' },
];
const images = [1, 2, 3, 4].map((i) => {
  const im = colmapImage(i, `frame_${i}.jpg`, [1, 2, 7][i % 3], [0.9, 0.1, 0.2, 0.3], [i, -i, 2 * i]);
  im.xy = Float64Array.from({ length: 8 }, (_, k) => k * 10.5);
  im.point3DIds = Float64Array.from([1, -1, 3, -1]);
  return im;
});
const cameraMap = new Map(cameras.map((c) => [c.id, c]));

describe('fuzzing the parsers (bounded)', () => {
  it('cameras.bin: every mutation parses or is bad_input', async () => {
    const seed = freshSeed();
    const valid = camerasBin(cameras);
    expect(parseCamerasBin(valid, 'cameras.bin').size).toBe(3);
    const result = await fuzz(seed, valid, (bytes) => {
      for (const c of parseCamerasBin(bytes, 'cameras.bin').values()) {
        expect(c.params.every(Number.isFinite), `seed ${seed}`).toBe(true);
        expect(c.width >= 1 && c.height >= 1, `seed ${seed}`).toBe(true);
      }
    });
    expect(result.runs).toBeGreaterThanOrEqual(100);
    expect(result.rejected).toBeGreaterThan(0);
  });

  it('images.bin: every mutation parses or is bad_input', async () => {
    const seed = freshSeed();
    const valid = imagesBin(images);
    expect(parseImagesBin(valid, 'images.bin', cameraMap)).toHaveLength(4);
    const result = await fuzz(seed, valid, (bytes) => {
      for (const im of parseImagesBin(bytes, 'images.bin', cameraMap)) {
        expect([...im.qvec, ...im.tvec].every(Number.isFinite), `seed ${seed}`).toBe(true);
        expect(cameraMap.has(im.cameraId), `seed ${seed}`).toBe(true);
      }
    });
    expect(result.runs).toBeGreaterThanOrEqual(100);
    expect(result.rejected).toBeGreaterThan(0);
  });

  it('PNG: every mutation decodes or is bad_input', async () => {
    const seed = freshSeed();
    const random = rng(seed ^ 0x9e3779b9);
    const valid = encodePng({ width: 12, height: 9, colorType: 6, depth: 8, samples: Array.from({ length: 12 * 9 * 4 }, () => Math.floor(random() * 256)) });
    const result = await fuzz(seed, valid, async (bytes) => {
      const image = await decodeImage(bytes, 'fuzz.png');
      expect(image.data.length, `seed ${seed}`).toBe(image.width * image.height * image.channels);
    });
    expect(result.runs).toBeGreaterThanOrEqual(100);
    expect(result.rejected).toBeGreaterThan(0);
  });
});

describe('fuzzing a whole COLMAP dataset load (bounded)', () => {
  const roots: string[] = [];
  afterAll(async () => Promise.all(roots.map((r) => rm(r, { recursive: true, force: true }))));

  it('mutated cameras.bin / images.bin / points3D.bin load or are bad_input', async () => {
    const seed = freshSeed();
    const random = rng(seed);
    const d = await makeColmapDataset({ count: 3 });
    roots.push(d.root);
    const files = ['cameras.bin', 'images.bin', 'points3D.bin'].map((f) => path.join(d.sparse, f));
    const originals = await Promise.all(files.map((f) => readFile(f)));
    const start = performance.now();
    let runs = 0;
    for (; runs < 120 && performance.now() - start < BUDGET_MS; runs++) {
      const which = Math.floor(random() * 3);
      await writeFile(files[which], mutate(new Uint8Array(originals[which]), random));
      try {
        const dataset = await loadDataset(d.root);
        for (const v of dataset.views) expect(v.camera.worldToCamera.every(Number.isFinite), `seed ${seed}`).toBe(true);
      } catch (error) {
        if (!(error instanceof ArgonautError) || error.code !== 'bad_input') throw new Error(`seed ${seed}, run ${runs}: ${String(error)}`);
        expect(error.message, `seed ${seed}`).toContain(d.root);
      }
      await writeFile(files[which], originals[which]);
    }
    expect(runs).toBeGreaterThanOrEqual(20);
  });
});
