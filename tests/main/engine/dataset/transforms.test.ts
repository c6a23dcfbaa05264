import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ArgonautError } from '../../../../shared/rpc/errors.js';
import { loadDataset } from '../../../../main/engine/dataset/dataset.js';
import { randomPng, tempDir } from '../../../helpers/datasets.js';
import { lookAtOpenGl, project } from '../../../helpers/geometry.js';
import { encodeJpeg } from '../../../helpers/images.js';
import { rng } from '../../../helpers/random.js';

const roots: string[] = [];
afterAll(async () => Promise.all(roots.map((r) => rm(r, { recursive: true, force: true }))));

const W = 16;
const H = 12;

/** A folder with `count` PNG images images/frame_00i.png and a transforms.json built from `json` + frames. */
async function transformsDataset(count: number, json: Record<string, unknown>, frame: (i: number) => Record<string, unknown> = () => ({})): Promise<{ root: string; file: string }> {
  const root = await tempDir('transforms');
  roots.push(root);
  const random = rng(7);
  await mkdir(path.join(root, 'images'));
  const frames = [];
  for (let i = 0; i < count; i++) {
    await writeFile(path.join(root, 'images', `frame_00${i}.png`), randomPng(W, H, random));
    const angle = (2 * Math.PI * i) / count;
    frames.push({ file_path: `images/frame_00${i}`, transform_matrix: lookAtOpenGl([4 * Math.cos(angle), 4 * Math.sin(angle), 1], [0, 0, 0]), ...frame(i) });
  }
  const file = path.join(root, 'transforms.json');
  await writeFile(file, JSON.stringify({ ...json, frames }));
  return { root, file };
}

async function expectBadInput(promise: Promise<unknown>, file: string, pattern: RegExp): Promise<void> {
  const error = await promise.then(() => null, (e: unknown) => e);
  expect(error, 'expected a failure').toBeInstanceOf(ArgonautError);
  expect((error as ArgonautError).code).toBe('bad_input');
  expect((error as ArgonautError).message).toContain(file);
  expect((error as ArgonautError).message).toMatch(pattern);
}

