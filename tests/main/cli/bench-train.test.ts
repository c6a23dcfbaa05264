import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BENCH_PROTOCOLS, checksDatasetFirst, defaultProtocol, protocolByName } from '../../../main/cli/commands/bench-protocol.js';
import { runCli } from '../../../main/cli/index.js';
import { exportDataset } from '../../../main/engine/dataset/export.js';
import { writeColmapModel } from '../../../main/engine/dataset/colmap-write.js';
import { encodePng } from '../../helpers/images.js';
import { makeColmapDataset, tempDir } from '../../helpers/datasets.js';
import { captureStreams } from '../../helpers/streams.js';

describe('argonaut --no-gui bench train', () => {
  it('trains a dataset and writes the result the issue asks for: timing, quality, memory, state per splat, profile', async () => {
    const data = await makeColmapDataset({ width: 48, height: 32, count: 9, seed: 4 });
    const out = path.join(await tempDir('bench-train'), 'result.json');
    const s = captureStreams();
    // refines from step 20: the state below is measured after them (no refine scratch kept)
    const code = await runCli(['--no-gui', 'bench', 'train', data.root, '--steps', '60', '--refine-start', '20', '--refine-every', '20', '--out', out, '--json'], { streams: s });
    expect(code, s.err()).toBe(0);
    const result = JSON.parse(await readFile(out, 'utf8')) as Record<string, unknown>;
    // a COLMAP folder named neither mic nor statue: the capture protocol
    expect(result).toMatchObject({ bench: 'train', dataset: path.basename(data.root), protocol: 'capture', steps: 60, test_views: 2, train_views: 7 });
    for (const key of ['train_s', 'psnr', 'cc_psnr', 'ssim', 'splats', 'peak_gpu_bytes', 'startup_s', 'load_s']) expect(Number.isFinite(result[key]), key).toBe(true);
    // the start-up's stages, in the order they end; the first step's end is startup_s
    const stages = result.startup_stages_s as Record<string, number>;
    const order = ['job', 'data', 'splats', 'pipelines', 'frames', 'intersections', 'first_step'];
    expect(Object.keys(stages)).toEqual(expect.arrayContaining([...order, 'images']));
    expect(order.map((k) => stages[k])).toEqual(order.map((k) => stages[k]).sort((a, b) => a - b));
    expect(stages.first_step).toBe(result.startup_s);
    // a COLMAP capture: 'auto' trains the bilateral grid; the colour fit can only raise PSNR (the
    // identity is among its choices; 0.01 dB for the plain value's float32 sums)
    expect(result.appearance).toBe('bilagrid');
    expect(result.cc_psnr as number).toBeGreaterThan((result.psnr as number) - 0.01);
    for (const key of ['backend', 'adapter', 'commit', 'date']) expect(typeof result[key], key).toBe('string');
    // parameters 236 B a splat (SH 3), gradients 60 (the fused SH Adam stores no SH gradient), both
    // Adam moments 472 (f32), the densifier's statistics and the frame's per-splat working set: 989 B,
    // the same after a refine (its scratch lives for the refine only); a few bytes more here, where
    // the fixed-size buffers spread over a capacity of ~1,000
    const parts = result.state_bytes_breakdown as { params: number; grads: number; moments: Record<string, number>; densifier: number; frame_per_splat: number };
    expect(parts.params).toBeGreaterThanOrEqual(236);
    expect(parts.grads).toBeLessThan(64);
    expect(parts.moments.sh).toBeGreaterThanOrEqual(384);
    const sum = parts.params + parts.grads + Object.values(parts.moments).reduce((a, b) => a + b, 0) + parts.densifier + parts.frame_per_splat;
    expect(Math.abs(sum - (result.bytes_per_splat_state as number))).toBeLessThan(1);
    expect(result.bytes_per_splat_state as number).toBeGreaterThan(944);
    expect(result.bytes_per_splat_state as number).toBeLessThanOrEqual(1000);
    // per live splat: the capacity's room on top (2x the count before a refine, 1024 slots at least)
    expect(result.bytes_per_live_splat as number).toBeGreaterThan(result.bytes_per_splat_state as number);
    expect(result.refine_growth_clipped).toBe(0);
    const profile = result.profile as { rows: { kernel: string; calls: number }[] };
    expect(profile.rows.map((r) => r.kernel)).toEqual(expect.arrayContaining(['rasterize.rasterize_forward', 'rasterize.rasterize_backward', 'loss.ssim_forward', 'appearance.apply_forward', 'appearance-grad.grid_grad_partials']));
    expect(s.jsonLines().at(-1)).toMatchObject({ type: 'result', bench: 'train' });
  }, 180_000);

  it('takes --preset fast and records it (--steps still wins; evaluation at full resolution), and refuses an unknown preset (exit 2)', async () => {
    const data = await makeColmapDataset({ width: 48, height: 32, count: 9, seed: 5 });
    const out = path.join(await tempDir('bench-train-fast'), 'result.json');
    const s = captureStreams();
    const code = await runCli(['--no-gui', 'bench', 'train', data.root, '--preset', 'fast', '--steps', '20', '--out', out, '--json'], { streams: s });
    expect(code, s.err()).toBe(0);
    const result = JSON.parse(await readFile(out, 'utf8')) as Record<string, unknown>;
    expect(result).toMatchObject({ bench: 'train', preset: 'fast', steps: 20 });
    expect(Number.isFinite(result.psnr)).toBe(true);
    // evaluation at full resolution whatever the first steps trained at
    expect([result.width, result.height]).toEqual([48, 32]);
    const plain = captureStreams();
    expect(await runCli(['--no-gui', 'bench', 'train', data.root, '--preset', 'turbo'], { streams: plain })).toBe(2);
  }, 180_000);

  it('refuses values outside an option\'s choices before doing any work (exit 2)', async () => {
    for (const args of [
      ['raster', '--backward-reduce', 'atomics'],
      ['raster', '--backward-pixels', '3'],
      ['train', 'x', '--protocol', 'lego'],
      ['train', 'x', '--ssim-padding', 'reflect'],
      ['train', 'x', '--appearance', 'gamma'],
    ]) {
      const s = captureStreams();
      expect(await runCli(['--no-gui', 'bench', ...args], { streams: s }), args.join(' ')).toBe(2);
      expect(s.err()).toMatch(new RegExp(`--${args.at(-2)!.slice(2)}: expected one of`));
    }
  });
});

