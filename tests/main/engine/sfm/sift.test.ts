import { describe, expect, it } from 'vitest';
import { testGpu, variantsOf } from '../../../helpers/gpu.js';
import { freshSeed, rng } from '../../../helpers/random.js';
import { sharedDataset } from '../../../helpers/shared-data.js';
import { SIFT_CASES, siftImageParity, siftParity } from '../../../parity/sift.parity.js';
import { loadGreyImage } from '../../../../main/engine/sfm/grey-image.js';
import { SiftExtractor } from '../../../../main/engine/sfm/features.js';
import { detectKeypoints, detectPipeline } from '../../../../main/engine/sfm/sift-detect.js';
import { blobImage } from './sift-images.js';
import path from 'node:path';
import { readdirSync } from 'node:fs';

describe('SIFT kernels match the float64 reference, stage by stage', async () => {
  const ctx = await testGpu();
  for (const variant of variantsOf(ctx))
    for (const c of SIFT_CASES) {
      it(`${c.width}x${c.height}${c.firstOctave === -1 ? ' (first octave -1)' : ''}, ${variant}`, async () => {
        const seed = freshSeed();
        const results = await siftParity(ctx, variant, seed, c);
        expect(results.map((r) => r.name)).toHaveLength(4);
        for (const r of results) expect(r.ok, `${r.name}, seed ${seed}: error ${r.error} (tolerance ${r.tolerance}); ${r.detail}`).toBe(true);
      });
    }
});

describe('SIFT descriptor bytes (to_bytes) are min(255, round(512 v)) of the GPU floats, exactly', async () => {
  const ctx = await testGpu();
  for (const variant of variantsOf(ctx))
    it(`on a second image after a first (no stale bytes), ${variant}`, async () => {
      const seed = freshSeed();
      const random = rng(seed);
      const extractor = await SiftExtractor.create(ctx, {}, variant);
      await extractor.extract(blobImage(200, 150, random));
      const stages = await extractor.extractStages(blobImage(200, 150, random));
      extractor.destroy();
      const { orientations, bytes, descriptors } = stages.described;
      let slots = 0;
      let wrong = 0;
      orientations.forEach((theta, slot) => {
        if (theta < 0) return;
        slots++;
        for (let c = 0; c < 128; c++) if (bytes[slot * 128 + c] !== Math.min(255, Math.round(512 * descriptors[slot * 128 + c]))) wrong++;
      });
      expect(slots, `seed ${seed}`).toBeGreaterThan(40);
      expect(wrong, `seed ${seed}: ${wrong} bytes of ${slots * 128} differ`).toBe(0);
      expect(stages.features.descriptors.length).toBe(slots * 128);
    });
});

describe('SIFT on a real photo', () => {
  const statue = sharedDataset('colmap_statue');
  it.runIf(statue.available)('statue DSC_5283 (1000x656): every stage matches the reference (every 8th point described)', async () => {
    const ctx = await testGpu();
    const dir = path.join(statue.dir, 'images');
    const file = path.join(dir, readdirSync(dir).sort()[0]);
    const image = await loadGreyImage(file);
    const results = await siftImageParity(ctx, ctx.info.variant, 0, image, path.basename(file), {}, 8);
    for (const r of results) expect(r.ok, `${r.name}: error ${r.error} (tolerance ${r.tolerance}); ${r.detail}`).toBe(true);
    console.log(results.map((r) => `${r.name}: ${r.detail}`).join('\n'));
  }, 120_000);
});

