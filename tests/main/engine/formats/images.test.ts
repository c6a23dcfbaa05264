import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { crc32 } from 'node:zlib';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArgonautError } from '../../../../shared/rpc/errors.js';
import { decodeImage, encodeImage, probeImage, readImage } from '../../../../main/engine/formats/images.js';
import { encodeJpeg, encodePng, sameImage, withExifOrientation } from '../../../helpers/images.js';
import { freshSeed, rng } from '../../../helpers/random.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'argonaut-images-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

async function expectBadInputAsync(promise: Promise<unknown>, file: string, pattern: RegExp): Promise<void> {
  const error = await promise.then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(ArgonautError);
  expect((error as ArgonautError).code).toBe('bad_input');
  expect((error as ArgonautError).message).toContain(file);
  expect((error as ArgonautError).message).toMatch(pattern);
}

describe('PNG decoding', () => {
  const w = 5;
  const h = 3;
  const seed = freshSeed();
  const random = rng(seed);
  const bytes = (n: number, max = 255): number[] => Array.from({ length: n }, () => Math.floor(random() * (max + 1)));

  it(`8-bit RGB -> RGB, exact (seed ${seed})`, async () => {
    const samples = bytes(w * h * 3);
    const image = await decodeImage(encodePng({ width: w, height: h, colorType: 2, depth: 8, samples }), 'rgb.png');
    expect(image).toMatchObject({ width: w, height: h, channels: 3 });
    expect([...image.data]).toEqual(samples);
  });

  it(`8-bit RGBA -> RGBA, exact (seed ${seed})`, async () => {
    const samples = bytes(w * h * 4);
    const image = await decodeImage(encodePng({ width: w, height: h, colorType: 6, depth: 8, samples }), 'rgba.png');
    expect(image.channels).toBe(4);
    expect([...image.data]).toEqual(samples);
  });

  it(`16-bit RGB -> 8-bit by rounding v * 255 / 65535 (seed ${seed})`, async () => {
    const samples = bytes(w * h * 3, 65535);
    const image = await decodeImage(encodePng({ width: w, height: h, colorType: 2, depth: 16, samples }), 'rgb16.png');
    expect(image.channels).toBe(3);
    expect([...image.data]).toEqual(samples.map((v) => Math.floor((v * 255) / 65535 + 0.5)));
  });

  it('8-bit grey and 16-bit grey+alpha expand to RGB / RGBA', async () => {
    const grey = await decodeImage(encodePng({ width: 2, height: 1, colorType: 0, depth: 8, samples: [10, 200] }), 'grey.png');
    expect(grey.channels).toBe(3);
    expect([...grey.data]).toEqual([10, 10, 10, 200, 200, 200]);
    const greyAlpha = await decodeImage(encodePng({ width: 1, height: 1, colorType: 4, depth: 16, samples: [65535, 0] }), 'ga16.png');
    expect(greyAlpha.channels).toBe(4);
    expect([...greyAlpha.data]).toEqual([255, 255, 255, 0]);
  });

  it('1-bit grey scales 0/1 to 0/255', async () => {
    const image = await decodeImage(encodePng({ width: 3, height: 1, colorType: 0, depth: 1, samples: [1, 0, 1] }), 'bits.png');
    expect([...image.data]).toEqual([255, 255, 255, 0, 0, 0, 255, 255, 255]);
  });

  it('palette without tRNS -> RGB, with tRNS -> RGBA', async () => {
    const palette: [number, number, number][] = [[255, 0, 0], [0, 0, 255]];
    const plain = await decodeImage(encodePng({ width: 2, height: 1, colorType: 3, depth: 8, samples: [1, 0], palette }), 'pal.png');
    expect(plain.channels).toBe(3);
    expect([...plain.data]).toEqual([0, 0, 255, 255, 0, 0]);
    const alpha = await decodeImage(encodePng({ width: 2, height: 1, colorType: 3, depth: 4, samples: [1, 0], palette, trns: [128] }), 'pal-trns.png');
    expect(alpha.channels).toBe(4);
    expect([...alpha.data]).toEqual([0, 0, 255, 255, 255, 0, 0, 128]);
  });

  it(`Adam7-interlaced PNGs of awkward sizes and depths (seed ${seed})`, async () => {
    for (const [width, height, colorType, depth] of [[1, 1, 2, 8], [7, 5, 6, 8], [9, 13, 0, 4], [3, 10, 2, 16]] as const) {
      const channels = { 0: 1, 2: 3, 6: 4 }[colorType];
      const max = 2 ** depth - 1;
      const samples = bytes(width * height * channels, max);
      const image = await decodeImage(encodePng({ width, height, colorType, depth, samples, interlace: true }), 'adam7.png');
      const to8 = (v: number): number => Math.floor((v * 255) / max + 0.5);
      const expected = colorType === 0 ? samples.flatMap((v) => [to8(v), to8(v), to8(v)]) : samples.map(to8);
      expect([...image.data]).toEqual(expected);
    }
  });

  it('round-trips RGB and RGBA images through encodeImage, exactly', async () => {
    for (const channels of [3, 4] as const) {
      const data = Uint8Array.from({ length: 4 * 3 * channels }, (_, i) => (i * 37) % 256);
      const image = await decodeImage(await encodeImage('png', { width: 4, height: 3, channels, data }), 'encoded.png');
      expect(image).toMatchObject({ width: 4, height: 3, channels });
      expect([...image.data]).toEqual([...data]);
    }
  });

  it(`many decodes at once give what one at a time gives (seed ${seed})`, async () => {
    const files = Array.from({ length: 12 }, (_, i) => {
      const [w, h] = [16 + i * 3, 40 - i];
      const rgba = Uint8Array.from(bytes(w * h * 4));
      return i % 2 ? withExifOrientation(encodeJpeg(w, h, rgba, 80), 1 + (i % 8)) : encodePng({ width: w, height: h, colorType: 6, depth: 8, samples: [...rgba] });
    });
    const together = await Promise.all(files.map((f, i) => decodeImage(f, `f${i}`)));
    for (let i = 0; i < files.length; i++) expect(sameImage(together[i], await decodeImage(files[i], `f${i}`)), `file ${i}`).toBe(true);
  });

  it('tolerates bytes after IEND', async () => {
    const file = encodePng({ width: 1, height: 1, colorType: 2, depth: 8, samples: [1, 2, 3] });
    const padded = new Uint8Array([...file, 0, 0, 0, 0, 1, 2]);
    expect([...(await decodeImage(padded, 'padded.png')).data]).toEqual([1, 2, 3]);
  });
});