describe('bench train protocols', () => {
  it('picks mic and statue by name, custom for other NeRF-synthetic scenes, capture for any other capture; only capture reads the dataset before training', () => {
    expect(defaultProtocol('nerf_synthetic_mic', 'nerf-synthetic')).toBe('mic');
    expect(defaultProtocol('colmap_statue', 'colmap')).toBe('statue');
    expect(defaultProtocol('lego', 'nerf-synthetic')).toBe('custom');
    expect(defaultProtocol('garden', 'colmap')).toBe('capture');
    expect(defaultProtocol('phone-walk', 'transforms')).toBe('capture');
    expect(protocolByName('garden')).toBeUndefined();
    // the anchors' start-up times (process start to the first step) include no extra dataset read
    expect(BENCH_PROTOCOLS.filter(checksDatasetFirst)).toEqual(['capture']);
  });
});

describe('argonaut --no-gui bench train --protocol capture', () => {
  it('records the protocol as run: SfM init, every 8th image by name held out, full resolution, black, and every test view by name', async () => {
    // 10 images: img_0 and img_8 are held out (index % 8 == 0 over the sorted names)
    const data = await makeColmapDataset({ width: 40, height: 24, count: 10, seed: 11 });
    // the dataset's own masks/ (COLMAP's names): the loader finds them, the result counts them
    await mkdir(path.join(data.root, 'masks'));
    const mask = Uint8Array.from({ length: 40 * 24 * 3 }, (_, i) => (Math.floor(i / 3) % 40 < 8 ? 0 : 255));
    for (const image of data.images) await writeFile(path.join(data.root, 'masks', `${image.name}.png`), encodePng({ width: 40, height: 24, colorType: 2, depth: 8, samples: Array.from(mask) }));
    const out = path.join(await tempDir('bench-capture'), 'result.json');
    const s = captureStreams();
    const code = await runCli(['--no-gui', 'bench', 'train', data.root, '--protocol', 'capture', '--steps', '30', '--out', out, '--json'], { streams: s });
    expect(code, s.err()).toBe(0);
    const result = JSON.parse(await readFile(out, 'utf8')) as Record<string, unknown>;
    expect(result).toMatchObject({
      protocol: 'capture', steps: 30, test_views: 2, train_views: 8,
      init: { kind: 'sfm', points: data.points.ids.length },
      split: { rule: 'every 8th image by name (index % 8 == 0)', train: 8, test: 2 },
      downscale: 1, width: 40, height: 24, background: [0, 0, 0], masked_views: 10,
      appearance: 'bilagrid', refine_cameras: 'off',
    });
    expect(result).not.toHaveProperty('pose_aligned'); // refinement was off
    const views = result.views as { name: string; psnr: number; cc_psnr: number; ssim: number }[];
    expect(views.map((v) => v.name)).toEqual(['img_0.png', 'img_8.png']);
    for (const v of views) for (const key of ['psnr', 'cc_psnr', 'ssim'] as const) expect(Number.isFinite(v[key]), `${v.name} ${key}`).toBe(true);
    // the means are the per-view numbers' means
    const mean = (key: 'psnr' | 'cc_psnr' | 'ssim') => views.reduce((sum, v) => sum + v[key], 0) / views.length;
    for (const key of ['psnr', 'cc_psnr', 'ssim'] as const) expect(result[key] as number, key).toBeCloseTo(mean(key), 9);
  }, 180_000);

  it('takes a transforms.json folder the same way: its points, every 8th image by name, the capture protocol by default', async () => {
    const colmap = await makeColmapDataset({ width: 16, height: 12, count: 9, seed: 14 });
    const folder = path.join(await tempDir('bench-transforms'), 'garden');
    await exportDataset(colmap.root, folder, { format: 'transforms', images: 'copy' });
    const out = path.join(await tempDir('bench-transforms-out'), 'result.json');
    const s = captureStreams();
    expect(await runCli(['--no-gui', 'bench', 'train', folder, '--steps', '10', '--out', out, '--json'], { streams: s }), s.err()).toBe(0);
    const result = JSON.parse(await readFile(out, 'utf8')) as Record<string, unknown>;
    expect(result).toMatchObject({ protocol: 'capture', init: { kind: 'sfm', points: colmap.points.ids.length }, split: { rule: 'every 8th image by name (index % 8 == 0)', train: 7, test: 2 } });
    expect((result.views as { name: string }[]).map((v) => path.posix.basename(v.name))).toEqual(['img_0.png', 'img_8.png']);
  }, 180_000);

  it('says when it had to start from random points, and reports the pose-aligned scores when cameras were refined', async () => {
    const data = await makeColmapDataset({ width: 16, height: 12, count: 9, seed: 12 });
    const empty = { ids: new Float64Array(0), positions: new Float64Array(0), colors: new Uint8Array(0), errors: new Float64Array(0) };
    await writeColmapModel(data.sparse, { cameras: data.cameras, images: data.images, points: empty }, 'bin');
    const out = path.join(await tempDir('bench-capture'), 'result.json');
    const s = captureStreams();
    // refinement starts after its 500-step warm-up (CAMERA_REFINE_DEFAULTS.start)
    const code = await runCli(['--no-gui', 'bench', 'train', data.root, '--protocol', 'capture', '--steps', '520', '--refine-cameras', 'poses', '--init-points', '500', '--appearance', 'off', '--out', out, '--json'], { streams: s });
    expect(code, s.err()).toBe(0);
    const result = JSON.parse(await readFile(out, 'utf8')) as Record<string, unknown>;
    expect(result).toMatchObject({ init: { kind: 'random', points: 500, reason: 'the dataset has no SfM points' }, refine_cameras: 'poses', appearance: 'off' });
    const aligned = result.pose_aligned as { psnr: number; views: { name: string; psnr: number }[] };
    expect(aligned.views.map((v) => v.name)).toEqual(['img_0.png', 'img_8.png']);
    expect(Number.isFinite(aligned.psnr)).toBe(true);
  }, 300_000);

  it('refuses what would make its numbers something else: a downscale (exit 2), a NeRF-synthetic scene (exit 3, naming the folder)', async () => {
    const data = await makeColmapDataset({ width: 16, height: 12, count: 3, seed: 13 });
    let s = captureStreams();
    expect(await runCli(['--no-gui', 'bench', 'train', data.root, '--protocol', 'capture', '--downscale', '2'], { streams: s })).toBe(2);
    expect(s.err()).toMatch(/--protocol capture trains at full resolution/);
    const synthetic = await tempDir('bench-nerf');
    await writeFile(path.join(synthetic, 'transforms_train.json'), JSON.stringify({ camera_angle_x: 0.7, frames: [] }));
    await writeFile(path.join(synthetic, 'transforms_test.json'), JSON.stringify({ camera_angle_x: 0.7, frames: [] }));
    s = captureStreams();
    const code = await runCli(['--no-gui', 'bench', 'train', synthetic, '--protocol', 'capture'], { streams: s });
    expect(code, s.err()).toBe(3);
    expect(s.err()).toContain(synthetic);
    // a mask of the wrong size stops it before any training, naming the mask (exit 3)
    await mkdir(path.join(data.root, 'masks'));
    for (const [i, image] of data.images.entries()) {
      const [width, height] = i === 1 ? [12, 16] : [16, 12];
      await writeFile(path.join(data.root, 'masks', `${image.name}.png`), encodePng({ width, height, colorType: 0, depth: 8, samples: new Array<number>(width * height).fill(255) }));
    }
    s = captureStreams();
    expect(await runCli(['--no-gui', 'bench', 'train', data.root, '--protocol', 'capture'], { streams: s })).toBe(3);
    expect(s.err()).toContain(`${path.join(data.root, 'masks', `${data.images[1].name}.png`)}: mask is 12x16`);
  });
});
