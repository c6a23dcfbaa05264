import { readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ArgonautError } from '../../../../shared/rpc/errors.js';
import { loadDataset, loadViewImage, loadViewImages } from '../../../../main/engine/dataset/dataset.js';
import { undistortNormalized, lensOf } from '../../../../main/engine/dataset/distortion.js';
import { imageDecoder, type ImageDecoder } from '../../../../main/engine/formats/images.js';
import { makeColmapDataset, tempDir } from '../../../helpers/datasets.js';
import { encodePng } from '../../../helpers/images.js';

const roots: string[] = [];
afterAll(async () => Promise.all(roots.map((r) => rm(r, { recursive: true, force: true }))));

async function temp(prefix: string): Promise<string> {
  const dir = await tempDir(prefix);
  roots.push(dir);
  return dir;
}

/** The main-thread decoder, counting its calls. */
function countingDecoder(): ImageDecoder & { calls: number } {
  const decoder = {
    calls: 0,
    decode: (bytes: Uint8Array, file: string) => {
      decoder.calls++;
      return imageDecoder.decode(bytes, file);
    },
  };
  return decoder;
}

async function colmap(options: Parameters<typeof makeColmapDataset>[0] = {}) {
  const d = await makeColmapDataset(options);
  roots.push(d.root);
  return d;
}

describe('view images and the decoded-image cache', () => {
  it('a cache hit returns the same pixels without calling the decoder', async () => {
    const d = await colmap({ width: 20, height: 10 });
    const dataset = await loadDataset(d.root, { downscale: 1.5 });
    const cacheDir = await temp('cache');
    const decoder = countingDecoder();
    const first = await loadViewImage(dataset.views[1], { downscale: 1.5, cacheDir, decoder });
    expect(decoder.calls).toBe(1);
    expect([first.width, first.height]).toEqual([13, 7]);
    expect(await readdir(cacheDir)).toHaveLength(1);
    const second = await loadViewImage(dataset.views[1], { downscale: 1.5, cacheDir, decoder });
    expect(decoder.calls).toBe(1);
    expect(second).toEqual(first);
    // Without a cache, or with other settings, it decodes again.
    await loadViewImage(dataset.views[1], { downscale: 1.5, cacheDir: null, decoder });
    expect(decoder.calls).toBe(2);
    const other = await loadDataset(d.root, { downscale: 2 });
    await loadViewImage(other.views[1], { downscale: 2, cacheDir, decoder });
    expect(decoder.calls).toBe(3);
  });

  it('a changed image file (mtime) or a corrupt cache file is decoded again and the cache rebuilt', async () => {
    const d = await colmap();
    const view = (await loadDataset(d.root)).views[0];
    const cacheDir = await temp('cache');
    const decoder = countingDecoder();
    const first = await loadViewImage(view, { cacheDir, decoder });
    await utimes(view.imagePath, new Date(), new Date(Date.now() + 5000));
    await loadViewImage(view, { cacheDir, decoder });
    expect(decoder.calls).toBe(2);
    for (const f of await readdir(cacheDir)) {
      const file = path.join(cacheDir, f);
      await writeFile(file, (await readFile(file)).subarray(0, 70));
    }
    const rebuilt = await loadViewImage(view, { cacheDir, decoder });
    expect(decoder.calls).toBe(3);
    expect(rebuilt).toEqual(first);
    await loadViewImage(view, { cacheDir, decoder });
    expect(decoder.calls).toBe(3);
  });

  it('a cache that cannot be written is a warning, not a failure', async () => {
    const d = await colmap();
    const view = (await loadDataset(d.root)).views[0];
    const warnings: string[] = [];
    const image = await loadViewImage(view, { cacheDir: path.join(view.imagePath, 'not-a-folder'), warn: (m) => warnings.push(m) });
    expect(image.width).toBe(8);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(view.imagePath);
    expect(warnings[0]).toMatch(/could not write the image cache/);
  });

  it('a downscale other than the dataset was loaded with is refused, naming the image', async () => {
    const d = await colmap({ width: 20, height: 10 });
    const view = (await loadDataset(d.root, { downscale: 2 })).views[0];
    const error = await loadViewImage(view, { downscale: 1, cacheDir: null }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ArgonautError);
    expect((error as ArgonautError).code).toBe('bad_input');
    expect((error as ArgonautError).message).toMatch(new RegExp(`${view.imagePath}: image is 20x10, which at downscale 1 gives 20x10, but the view's camera is 10x5`));
  });

  it('loadViewImages decodes many at once into <dataset>/.argonaut-cache, equal to one-by-one loading', async () => {
    const d = await colmap({ count: 6, width: 24, height: 16 });
    const dataset = await loadDataset(d.root, { downscale: 2 });
    const progress: number[] = [];
    const images = await loadViewImages(dataset, { downscale: 2, onProgress: (done) => progress.push(done) });
    expect(progress).toEqual([1, 2, 3, 4, 5, 6]);
    expect((await readdir(path.join(d.root, '.argonaut-cache'))).filter((f) => f.endsWith('.rgb8'))).toHaveLength(6);
    for (let i = 0; i < dataset.views.length; i++) {
      expect(images[i]).toEqual(await loadViewImage(dataset.views[i], { downscale: 2, cacheDir: null }));
    }
  });
});