describe('transforms.json (instant-ngp / nerfstudio)', () => {
  it('global intrinsics, extension-less file_path, OpenGL poses: the look-at target projects to the principal point', async () => {
    const { root } = await transformsDataset(10, { fl_x: 20, fl_y: 21, cx: 7.5, cy: 6.5, w: W, h: H, aabb_scale: 16, scale: 0.33, offset: [0.5, 0.5, 0.5] });
    const dataset = await loadDataset(root);
    expect(dataset.format).toBe('transforms');
    expect(dataset.views.map((v) => v.name)).toEqual(Array.from({ length: 10 }, (_, i) => `images/frame_00${i}.png`));
    expect(dataset.views.filter((v) => v.split === 'test').map((v) => v.name)).toEqual(['images/frame_000.png', 'images/frame_008.png']);
    for (const view of dataset.views) {
      const c = view.camera;
      expect([c.width, c.height, c.fx, c.fy, c.cx, c.cy]).toEqual([W, H, 20, 21, 7.5, 6.5]);
      expect(view.distortion).toBeUndefined();
      const target = project(c, 0, 0, 0);
      expect(target.depth).toBeGreaterThan(0);
      expect(target.u).toBeCloseTo(7.5, 9);
      expect(target.v).toBeCloseTo(6.5, 9);
      // World up (+z) is image up (smaller v) in OpenCV axes.
      expect(project(c, 0, 0, 0.5).v).toBeLessThan(6.5);
    }
    // With every camera training, they sit on a circle of radius 4 around their centroid.
    expect((await loadDataset(root, { testEvery: 0 })).sceneScale).toBeCloseTo(4 * 1.1, 9);
  });

  it('camera_angle_x / camera_angle_y without w, h: size from the image, focal from the angles', async () => {
    const { root } = await transformsDataset(2, { camera_angle_x: 1.2, camera_angle_y: 0.9 });
    const c = (await loadDataset(root)).views[0].camera;
    expect([c.width, c.height, c.cx, c.cy]).toEqual([W, H, W / 2, H / 2]);
    expect(c.fx).toBeCloseTo((0.5 * W) / Math.tan(0.6), 12);
    expect(c.fy).toBeCloseTo((0.5 * H) / Math.tan(0.45), 12);
    const squarePixels = (await loadDataset((await transformsDataset(2, { camera_angle_x: 1.2 })).root)).views[0].camera;
    expect(squarePixels.fy).toBe(squarePixels.fx);
  });

  it('per-frame intrinsics override the global ones', async () => {
    const { root } = await transformsDataset(3, { fl_x: 20, cx: 8, cy: 6 }, (i) => (i === 1 ? { fl_x: 30, fl_y: 31, cx: 7 } : {}));
    const [a, b] = (await loadDataset(root)).views.map((v) => v.camera);
    expect([a.fx, a.fy, a.cx]).toEqual([20, 20, 8]);
    expect([b.fx, b.fy, b.cx, b.cy]).toEqual([30, 31, 7, 6]);
  });

  it('k1 k2 p1 p2 become an OPENCV distortion to undistort, with the same pinhole intrinsics', async () => {
    const { root } = await transformsDataset(2, { fl_x: 20, fl_y: 20, cx: 8, cy: 6, k1: -0.1, k2: 0.01, p1: 0.001, p2: 0 });
    const view = (await loadDataset(root)).views[0];
    expect(view.distortion).toEqual({ model: 'OPENCV', params: [20, 20, 8, 6, -0.1, 0.01, 0.001, 0], width: W, height: H });
    expect([view.camera.fx, view.camera.cx]).toEqual([20, 8]);
  });

  it("nerfstudio's test_filenames define the split; a JPEG file_path with extension works", async () => {
    const root = await tempDir('transforms-ns');
    roots.push(root);
    const rgba = new Uint8Array(W * H * 4).fill(128);
    const frames = [];
    for (let i = 0; i < 4; i++) {
      await writeFile(path.join(root, `f${i}.jpg`), encodeJpeg(W, H, rgba));
      frames.push({ file_path: `f${i}.jpg`, transform_matrix: lookAtOpenGl([3, i, 1], [0, 0, 0]), fl_x: 10, fl_y: 10, cx: 8, cy: 6, w: W, h: H });
    }
    await writeFile(path.join(root, 'transforms.json'), JSON.stringify({ camera_model: 'OPENCV', frames, train_filenames: ['f0.jpg', 'f1.jpg', 'f3.jpg'], test_filenames: ['f2.jpg'] }));
    const dataset = await loadDataset(path.join(root, 'transforms.json'));
    expect(dataset.views.map((v) => [v.name, v.split])).toEqual([['f0.jpg', 'train'], ['f1.jpg', 'train'], ['f2.jpg', 'test'], ['f3.jpg', 'train']]);
  });

  it('loads ply_file_path points (ascii and binary little endian)', async () => {
    const ascii = 'ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty float y\nproperty float z\nproperty uint8 red\nproperty uint8 green\nproperty uint8 blue\nend_header\n1 2 3 255 0 10\n-1 0.5 0 0 128 255\n';
    const { root } = await transformsDataset(2, { fl_x: 20, ply_file_path: 'sparse_pc.ply' });
    await writeFile(path.join(root, 'sparse_pc.ply'), ascii);
    const points = (await loadDataset(root)).points!;
    expect([...points.positions]).toEqual([1, 2, 3, -1, 0.5, 0]);
    expect([...points.colors]).toEqual([255, 0, 10, 0, 128, 255]);
    const header = 'ply\nformat binary_little_endian 1.0\nelement vertex 1\nproperty double x\nproperty double y\nproperty double z\nproperty uchar red\nproperty uchar green\nproperty uchar blue\nelement face 0\nproperty list uchar int vertex_indices\nend_header\n';
    const body = Buffer.alloc(27);
    body.writeDoubleLE(0.25, 0);
    body.writeDoubleLE(-2, 8);
    body.writeDoubleLE(7, 16);
    body.set([1, 2, 3], 24);
    await writeFile(path.join(root, 'sparse_pc.ply'), Buffer.concat([Buffer.from(header, 'latin1'), body]));
    const binary = (await loadDataset(root)).points!;
    expect([...binary.positions, ...binary.colors]).toEqual([0.25, -2, 7, 1, 2, 3]);
    await writeFile(path.join(root, 'sparse_pc.ply'), Buffer.concat([Buffer.from(header, 'latin1'), body.subarray(0, 20)]));
    await expectBadInput(loadDataset(root), path.join(root, 'sparse_pc.ply'), /truncated/);
  });
});