describe('SIFT features', async () => {
  const ctx = await testGpu();

  it('are reproducible: the same image gives the same bytes', async () => {
    const seed = freshSeed();
    const image = blobImage(180, 140, rng(seed));
    const extractor = await SiftExtractor.create(ctx);
    const a = await extractor.extract(image);
    const b = await extractor.extract(image);
    extractor.destroy();
    expect(a.keypoints.length, `seed ${seed}`).toBeGreaterThan(40 * 4);
    expect(Buffer.from(b.keypoints.buffer).equals(Buffer.from(a.keypoints.buffer))).toBe(true);
    expect(Buffer.from(b.descriptors).equals(Buffer.from(a.descriptors))).toBe(true);
  });

  it('hold COLMAP conventions: in-image positions, unit RootSIFT bytes, orientations in [0, 2 pi)', async () => {
    const seed = freshSeed();
    const image = blobImage(150, 110, rng(seed));
    const extractor = await SiftExtractor.create(ctx);
    const { keypoints, descriptors } = await extractor.extract(image);
    extractor.destroy();
    const n = keypoints.length / 4;
    expect(descriptors.length).toBe(n * 128);
    for (let i = 0; i < n; i++) {
      const [x, y, scale, theta] = keypoints.subarray(4 * i, 4 * i + 4);
      expect(x > 0.5 && x < image.width && y > 0.5 && y < image.height, `keypoint ${i} at ${x}, ${y}`).toBe(true);
      expect(scale).toBeGreaterThanOrEqual(1.6 * 0.99);
      expect(theta >= 0 && theta < 2 * Math.PI).toBe(true);
      let norm = 0;
      for (let c = 0; c < 128; c++) norm += (descriptors[i * 128 + c] / 512) ** 2;
      expect(Math.sqrt(norm), `descriptor ${i}, seed ${seed}`).toBeCloseTo(1, 1);
    }
  });

  it('keep at most maxFeatures, spread over the image', async () => {
    const seed = freshSeed();
    const image = blobImage(400, 200, rng(seed));
    const extractor = await SiftExtractor.create(ctx, { maxFeatures: 64 });
    const stages = await extractor.extractStages(image);
    extractor.destroy();
    expect(stages.detected.length, `seed ${seed}`).toBeGreaterThan(128);
    const n = stages.features.keypoints.length / 4;
    expect(n).toBe(64);
    // both halves of the image keep keypoints
    const left = Array.from({ length: n }, (_, i) => stages.features.keypoints[4 * i]).filter((x) => x < 200).length;
    expect(left, `seed ${seed}`).toBeGreaterThan(10);
    expect(n - left, `seed ${seed}`).toBeGreaterThan(10);
  });

  it('skip masked pixels before the budget: none on the masked half, the whole budget on the other', async () => {
    const seed = freshSeed();
    const image = blobImage(400, 200, rng(seed));
    // COLMAP's convention: 0 = no keypoints; the left half (x < 200) is masked
    const keep = new Uint8Array(400 * 200);
    for (let y = 0; y < 200; y++) keep.fill(255, y * 400 + 200, y * 400 + 400);
    const mask = { width: 400, height: 200, keep };
    const extractor = await SiftExtractor.create(ctx, { maxFeatures: 48 });
    const all = await extractor.extractStages(image);
    const masked = await extractor.extractStages(image, mask);
    const wrong = await extractor.extract(image, { width: 200, height: 400, keep }).catch((e: Error) => e.message);
    extractor.destroy();
    // the unmasked run spends its budget on both halves; the right half alone has more than the budget
    const right = all.detected.filter((k) => k.x * 2 ** k.octave >= 199.5).length;
    expect(right, `seed ${seed}`).toBeGreaterThan(48);
    const n = masked.features.keypoints.length / 4;
    expect(n, `seed ${seed}`).toBe(48);
    // the pixel under each keypoint (COLMAP's int(x) of its 0.5-offset position) is kept
    for (let i = 0; i < n; i++) expect(Math.floor(masked.features.keypoints[4 * i]), `keypoint ${i}, seed ${seed}`).toBeGreaterThanOrEqual(200);
    expect(Array.from({ length: all.features.keypoints.length / 4 }, (_, i) => all.features.keypoints[4 * i]).filter((x) => x < 200).length, `seed ${seed}`).toBeGreaterThan(10);
    expect(wrong).toMatch(/the mask is 200x400 \(80000 values\) for a 400x200 image/);
  });

  it('follow the image: a 90-degree rotation gives the same keypoints, moved, with orientations turned by pi / 2', async () => {
    const seed = freshSeed();
    const image = blobImage(280, 220, rng(seed));
    // rotate 90 degrees clockwise: pixel (x, y) -> (H - 1 - y, x)
    const rotated = { width: image.height, height: image.width, data: new Float32Array(image.data.length) };
    for (let y = 0; y < image.height; y++) for (let x = 0; x < image.width; x++) rotated.data[x * rotated.width + (image.height - 1 - y)] = image.data[y * image.width + x];
    const extractor = await SiftExtractor.create(ctx);
    const a = await extractor.extractStages(image);
    const aPoints = a.points.map((p, i) => ({ ...p, theta: a.described.orientations[2 * i] }));
    const b = await extractor.extractStages(rotated);
    const bPoints = b.points.map((p, i) => ({ ...p, theta: b.described.orientations[2 * i] }));
    extractor.destroy();
    // octave 0 only: octave 1 keeps the even pixels, and the rotation maps even columns to odd rows
    const first = aPoints.filter((p) => p.octave === 0);
    let found = 0;
    let turned = 0;
    for (const p of first) {
      const q = bPoints.find((q) => q.octave === 0 && Math.hypot(q.x - (image.height - 1 - p.y), q.y - p.x) < 0.01 && Math.abs(q.sigma - p.sigma) < 0.01);
      if (!q) continue;
      found++;
      const d = Math.abs(((q.theta - p.theta - Math.PI / 2 + 3 * Math.PI) % (2 * Math.PI)) - Math.PI);
      if (d < 0.01) turned++;
    }
    expect(first.length, `seed ${seed}`).toBeGreaterThan(15);
    expect(found / first.length, `seed ${seed}: ${found} of ${first.length}`).toBeGreaterThan(0.95);
    expect(turned / found, `seed ${seed}: ${turned} of ${found}`).toBeGreaterThan(0.95);
  });

});