describe('JPEG decoding', () => {
  it('round-trips a smooth image within JPEG error', async () => {
    const w = 32;
    const h = 16;
    const rgba = new Uint8Array(w * h * 4);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) rgba.set([x * 8, y * 16, 128, 255], (y * w + x) * 4);
    const image = await decodeImage(encodeJpeg(w, h, rgba, 95), 'smooth.jpg');
    expect(image).toMatchObject({ width: w, height: h, channels: 3 });
    let worst = 0;
    for (let p = 0; p < w * h; p++) for (let k = 0; k < 3; k++) worst = Math.max(worst, Math.abs(image.data[p * 3 + k] - rgba[p * 4 + k]));
    expect(worst).toBeLessThan(12);
  });

  it('detects the format from magic bytes, not the extension', async () => {
    const png = encodePng({ width: 1, height: 1, colorType: 2, depth: 8, samples: [9, 8, 7] });
    const file = path.join(dir, 'really-a-png.jpg');
    await writeFile(file, png);
    expect([...(await readImage(file)).data]).toEqual([9, 8, 7]);
    expect(await probeImage(file)).toEqual({ format: 'png', width: 1, height: 1 });
  });

  it('probes a JPEG whose frame header lies past the first 64 KiB (large metadata blocks)', async () => {
    const jpeg = encodeJpeg(24, 8, new Uint8Array(24 * 8 * 4).fill(50));
    const comment = Buffer.alloc(4 + 65000, 0x20);
    comment.writeUInt16BE(0xfffe, 0); // COM segment
    comment.writeUInt16BE(65002, 2);
    const file = path.join(dir, 'big-metadata.jpg');
    await writeFile(file, Buffer.concat([Buffer.from(jpeg.subarray(0, 2)), comment, comment, Buffer.from(jpeg.subarray(2))]));
    expect(await probeImage(file)).toEqual({ format: 'jpeg', width: 24, height: 8 });
    expect((await readImage(file)).width).toBe(24);
  });

  it('probes the displayed size, swapped by EXIF orientations 5..8', async () => {
    const jpeg = encodeJpeg(16, 8, new Uint8Array(16 * 8 * 4).fill(200));
    const file = path.join(dir, 'rotated.jpg');
    await writeFile(file, withExifOrientation(jpeg, 6));
    expect(await probeImage(file)).toEqual({ format: 'jpeg', width: 8, height: 16 });
    const decoded = await readImage(file);
    expect([decoded.width, decoded.height]).toEqual([8, 16]);
  });
});