describe('transforms.json errors are bad_input naming the file', () => {
  it('a file that is not JSON', async () => {
    const { root, file } = await transformsDataset(1, { fl_x: 10 });
    await writeFile(file, '{"frames": [ oops');
    await expectBadInput(loadDataset(root), file, /not valid JSON/);
  });

  it('no frames, or an empty frames array', async () => {
    const { root, file } = await transformsDataset(1, { fl_x: 10 });
    await writeFile(file, JSON.stringify({ fl_x: 10 }));
    await expectBadInput(loadDataset(root), file, /has no "frames" array/);
    await writeFile(file, JSON.stringify({ fl_x: 10, frames: [] }));
    await expectBadInput(loadDataset(root), file, /has no "frames" array \(or it is empty\)/);
  });

  it('a missing image names the image and the frame', async () => {
    const { root, file } = await transformsDataset(3, { fl_x: 10 });
    await rm(path.join(root, 'images', 'frame_001.png'));
    await expectBadInput(loadDataset(root), path.join(root, 'images', 'frame_001'), /image file not found \(frames\[1\] of .*transforms.json/);
    await expectBadInput(loadDataset(root), file, /frames\[1\]/);
  });

  it('a non-finite or non-rigid transform_matrix', async () => {
    const { root, file } = await transformsDataset(2, { fl_x: 10 }, (i) => (i === 1 ? { transform_matrix: [[1, 0, 0, 1e999], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]] } : {}));
    // JSON.stringify writes Infinity as null: put 1e999 (which JSON.parse reads as Infinity) in the text.
    await writeFile(file, (await readFile(file, 'utf8')).replace('[1,0,0,null]', '[1,0,0,1e999]'));
    await expectBadInput(loadDataset(root), file, /frames\[1\]: transform_matrix\[3\] is Infinity, expected a finite number/);
    const scaled = await transformsDataset(2, { fl_x: 10 }, (i) => (i === 0 ? { transform_matrix: [[2, 0, 0, 1], [0, 2, 0, 0], [0, 0, 2, 0], [0, 0, 0, 1]] } : {}));
    await expectBadInput(loadDataset(scaled.root), scaled.file, /frames\[0\]: transform_matrix is not a rigid pose/);
    const wrongShape = await transformsDataset(1, { fl_x: 10 }, () => ({ transform_matrix: [[1, 0, 0], [0, 1, 0]] }));
    await expectBadInput(loadDataset(wrongShape.root), wrongShape.file, /frames\[0\]: transform_matrix must be a 4x4 array/);
  });

  it('no focal length, a negative one, or a declared size the image does not have', async () => {
    const none = await transformsDataset(1, { cx: 3 });
    await expectBadInput(loadDataset(none.root), none.file, /frames\[0\]: no focal length \(fl_x or camera_angle_x\)/);
    const negative = await transformsDataset(1, { fl_x: -5 });
    await expectBadInput(loadDataset(negative.root), negative.file, /focal length \(-5, -5\) must be > 0/);
    const size = await transformsDataset(1, { fl_x: 5, w: 100, h: H });
    await expectBadInput(loadDataset(size.root), path.join(size.root, 'images', 'frame_000.png'), /image is 16x12 but .*transforms.json frames\[0\] declares 100x12/);
  });

  it('reads OPENCV_FISHEYE (k1..k4) and OPENCV with k3 (FULL_OPENCV) as lenses to undistort', async () => {
    const fisheye = await transformsDataset(1, { fl_x: 8, fl_y: 8, camera_model: 'OPENCV_FISHEYE', k1: 0.05, k2: -0.01, k3: 0.002, k4: -0.0005 });
    const [view] = (await loadDataset(fisheye.root, { testEvery: 0 })).views;
    expect(view.distortion).toEqual({ model: 'OPENCV_FISHEYE', params: [8, 8, W / 2, H / 2, 0.05, -0.01, 0.002, -0.0005], width: W, height: H });
    // the pinhole keeps the centre and widens (the fisheye's edge sees more than a pinhole of f = 8)
    expect(view.camera).toMatchObject({ width: W, height: H, cx: W / 2, cy: H / 2 });
    expect(view.camera.fx).toBeLessThan(8);
    expect(view.camera.fx).toBeCloseTo(view.camera.fy, 12);
    const k3 = await transformsDataset(1, { fl_x: 8, k1: -0.1, k3: 0.01 });
    expect((await loadDataset(k3.root)).views[0].distortion).toEqual({ model: 'FULL_OPENCV', params: [8, 8, W / 2, H / 2, -0.1, 0, 0, 0, 0.01, 0, 0, 0], width: W, height: H });
  });

  it('refuses k4 without a fisheye, distortion on a PINHOLE, a fisheye with p1/p2 and folding fisheyes, naming the frame', async () => {
    const k4 = await transformsDataset(1, { fl_x: 5, k4: 0.01 });
    await expectBadInput(loadDataset(k4.root), k4.file, /frames\[0\]: k4 is a fisheye term/);
    const pinhole = await transformsDataset(1, { fl_x: 5, camera_model: 'PINHOLE', k1: 0.1 });
    await expectBadInput(loadDataset(pinhole.root), pinhole.file, /frames\[0\]: camera_model PINHOLE has no distortion/);
    const tangential = await transformsDataset(1, { fl_x: 5, camera_model: 'OPENCV_FISHEYE', p1: 0.01 });
    await expectBadInput(loadDataset(tangential.root), tangential.file, /OPENCV_FISHEYE has no tangential terms/);
    const folds = await transformsDataset(1, { fl_x: 8, camera_model: 'OPENCV_FISHEYE', k1: -4 });
    await expectBadInput(loadDataset(folds.root), folds.file, /frames\[0\]: the fisheye distortion \[-4, 0, 0, 0\] folds back/);
    const infinite = await transformsDataset(1, { fl_x: 8, camera_model: 'OPENCV_FISHEYE', k2: 0.5 });
    await writeFile(infinite.file, (await readFile(infinite.file, 'utf8')).replace('"k2":0.5', '"k2":1e999')); // JSON.stringify cannot write it
    await expectBadInput(loadDataset(infinite.root), infinite.file, /frames\[0\]: k2 is Infinity, expected a finite number/);
    const other = await transformsDataset(1, { fl_x: 5, camera_model: 'EQUIRECTANGULAR' });
    await expectBadInput(loadDataset(other.root), other.file, /camera_model "EQUIRECTANGULAR" is not supported/);
    const text = await transformsDataset(1, { fl_x: '5' });
    await expectBadInput(loadDataset(text.root), text.file, /fl_x must be a number, found "5"/);
  });
});
