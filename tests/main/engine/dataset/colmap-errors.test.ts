import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ArgonautError } from '../../../../shared/rpc/errors.js';
import { loadDataset } from '../../../../main/engine/dataset/dataset.js';
import { writeColmapModel } from '../../../../main/engine/dataset/colmap-write.js';
import { makeColmapDataset, type SyntheticColmap } from '../../../helpers/datasets.js';

const roots: string[] = [];
afterAll(async () => Promise.all(roots.map((r) => rm(r, { recursive: true, force: true }))));

async function dataset(options: Parameters<typeof makeColmapDataset>[0] = {}): Promise<SyntheticColmap> {
  const d = await makeColmapDataset(options);
  roots.push(d.root);
  return d;
}

/** loadDataset must fail with bad_input whose message names `file` and matches `pattern`. */
async function expectBadInput(root: string, file: string, pattern: RegExp): Promise<ArgonautError> {
  const error = await loadDataset(root).then(() => null, (e: unknown) => e);
  expect(error, 'expected loadDataset to fail').toBeInstanceOf(ArgonautError);
  const e = error as ArgonautError;
  expect(e.code).toBe('bad_input');
  expect(e.message).toContain(file);
  expect(e.message).toMatch(pattern);
  return e;
}

describe('COLMAP binary files that are cut or corrupted', () => {
  for (const name of ['cameras.bin', 'images.bin', 'points3D.bin']) {
    it(`a truncated ${name}, cut at many places, is "truncated at byte N (record ...)"`, async () => {
      const d = await dataset({ count: 3 });
      const file = path.join(d.sparse, name);
      const whole = await readFile(file);
      for (const cut of [0, 4, 8, 9, 20, Math.floor(whole.length / 2), whole.length - 1]) {
        await writeFile(file, whole.subarray(0, cut));
        await expectBadInput(d.root, file, /truncated at byte \d+ \((header|record \d+ of \d+)/);
      }
    });
  }

  it('a huge record count is refused before allocating', async () => {
    const d = await dataset();
    const file = path.join(d.sparse, 'images.bin');
    const bytes = await readFile(file);
    bytes.writeBigUInt64LE(1n << 40n, 0);
    await writeFile(file, bytes);
    await expectBadInput(d.root, file, /truncated at byte \d+ \(header: 1099511627776 images need at least/);
    bytes.writeBigUInt64LE(0xfffffffffffffff0n, 0);
    await writeFile(file, bytes);
    await expectBadInput(d.root, file, /number of images at byte 0 is too large/);
  });

  it('a huge points2D count inside an image record is refused', async () => {
    const d = await dataset();
    const file = path.join(d.sparse, 'images.bin');
    const bytes = await readFile(file);
    const nameEnd = bytes.indexOf(0, 8 + 64);
    bytes.writeBigUInt64LE(1n << 33n, nameEnd + 1);
    await writeFile(file, bytes);
    await expectBadInput(d.root, file, /record 1 of 3 \("img_0.png"\): 8589934592 points2D need at least/);
  });

  it('extra bytes after the last record', async () => {
    const d = await dataset();
    const file = path.join(d.sparse, 'cameras.bin');
    await writeFile(file, Buffer.concat([await readFile(file), Buffer.from([1, 2, 3])]));
    await expectBadInput(d.root, file, /3 unexpected bytes after the last record/);
  });

  it('an unknown camera model id', async () => {
    const d = await dataset();
    const file = path.join(d.sparse, 'cameras.bin');
    const bytes = await readFile(file);
    bytes.writeInt32LE(42, 12);
    await writeFile(file, bytes);
    await expectBadInput(d.root, file, /record 1 of 1 \(camera 1\): unknown camera model id 42/);
  });
});

describe('COLMAP models with impossible values', () => {
  it('an image referencing a camera id that does not exist', async () => {
    const d = await dataset();
    d.images[1].cameraId = 99;
    await writeColmapModel(d.sparse, d, 'bin');
    await expectBadInput(d.root, path.join(d.sparse, 'images.bin'), /record 2 \(image 2, "img_1.png"\): camera id 99 is not in the cameras file/);
  });

  it('NaN in a pose (text model): names the line and the field', async () => {
    const d = await dataset({ kind: 'txt' });
    const file = path.join(d.sparse, 'images.txt');
    const lines = (await readFile(file, 'utf8')).split('\n');
    const fields = lines[3].split(' ');
    fields[6] = 'nan'; // TY of image 2 (line 4: comment, image 1, its points, image 2)
    lines[3] = fields.join(' ');
    await writeFile(file, lines.join('\n'));
    await expectBadInput(d.root, file, /line 4 \(image 2, "img_1.png"\): tvec\[1\] is NaN, expected a finite number/);
  });

  it('a non-numeric value (text model)', async () => {
    const d = await dataset({ kind: 'txt' });
    const file = path.join(d.sparse, 'cameras.txt');
    await writeFile(file, '1 PINHOLE 8 6 10 11 four 3\n');
    await expectBadInput(d.root, file, /line 1: parameter 3 "four" is not a number/);
  });

  it('a zero focal length', async () => {
    const d = await dataset({ kind: 'txt' });
    const file = path.join(d.sparse, 'cameras.txt');
    await writeFile(file, '# comment\n1 PINHOLE 8 6 0 11 4 3\n');
    await expectBadInput(d.root, file, /line 2 \(camera 1, PINHOLE\): focal length 0 must be > 0/);
  });

  it('a zero-length quaternion', async () => {
    const d = await dataset();
    d.images[0].qvec = [0, 0, 0, 0];
    await writeColmapModel(d.sparse, d, 'bin');
    await expectBadInput(d.root, path.join(d.sparse, 'images.bin'), /record 1 \(image 1, "img_0.png"\): rotation quaternion has zero length/);
  });

  it('a camera model the loader cannot turn into a pinhole', async () => {
    const d = await dataset({ model: 'FOV', params: [10, 10, 4, 3, 0.5] });
    await expectBadInput(d.root, path.join(d.sparse, 'cameras.bin'), /camera 1\) uses FOV, which is not supported .*image_undistorter/);
  });

  it('fisheye and FULL_OPENCV cameras with NaN, infinite or absurd parameters', async () => {
    for (const kind of ['bin', 'txt'] as const) {
      const file = (d: SyntheticColmap) => path.join(d.sparse, `cameras.${kind}`);
      const nan = await dataset({ kind, model: 'OPENCV_FISHEYE', params: [10, 10, 4, 3, NaN, 0, 0, 0] });
      await expectBadInput(nan.root, file(nan), /camera 1, OPENCV_FISHEYE\): params\[4\] is NaN/);
      const inf = await dataset({ kind, model: 'FULL_OPENCV', params: [10, 10, 4, 3, 0.1, 0, 0, 0, Infinity, 0, 0, 0] });
      await expectBadInput(inf.root, file(inf), /camera 1, FULL_OPENCV\): params\[8\] is Infinity/);
      // theta_d = theta (1 - 20 theta^2) turns back at 7.4 degrees, 0.9 px from the centre: under half the 3 px inscribed radius
      const folds = await dataset({ kind, model: 'SIMPLE_RADIAL_FISHEYE', params: [10, 4, 3, -20] });
      await expectBadInput(folds.root, file(folds), /camera 1\): the fisheye distortion \[-20, 0, 0, 0\] folds back .* not a lens model of this image/);
      const centre = await dataset({ kind, model: 'RADIAL_FISHEYE', params: [10, 40, 3, 0.01, 0] });
      await expectBadInput(centre.root, file(centre), /principal point \(40, 3\) is outside the 8x6 image/);
      const focal = await dataset({ kind, model: 'OPENCV_FISHEYE', params: [1e9, 10, 4, 3, 0, 0, 0, 0] });
      await expectBadInput(focal.root, file(focal), /focal length fx = 1000000000 is not plausible for a 8x6 image/);
    }
  });

  it('a wrong parameter count (text model)', async () => {
    const d = await dataset({ kind: 'txt' });
    const file = path.join(d.sparse, 'cameras.txt');
    await writeFile(file, '1 SIMPLE_RADIAL 8 6 10 4 3\n');
    await expectBadInput(d.root, file, /line 1: expected CAMERA_ID MODEL WIDTH HEIGHT and 4 SIMPLE_RADIAL parameters, found 7 values/);
  });

  it('a missing POINTS2D line (text model) says so', async () => {
    const d = await dataset({ kind: 'txt' });
    const file = path.join(d.sparse, 'images.txt');
    const lines = (await readFile(file, 'utf8')).split('\n').filter((l, i) => i !== 2); // drop image 1's points line
    await writeFile(file, lines.join('\n'));
    await expectBadInput(d.root, file, /expected POINTS2D triples .* found 10 values \(is its points line missing\?\)/);
  });

  it('duplicate image names', async () => {
    const d = await dataset();
    d.images[2].name = 'img_0.png';
    await writeColmapModel(d.sparse, d, 'bin');
    await expectBadInput(d.root, path.join(d.sparse, 'images.bin'), /duplicate image name "img_0.png"/);
  });

  it('duplicate camera ids', async () => {
    const d = await dataset({ kind: 'txt' });
    const file = path.join(d.sparse, 'cameras.txt');
    await writeFile(file, '1 PINHOLE 8 6 10 11 4 3\n1 PINHOLE 8 6 10 11 4 3\n');
    await expectBadInput(d.root, file, /line 2: duplicate camera id 1 \(also line 1\)/);
  });

  it('an image name that climbs out of images/', async () => {
    const d = await dataset();
    d.images[0].name = '../sparse/0/cameras.bin';
    await writeColmapModel(d.sparse, d, 'bin');
    await expectBadInput(d.root, path.join(d.sparse, 'images.bin'), /image name "..\/sparse\/0\/cameras.bin" is empty, absolute or outside/);
  });
});