describe('undistortion on load', () => {
  it('a SIMPLE_RADIAL COLMAP camera becomes a pinhole view whose image is undistorted', async () => {
    const [w, h] = [64, 48];
    const params = [50, 32, 24, -0.25]; // f, cx, cy, k
    const d = await colmap({ model: 'SIMPLE_RADIAL', params, width: w, height: h, count: 1 });
    const lens = lensOf({ model: 'SIMPLE_RADIAL', params });
    // A smooth pattern in undistorted normalized coordinates, photographed through the lens.
    const pattern = (x: number, y: number): number => 0.5 + 0.45 * Math.sin(5 * x + 1) * Math.cos(4 * y);
    const samples: number[] = [];
    for (let v = 0; v < h; v++) {
      for (let u = 0; u < w; u++) {
        const [x, y] = undistortNormalized(lens, (u + 0.5 - 32) / 50, (v + 0.5 - 24) / 50);
        samples.push(...new Array(3).fill(Math.round(pattern(x, y) * 65535)));
      }
    }
    await writeFile(d.root + '/images/img_0.png', encodePng({ width: w, height: h, colorType: 2, depth: 16, samples }));
    const dataset = await loadDataset(d.root);
    const view = dataset.views[0];
    expect(view.distortion).toEqual({ model: 'SIMPLE_RADIAL', params, width: w, height: h });
    expect(view.camera).toMatchObject({ width: w, height: h, fx: 50, fy: 50, cx: 32, cy: 24 });
    const image = await loadViewImage(view, { cacheDir: null });
    let worst = 0;
    let before = 0;
    for (let v = 4; v < h - 4; v++) {
      for (let u = 4; u < w - 4; u++) {
        const truth = pattern((u + 0.5 - 32) / 50, (v + 0.5 - 24) / 50);
        worst = Math.max(worst, Math.abs(image.rgb[(v * w + u) * 3] - truth));
        before = Math.max(before, Math.abs(samples[(v * w + u) * 3] / 65535 - truth));
      }
    }
    expect(before).toBeGreaterThan(0.1); // the photo really is distorted
    expect(worst).toBeLessThan(0.02); // bilinear resampling + 8-bit quantization only
  });

  it('a mask that changed after the dataset loaded is refused when its image loads, with the load-time check\'s words', async () => {
    const d = await colmap({ width: 8, height: 6 });
    const dataset = await loadDataset(d.root);
    const view = dataset.views[0];
    const maskPath = path.join(d.root, 'late-mask.png');
    // the wrong size: both files named
    await writeFile(maskPath, encodePng({ width: 7, height: 6, colorType: 0, depth: 8, samples: new Array<number>(42).fill(255) }));
    const wrongSize = await loadViewImage({ ...view, maskPath }, { cacheDir: null }).then(() => null, (e: unknown) => e);
    expect(wrongSize).toBeInstanceOf(ArgonautError);
    expect((wrongSize as ArgonautError).message).toMatch(/mask is 7x6 but its image .*img_0.png is 8x6/);
    expect((wrongSize as ArgonautError).details).toMatchObject({ file: maskPath });
    // not an image: the decoder's error, naming the photo it masks
    await writeFile(maskPath, 'not a png');
    const corrupt = await loadViewImage({ ...view, maskPath }, { cacheDir: null }).then(() => null, (e: unknown) => e);
    expect(corrupt).toBeInstanceOf(ArgonautError);
    expect((corrupt as ArgonautError).message).toMatch(/\(the mask of .*img_0.png\)$/);
  });
});
