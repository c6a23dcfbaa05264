import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ArgonautError } from '../../../../shared/rpc/errors.js';
import { DecodePool } from '../../../../main/engine/formats/decode-pool.js';
import { decodeImage } from '../../../../main/engine/formats/images.js';
import { builtFile } from '../../../helpers/build.js';
import { encodeJpeg, encodePng, sameImage, withExifOrientation } from '../../../helpers/images.js';
import { freshSeed, rng } from '../../../helpers/random.js';
import { sharedDataset } from '../../../helpers/shared-data.js';

const pools: DecodePool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});
function pool(options: ConstructorParameters<typeof DecodePool>[0] = {}): DecodePool {
  const p = new DecodePool(options);
  pools.push(p);
  return p;
}

const seed = freshSeed();
function testImages(): { name: string; bytes: Uint8Array }[] {
  const random = rng(seed);
  const out: { name: string; bytes: Uint8Array }[] = [];
  for (let i = 0; i < 6; i++) {
    const w = 16 + Math.floor(random() * 40);
    const h = 16 + Math.floor(random() * 40);
    const rgba = Uint8Array.from({ length: w * h * 4 }, () => Math.floor(random() * 256));
    out.push({ name: `p${i}.png`, bytes: encodePng({ width: w, height: h, colorType: 6, depth: 8, samples: [...rgba] }) });
    out.push({ name: `j${i}.jpg`, bytes: withExifOrientation(encodeJpeg(w, h, rgba, 80), 1 + (i % 8)) });
  }
  return out;
}

describe('decode pool', () => {
  it(`decodes in workers to exactly what the calling thread decodes (seed ${seed})`, async () => {
    const p = pool({ size: 2 });
    const images = testImages();
    const results = await Promise.all(images.map((im) => p.decode(im.bytes, im.name)));
    results.forEach((result, i) => expect(result).toEqual(decodeImage(images[i].bytes, images[i].name)));
    expect(p.usingWorkers).toBe(true);
    expect(p.counts).toEqual({ worker: images.length, callingThread: 0 });
  });

  it('rejects corrupt data with the same bad_input the calling thread gives', async () => {
    const p = pool({ size: 1 });
    const jpeg = encodeJpeg(16, 16, new Uint8Array(16 * 16 * 4).fill(90));
    const dht = jpeg.findIndex((b, i) => b === 0xff && jpeg[i + 1] === 0xc4);
    const corrupt = jpeg.slice();
    corrupt.fill(0xee, dht + 5, dht + 21);
    const inWorker = await p.decode(corrupt, 'bad.jpg').catch((e: unknown) => e);
    let here: unknown;
    try {
      decodeImage(corrupt, 'bad.jpg');
    } catch (e) {
      here = e;
    }
    expect(inWorker).toBeInstanceOf(ArgonautError);
    expect((inWorker as ArgonautError).code).toBe('bad_input');
    expect((inWorker as ArgonautError).message).toBe((here as ArgonautError).message);
    expect(p.counts.worker).toBe(1);
    // The worker survives a bad file.
    const png = encodePng({ width: 1, height: 1, colorType: 2, depth: 8, samples: [1, 2, 3] });
    expect([...(await p.decode(png, 'ok.png')).data]).toEqual([1, 2, 3]);
  });

  it('falls back to the calling thread, with one warning, when workers cannot start', async () => {
    const warnings: string[] = [];
    const p = pool({ size: 2, workerUrl: new URL('./no-such-worker.mjs', import.meta.url), warn: (m) => warnings.push(m) });
    const images = testImages().slice(0, 4);
    const results = await Promise.all(images.map((im) => p.decode(im.bytes, im.name)));
    results.forEach((result, i) => expect(result).toEqual(decodeImage(images[i].bytes, images[i].name)));
    expect(p.usingWorkers).toBe(false);
    expect(p.counts.callingThread).toBe(images.length);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/decoding on the calling thread/);
  });

  it('the bundled worker beside the CLI and host bundles decodes like the source one', async () => {
    for (const bundle of ['cli', 'host']) {
      const warnings: string[] = [];
      const p = pool({ size: 1, workerUrl: pathToFileURL(builtFile(`${bundle}/decode-worker.mjs`)), warn: (m) => warnings.push(m) });
      const images = testImages().slice(0, 4);
      const results = await Promise.all(images.map((im) => p.decode(im.bytes, im.name)));
      results.forEach((result, i) => expect(result).toEqual(decodeImage(images[i].bytes, images[i].name)));
      expect(warnings).toEqual([]);
      expect(p.counts).toEqual({ worker: images.length, callingThread: 0 });
    }
  });

  it('size 0 decodes on the calling thread without warnings', async () => {
    const warnings: string[] = [];
    const p = pool({ size: 0, warn: (m) => warnings.push(m) });
    const png = encodePng({ width: 1, height: 1, colorType: 0, depth: 8, samples: [77] });
    expect([...(await p.decode(png, 'g.png')).data]).toEqual([77, 77, 77]);
    expect(warnings).toEqual([]);
    expect(p.counts).toEqual({ worker: 0, callingThread: 1 });
  });

  const statue = sharedDataset('colmap_statue');
  it.runIf(statue.available)('decodes real photos identically in workers', async () => {
    const p = pool({ size: 2 });
    const files = ['DSC_5283.jpg', 'DSC_5290.jpg', 'DSC_5300.jpg'].map((f) => path.join(statue.dir, 'images', f));
    const bytes = await Promise.all(files.map((f) => readFile(f)));
    const results = await Promise.all(bytes.map((b, i) => p.decode(new Uint8Array(b), files[i])));
    results.forEach((r, i) => expect(sameImage(r, decodeImage(new Uint8Array(bytes[i]), files[i])), files[i]).toBe(true));
  });
});
