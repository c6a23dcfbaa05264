import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ArgonautError } from '../../../../shared/rpc/errors.js';
import { loadDataset } from '../../../../main/engine/dataset/dataset.js';
import { distortNormalized, lensOf, undistortedPinhole, undistortNormalized } from '../../../../main/engine/dataset/distortion.js';
import { maskCandidates } from '../../../../main/engine/dataset/masks.js';
import { loadViewImage, loadViewImageRgb8 } from '../../../../main/engine/dataset/view-image.js';
import { makeColmapDataset } from '../../../helpers/datasets.js';
import { encodePng } from '../../../helpers/images.js';

const roots: string[] = [];
afterAll(async () => Promise.all(roots.map((r) => rm(r, { recursive: true, force: true }))));

async function colmap(options: Parameters<typeof makeColmapDataset>[0] = {}) {
  const d = await makeColmapDataset(options);
  roots.push(d.root);
  return d;
}

/** A grey mask PNG (colour type 0) of `width` x `height`, 0 where `masked(x, y)`. */
function maskPng(width: number, height: number, masked: (x: number, y: number) => boolean): Uint8Array {
  const samples: number[] = [];
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) samples.push(masked(x, y) ? 0 : 255);
  return encodePng({ width, height, colorType: 0, depth: 8, samples });
}

async function expectBadInput(promise: Promise<unknown>, file: string, pattern: RegExp): Promise<void> {
  const error = await promise.then(() => null, (e: unknown) => e);
  expect(error, 'expected a failure').toBeInstanceOf(ArgonautError);
  expect((error as ArgonautError).code).toBe('bad_input');
  expect((error as ArgonautError).message).toContain(file);
  expect((error as ArgonautError).message).toMatch(pattern);
}

describe('mask files', () => {
  it('names: COLMAP\'s <image>.png first, then the stem', () => {
    expect(maskCandidates('IMG_1.jpg')).toEqual(['IMG_1.jpg.png', 'IMG_1.png']);
    expect(maskCandidates('images/frame_1.png')).toEqual(['images/frame_1.png.png', 'images/frame_1.png', 'frame_1.png.png', 'frame_1.png']);
  });

  it('a masks/ folder beside images/ masks each view: the 4th channel is 0 exactly where the mask is', async () => {
    const d = await colmap({ width: 12, height: 9, count: 3 });
    await mkdir(path.join(d.root, 'masks'));
    await writeFile(path.join(d.root, 'masks', 'img_0.png.png'), maskPng(12, 9, (x, y) => x < 3 && y < 4));
    await writeFile(path.join(d.root, 'masks', 'img_1.png'), maskPng(12, 9, (x) => x === 11));
    await writeFile(path.join(d.root, 'masks', 'img_2.png.png'), maskPng(12, 9, () => false));
    const dataset = await loadDataset(d.root, { testEvery: 0 });
    expect(dataset.views.map((v) => path.basename(v.maskPath!))).toEqual(['img_0.png.png', 'img_1.png', 'img_2.png.png']);
    const first = await loadViewImageRgb8(dataset.views[0], { cacheDir: null });
    expect(first.channels).toBe(4);
    for (let y = 0; y < 9; y++) for (let x = 0; x < 12; x++) expect(first.data[4 * (y * 12 + x) + 3], `(${x}, ${y})`).toBe(x < 3 && y < 4 ? 0 : 255);
    const unmasked = await loadViewImage(dataset.views[0], { cacheDir: null });
    // the colours are the photo's, masked or not
    const plain = await loadViewImage({ ...dataset.views[0], maskPath: undefined }, { cacheDir: null });
    expect(unmasked.rgb).toEqual(plain.rgb);
    expect(plain.mask).toBeUndefined();
    // a mask with no zero leaves the view unmasked (3 channels: trained exactly as before)
    expect((await loadViewImageRgb8(dataset.views[2], { cacheDir: null })).channels).toBe(3);
  });

  it('downscaled, a pixel counts only where every pixel it covers does', async () => {
    const d = await colmap({ width: 12, height: 8, count: 1 });
    await mkdir(path.join(d.root, 'masks'));
    await writeFile(path.join(d.root, 'masks', 'img_0.png.png'), maskPng(12, 8, (x, y) => x === 5 && y === 2));
    const dataset = await loadDataset(d.root, { testEvery: 0, downscale: 2 });
    const image = await loadViewImage(dataset.views[0], { downscale: 2, cacheDir: null });
    expect(image.mask!.length).toBe(6 * 4);
    expect([...image.mask!].map((m, i) => (m === 0 ? i : -1)).filter((i) => i >= 0)).toEqual([1 * 6 + 2]);
  });

  it('an explicit mask folder is used instead of masks/, and must exist', async () => {
    const d = await colmap({ width: 6, height: 4, count: 2 });
    const elsewhere = path.join(d.root, 'my masks');
    await mkdir(elsewhere);
    for (const name of ['img_0.png', 'img_1.png']) await writeFile(path.join(elsewhere, `${name}.png`), maskPng(6, 4, (x) => x === 0));
    const dataset = await loadDataset(d.root, { masks: elsewhere });
    expect(dataset.views.every((v) => v.maskPath?.startsWith(elsewhere))).toBe(true);
    await expectBadInput(loadDataset(d.root, { masks: path.join(d.root, 'nope') }), path.join(d.root, 'nope'), /mask folder not found/);
  });

  it('missing masks are listed by name (the first five, then a count)', async () => {
    const d = await colmap({ width: 6, height: 4, count: 8 });
    await mkdir(path.join(d.root, 'masks'));
    await writeFile(path.join(d.root, 'masks', 'img_3.png.png'), maskPng(6, 4, () => false));
    await expectBadInput(
      loadDataset(d.root),
      path.join(d.root, 'masks'),
      /no mask for 7 of 8 images: img_0.png \(img_0.png.png or img_0.png\), img_1.png .*img_5.png \(img_5.png.png or img_5.png\), and 2 more/,
    );
  });

  it('a mask of the wrong size, and an unreadable mask, name the mask file', async () => {
    const d = await colmap({ width: 6, height: 4, count: 2 });
    await mkdir(path.join(d.root, 'masks'));
    await writeFile(path.join(d.root, 'masks', 'img_0.png.png'), maskPng(6, 4, () => false));
    const wrong = path.join(d.root, 'masks', 'img_1.png.png');
    await writeFile(wrong, maskPng(5, 4, () => false));
    await expectBadInput(loadDataset(d.root), wrong, /mask is 5x4 but its image .*img_1.png is 6x4/);
    await writeFile(wrong, 'not a png at all');
    await expectBadInput(loadDataset(d.root), wrong, /the mask of .*img_1.png/);
  });
});

