import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../main/cli/index.js';
import { makeColmapDataset, tempDir } from '../../helpers/datasets.js';
import { captureStreams } from '../../helpers/streams.js';

describe('argonaut --no-gui bench train', () => {
  it('trains a dataset and writes the result the issue asks for: timing, quality, memory, state per splat, profile', async () => {
    const data = await makeColmapDataset({ width: 48, height: 32, count: 9, seed: 4 });
    const out = path.join(await tempDir('bench-train'), 'result.json');
    const s = captureStreams();
    const code = await runCli(['--no-gui', 'bench', 'train', data.root, '--steps', '60', '--out', out, '--json'], { streams: s });
    expect(code, s.err()).toBe(0);
    const result = JSON.parse(await readFile(out, 'utf8')) as Record<string, unknown>;
    expect(result).toMatchObject({ bench: 'train', dataset: path.basename(data.root), protocol: 'custom', steps: 60, test_views: 2, train_views: 7 });
    for (const key of ['train_s', 'psnr', 'cc_psnr', 'ssim', 'splats', 'peak_gpu_bytes', 'startup_s', 'load_s']) expect(Number.isFinite(result[key]), key).toBe(true);
    // a COLMAP capture: 'auto' trains the bilateral grid; the colour fit can only raise PSNR (the
    // identity is among its choices; 0.01 dB for the plain value's float32 sums)
    expect(result.appearance).toBe('bilagrid');
    expect(result.cc_psnr as number).toBeGreaterThan((result.psnr as number) - 0.01);
    for (const key of ['backend', 'adapter', 'commit', 'date']) expect(typeof result[key], key).toBe('string');
    // parameters + gradients + two Adam moments alone are 4 x 59 floats = 944 B a splat (SH 3)
    expect(result.bytes_per_splat_state as number).toBeGreaterThan(944);
    expect(result.bytes_per_splat_state as number).toBeLessThan(4096);
    const profile = result.profile as { rows: { kernel: string; calls: number }[] };
    expect(profile.rows.map((r) => r.kernel)).toEqual(expect.arrayContaining(['rasterize.rasterize_forward', 'rasterize.rasterize_backward', 'loss.ssim_forward', 'appearance.apply_forward', 'appearance.grid_grad_partials']));
    expect(s.jsonLines().at(-1)).toMatchObject({ type: 'result', bench: 'train' });
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