describe('COLMAP datasets whose image files are wrong', () => {
  it('a missing image', async () => {
    const d = await dataset();
    const image = path.join(d.root, 'images', 'img_1.png');
    await rm(image);
    const e = await expectBadInput(d.root, image, /image file not found/);
    expect(e.message).toContain('images.bin');
  });

  it('a zero-byte image', async () => {
    const d = await dataset();
    const image = path.join(d.root, 'images', 'img_2.png');
    await writeFile(image, '');
    await expectBadInput(d.root, image, /empty file \(0 bytes\)/);
  });

  it('a text file named like an image', async () => {
    const d = await dataset();
    const image = path.join(d.root, 'images', 'img_0.png');
    await writeFile(image, '<html>not an image</html>');
    await expectBadInput(d.root, image, /not a PNG or JPEG file \(starts with 3c 68 74 6d\)/);
  });

  it('an image whose size differs from its camera', async () => {
    const d = await dataset({ width: 8, height: 6 });
    d.cameras[0].width = 16;
    await writeColmapModel(d.sparse, d, 'bin');
    await expectBadInput(d.root, path.join(d.root, 'images', 'img_0.png'), /image is 8x6 but .*images.bin record 1 .* declares 16x6/);
  });

  it('a folder that is no dataset at all', async () => {
    const d = await dataset();
    await rm(path.join(d.root, 'sparse'), { recursive: true });
    await expectBadInput(d.root, d.root, /not a dataset folder: expected sparse\/0\/cameras.bin/);
  });

  it('a missing images.bin next to cameras.bin', async () => {
    const d = await dataset();
    const file = path.join(d.sparse, 'images.bin');
    await rm(file);
    await expectBadInput(d.root, file, /COLMAP model file not found/);
  });
});