describe('alpha as a mask', () => {
  it("alpha 0 is masked with alpha 'mask', composited as before without", async () => {
    const d = await colmap({ width: 4, height: 3, count: 1 });
    const samples: number[] = [];
    for (let p = 0; p < 12; p++) samples.push(200, 100, 50, p === 5 ? 0 : p === 6 ? 128 : 255);
    await writeFile(path.join(d.root, 'images', 'img_0.png'), encodePng({ width: 4, height: 3, colorType: 6, depth: 8, samples }));
    const [view] = (await loadDataset(d.root, { testEvery: 0 })).views;
    const masked = await loadViewImage(view, { cacheDir: null, alpha: 'mask', background: [0, 0, 1] });
    expect([...masked.mask!]).toEqual(Array.from({ length: 12 }, (_, p) => (p === 5 ? 0 : 255)));
    const plain = await loadViewImage(view, { cacheDir: null, background: [0, 0, 1] });
    expect(plain.mask).toBeUndefined();
    expect(masked.rgb).toEqual(plain.rgb);
    expect(plain.rgb[3 * 5 + 2]).toBe(1); // alpha 0 over a blue background
  });
});

describe("alpha kept as coverage (alpha 'random')", () => {
  it('premultiplied colour, and 1 + 254 alpha in the 4th byte (0 only where masked)', async () => {
    const d = await colmap({ width: 4, height: 3, count: 1 });
    const samples: number[] = [];
    for (let p = 0; p < 12; p++) samples.push(200, 100, 50, p === 5 ? 0 : p === 6 ? 127 : 255);
    await writeFile(path.join(d.root, 'images', 'img_0.png'), encodePng({ width: 4, height: 3, colorType: 6, depth: 8, samples }));
    await mkdir(path.join(d.root, 'masks'));
    await writeFile(path.join(d.root, 'masks', 'img_0.png.png'), maskPng(4, 3, (x, y) => x === 3 && y === 2));
    const [view] = (await loadDataset(d.root, { testEvery: 0 })).views;
    const image = await loadViewImageRgb8(view, { cacheDir: null, alpha: 'coverage', background: [0, 0, 0] });
    expect(image.channels).toBe(4);
    expect(Array.from({ length: 12 }, (_, p) => image.data[4 * p + 3])).toEqual(Array.from({ length: 12 }, (_, p) => (p === 11 ? 0 : p === 5 ? 1 : p === 6 ? 1 + Math.round((254 * 127) / 255) : 255)));
    expect([...image.data.subarray(4 * 6, 4 * 6 + 3)]).toEqual([200, 100, 50].map((c) => Math.round(Math.fround((c / 255) * (127 / 255)) * 255)));
    expect([...image.data.subarray(4 * 5, 4 * 5 + 3)]).toEqual([0, 0, 0]);
  });
});

