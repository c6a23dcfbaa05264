import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../main/cli/index.js';
import { tempDir } from '../../helpers/datasets.js';
import { captureStreams } from '../../helpers/streams.js';

describe('argonaut --no-gui bench appearance', () => {
  it('times the colour model on the fixed load at the size asked and writes the result as the other benchmarks do', async () => {
    const out = path.join(await tempDir('bench-appearance'), 'result.json');
    const s = captureStreams();
    const code = await runCli(['--no-gui', 'bench', 'appearance', '--width', '40', '--height', '30', '--out', out, '--json'], { streams: s });
    expect(code, s.err()).toBe(0);
    const result = JSON.parse(await readFile(out, 'utf8')) as Record<string, unknown> & { checks: Record<string, number> };
    expect(result).toMatchObject({ bench: 'appearance', width: 40, height: 30 });
    for (const key of ['appearance_ms', 'kernels_gpu_ms']) expect(Number.isFinite(result[key]), key).toBe(true);
    for (const key of ['out_sum', 'v_image_sum', 'grad_slot_l2', 'grad_others_l2']) expect(Number.isFinite(result.checks[key]), key).toBe(true);
    for (const key of ['backend', 'adapter', 'commit', 'date']) expect(typeof result[key], key).toBe('string');
    expect(s.jsonLines().at(-1)).toMatchObject({ type: 'result', bench: 'appearance' });
  }, 180_000);

  it('refuses an empty image and positional arguments (exit 2)', async () => {
    for (const args of [['appearance', '--height', '0'], ['appearance', 'extra']]) {
      const s = captureStreams();
      expect(await runCli(['--no-gui', 'bench', ...args], { streams: s }), args.join(' ')).toBe(2);
    }
  });
});