describe('SIFT keypoint lists', () => {
  it('more extrema than the list holds are detected again, whole: the same keypoints as with room', async () => {
    const ctx = await testGpu();
    const seed = freshSeed();
    const image = blobImage(200, 150, rng(seed));
    const extractor = await SiftExtractor.create(ctx);
    const stages = await extractor.extractStages(image);
    const pipeline = await detectPipeline(ctx);
    const octaves = stages.pyramid.octaves.length;
    const tiny = await detectKeypoints(ctx, pipeline, stages.pyramid, extractor.options, () => 2);
    expect(stages.detected.length, `seed ${seed}: the extrema overflow lists of 2 an octave`).toBeGreaterThan(2 * octaves);
    expect(tiny.keypoints).toEqual(stages.detected);
    // a list longer than the keypoints read back with the counter: the rest in a second read-back
    const short = await detectKeypoints(ctx, pipeline, stages.pyramid, extractor.options, undefined, 3);
    expect(short.keypoints).toEqual(stages.detected);
    expect(short.listed).toBeGreaterThanOrEqual(stages.detected.length);
    extractor.destroy();
  });
});

describe('SIFT inputs it cannot take', async () => {
  const ctx = await testGpu();

  it('an image under 16 px a side, or larger than one binding holds, fails naming the size and the limit', async () => {
    const extractor = await SiftExtractor.create(ctx);
    await expect(extractor.extract({ width: 12, height: 40, data: new Float32Array(480) })).rejects.toThrow(/12x40 image is too small for one octave \(16 px a side\)/);
    const limit = ctx.device.limits.maxStorageBufferBindingSize;
    const side = Math.ceil(Math.sqrt(limit / 24)) + 16; // 6 levels of 4 bytes
    await expect(extractor.extract({ width: side, height: side, data: new Float32Array(side * side) })).rejects.toThrow(new RegExp(`${side}x${side} image needs \\d+ bytes per octave, over this device's ${limit}-byte binding limit; at most about \\d+x\\d+ fits`));
    await expect(extractor.extract({ width: 20, height: 20, data: new Float32Array(10) })).rejects.toThrow(/10 values for 20x20/);
    extractor.destroy();
  });
});
