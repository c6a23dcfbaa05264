import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../main/cli/index.js';
import { tempDir } from '../../helpers/datasets.js';
import { captureStreams } from '../../helpers/streams.js';

describe('argonaut --no-gui bench loss', () => {
  it('times the loss on the fixed pair at the size asked and writes the result as the other benchmarks do', async () => {
    const out = path.join(await tempDir('bench-loss'), 'result.json');
    const s = captureStreams();
    const code = await runCli(['--no-gui', 'bench', 'loss', '--width', '40', '--height', '30', '--ssim-padding', 'same', '--out', out, '--json'], { streams: s });
    expect(code, s.err()).toBe(0);
    const result = JSON.parse(await readFile(out, 'utf8')) as Record<string, unknown>;
    expect(result).toMatchObject({ bench: 'loss', width: 40, height: 30, padding: 'same' });
    for (const key of ['loss_ms', 'colour_correct_ms', 'loss', 'ssim', 'kernels_gpu_ms']) expect(Number.isFinite(result[key]), key).toBe(true);
    for (const key of ['backend', 'adapter', 'commit', 'date']) expect(typeof result[key], key).toBe('string');
    expect(s.jsonLines().at(-1)).toMatchObject({ type: 'result', bench: 'loss' });
  }, 180_000);

  it('refuses an empty image and positional arguments (exit 2)', async () => {
    for (const args of [['loss', '--width', '0'], ['loss', 'extra']]) {
      const s = captureStreams();
      expect(await runCli(['--no-gui', 'bench', ...args], { streams: s }), args.join(' ')).toBe(2);
    }
  });
});
