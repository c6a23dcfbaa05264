import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../main/cli/index.js';
import { selectBenchCamera, selectBenchScene, selectBenchShapes } from '../../../main/engine/edit/bench-select.js';
import { selectReference } from '../../../main/engine/edit/select-reference.js';
import { emptyMask } from '../../../shared/edits/selection-mask.js';
import { tempDir } from '../../helpers/datasets.js';
import { captureStreams } from '../../helpers/streams.js';

describe('argonaut --no-gui bench select', () => {
  it('times one selection per shape and writes the result as the other benchmarks do; each count is the reference\'s', async () => {
    const out = path.join(await tempDir('bench-select'), 'result.json');
    const s = captureStreams();
    const [splats, width, height] = [4000, 320, 180];
    const code = await runCli(['--no-gui', 'bench', 'select', '--splats', String(splats), '--width', String(width), '--height', String(height), '--clean', '--out', out, '--json'], { streams: s });
    expect(code, s.err()).toBe(0);
    const result = JSON.parse(await readFile(out, 'utf8')) as { rows: { shape: string; selected: number; kernel_ms: number; round_trip_ms: number }[] } & Record<string, unknown>;
    expect(result).toMatchObject({ bench: 'select', splats, width, height });
    for (const key of ['upload_ms', 'worst_round_trip_ms', 'clean_ms']) expect(Number.isFinite(result[key]), key).toBe(true);
    for (const key of ['backend', 'adapter', 'commit', 'date']) expect(typeof result[key], key).toBe('string');
    const shapes = selectBenchShapes(width, height);
    expect(result.rows.map((r) => r.shape)).toEqual(shapes.map((x) => x.label));
    // the benchmark's load is what the reference selects (a splat on a boundary may round either way)
    const scene = selectBenchScene(splats);
    const camera = selectBenchCamera(width, height);
    const current = emptyMask(splats).fill(0x55555555);
    if (splats % 32) current[current.length - 1] &= (1 << (splats % 32)) - 1;
    shapes.forEach((shape, k) => {
      const want = selectReference(scene, { mode: shape.mode, shape: shape.shape, camera, current }).count;
      expect(Math.abs(result.rows[k].selected - want), shape.label).toBeLessThanOrEqual(2);
      expect(result.rows[k].selected, `${shape.label} selects something`).toBeGreaterThan(0);
    });
  }, 180_000);

  it('refuses no splats and positional arguments (exit 2)', async () => {
    for (const args of [['select', '--splats', '0'], ['select', 'extra']]) {
      const s = captureStreams();
      expect(await runCli(['--no-gui', 'bench', ...args], { streams: s }), args.join(' ')).toBe(2);
    }
  });
});