describe('a fisheye dataset end to end', () => {
  it('OPENCV_FISHEYE photographs load as the pinhole picture, the border past the photo masked', async () => {
    const [w, h] = [96, 64];
    const params = [40, 40, 48, 32, 0.04, -0.01, 0, 0];
    const d = await colmap({ model: 'OPENCV_FISHEYE', params, width: w, height: h, count: 1 });
    const lens = lensOf({ model: 'OPENCV_FISHEYE', params });
    const pattern = (x: number, y: number): number => 0.5 + 0.4 * Math.sin(3 * x + 1) * Math.cos(3 * y);
    const samples: number[] = [];
    for (let v = 0; v < h; v++)
      for (let u = 0; u < w; u++) {
        const [x, y] = undistortNormalized(lens, (u + 0.5 - 48) / 40, (v + 0.5 - 32) / 40);
        samples.push(...new Array(3).fill(Math.round(pattern(x, y) * 65535)));
      }
    await writeFile(path.join(d.root, 'images', 'img_0.png'), encodePng({ width: w, height: h, colorType: 2, depth: 16, samples }));
    const [view] = (await loadDataset(d.root, { testEvery: 0 })).views;
    const pinhole = undistortedPinhole(lens, w, h);
    expect(view.camera).toMatchObject({ width: w, height: h, ...pinhole });
    const image = await loadViewImage(view, { cacheDir: null });
    expect(image.mask).toBeDefined();
    let worst = 0;
    let masked = 0;
    for (let v = 0; v < h; v++)
      for (let u = 0; u < w; u++) {
        const x = (u + 0.5 - pinhole.cx) / pinhole.fx;
        const y = (v + 0.5 - pinhole.cy) / pinhole.fy;
        const [xd, yd] = distortNormalized(lens, x, y);
        const [ud, vd] = [xd * 40 + 48, yd * 40 + 32];
        const inside = ud >= 0 && ud <= w && vd >= 0 && vd <= h;
        expect(image.mask![v * w + u], `(${u}, ${v})`).toBe(inside ? 255 : 0);
        if (!inside) masked++;
        else if (ud > 1 && ud < w - 1 && vd > 1 && vd < h - 1) worst = Math.max(worst, Math.abs(image.rgb[3 * (v * w + u)] - pattern(x, y)));
      }
    expect(masked).toBeGreaterThan(0);
    expect(worst).toBeLessThan(0.02); // bilinear resampling + 8-bit quantization only
  });
});

describe('a mask on a distorted view', () => {
  it('is undistorted with the photo: a pixel counts where its ray lands on the unmasked part of the photo', async () => {
    const [w, h] = [64, 48];
    const params = [30, 30, 32, 24, 0.05, -0.01, 0, 0];
    const d = await colmap({ model: 'OPENCV_FISHEYE', params, width: w, height: h, count: 1 });
    await mkdir(path.join(d.root, 'masks'));
    await writeFile(path.join(d.root, 'masks', 'img_0.png.png'), maskPng(w, h, (x) => x < 20));
    const [view] = (await loadDataset(d.root, { testEvery: 0 })).views;
    const image = await loadViewImage(view, { cacheDir: null });
    const lens = lensOf({ model: 'OPENCV_FISHEYE', params });
    const pinhole = undistortedPinhole(lens, w, h);
    let masked = 0;
    let kept = 0;
    for (let v = 0; v < h; v++)
      for (let u = 0; u < w; u++) {
        const [xd, yd] = distortNormalized(lens, (u + 0.5 - pinhole.cx) / pinhole.fx, (v + 0.5 - pinhole.cy) / pinhole.fy);
        const [ud, vd] = [xd * 30 + 32, yd * 30 + 24];
        const m = image.mask![v * w + u];
        if (!(ud >= 0 && ud <= w && vd >= 0 && vd <= h)) {
          expect(m, `(${u}, ${v}) outside the photo`).toBe(0);
        } else if (ud < 19.5) {
          expect(m, `(${u}, ${v}) on the masked part`).toBe(0);
          masked++;
        } else if (ud > 21.5) {
          // beyond the bilinear reach of the masked columns
          expect(m, `(${u}, ${v}) on the kept part`).toBe(255);
          kept++;
        }
      }
    expect(masked).toBeGreaterThan(200);
    expect(kept).toBeGreaterThan(1000);
  });
});