describe('bad image files are bad_input naming the file', () => {
  const png = encodePng({ width: 4, height: 4, colorType: 2, depth: 8, samples: new Array(48).fill(7) });
  const jpeg = encodeJpeg(16, 16, new Uint8Array(16 * 16 * 4).fill(90));

  it('a missing file', async () => {
    const file = path.join(dir, 'absent.png');
    await expectBadInputAsync(readImage(file), file, /not found/);
    await expectBadInputAsync(probeImage(file), file, /not found/);
  });

  it('a zero-byte file', async () => {
    const file = path.join(dir, 'empty.jpg');
    await writeFile(file, '');
    await expectBadInputAsync(readImage(file), file, /empty file \(0 bytes\)/);
  });

  it('a text file named .jpg', async () => {
    const file = path.join(dir, 'notes.jpg');
    await writeFile(file, 'hello world');
    await expectBadInputAsync(readImage(file), file, /not a PNG or JPEG file \(starts with 68 65 6c 6c\)/);
  });

  it('a truncated PNG, cut anywhere', async () => {
    for (const cut of [10, 20, 33, 40, png.length - 12, png.length - 1]) {
      await expectBadInputAsync(decodeImage(png.subarray(0, cut), 'cut.png'), 'cut.png', /truncated PNG/);
    }
  });

  it('a PNG with a bad CRC', async () => {
    const corrupt = png.slice();
    corrupt[corrupt.length - 20] ^= 0xff; // inside the IDAT payload (IEND and the IDAT CRC are the last 16 bytes)
    await expectBadInputAsync(decodeImage(corrupt, 'crc.png'), 'crc.png', /corrupt PNG: CRC mismatch in chunk IDAT/);
  });

  it('a PNG whose compressed data is corrupt (CRC recomputed, so only zlib notices)', async () => {
    const corrupt = png.slice();
    const view = new DataView(corrupt.buffer);
    const idat = 33; // right after the signature and IHDR
    expect(String.fromCharCode(...corrupt.subarray(idat + 4, idat + 8))).toBe('IDAT');
    const length = view.getUint32(idat);
    corrupt.fill(0xff, idat + 8, idat + 8 + Math.min(4, length)); // breaks the zlib header
    view.setUint32(idat + 8 + length, crc32(corrupt.subarray(idat + 4, idat + 8 + length)));
    await expectBadInputAsync(decodeImage(corrupt, 'zlib.png'), 'zlib.png', /corrupt PNG data: /);
  });

  it('a PNG header claiming a gigapixel image is refused before decoding', async () => {
    const huge = encodePng({ width: 1, height: 1, colorType: 2, depth: 8, samples: [0, 0, 0] });
    new DataView(huge.buffer).setUint32(16, 100_000);
    new DataView(huge.buffer).setUint32(20, 100_000);
    await expectBadInputAsync(decodeImage(huge, 'huge.png'), 'huge.png', /megapixel limit/);
  });

  it('a truncated JPEG', async () => {
    for (const frac of [0.05, 0.3, 0.7, 0.99]) {
      const cut = jpeg.subarray(0, Math.floor(jpeg.length * frac));
      await expectBadInputAsync(decodeImage(cut, 'cut.jpg'), 'cut.jpg', /truncated JPEG/);
    }
  });

  it('a JPEG with a garbled Huffman table', async () => {
    const corrupt = jpeg.slice();
    const dht = corrupt.findIndex((b, i) => b === 0xff && corrupt[i + 1] === 0xc4);
    corrupt.fill(0xee, dht + 5, dht + 21); // code counts: an impossible table
    await expectBadInputAsync(decodeImage(corrupt, 'huff.jpg'), 'huff.jpg', /corrupt JPEG data/);
  });
});
