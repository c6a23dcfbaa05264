import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../main/cli/index.js';
import { cleanedTempDirs } from '../../helpers/datasets.js';
import { captureStreams } from '../../helpers/streams.js';

const tempDir = cleanedTempDirs(afterAll);

describe('argonaut --no-gui bench ba', () => {
  it('solves the synthetic load on the GPU and the CPU for a fixed number of iterations and writes both', async () => {
    const out = path.join(await tempDir('bench-ba'), 'ba.json');
    const s = captureStreams();
    const code = await runCli(['--no-gui', 'bench', 'ba', '--images', '8', '--points', '300', '--obs-per-point', '3', '--lm-iterations', '4', '--out', out, '--json'], { streams: s });
    expect(code, s.err()).toBe(0);
    const result = JSON.parse(await readFile(out, 'utf8'));
    expect(result).toMatchObject({ bench: 'ba', images: 8, points: 300, observations: 900, obs_per_point: 3, lm_iterations: 4 });
    for (const solver of [result.gpu, result.cpu]) {
      expect(solver.iterations).toBe(4);
      expect(solver.pcg_iterations).toHaveLength(4);
      expect(solver.ms_per_iteration).toBeGreaterThan(0);
      expect(solver.final_cost).toBeLessThan(solver.initial_cost);
    }
    expect(result.gpu.initial_cost).toBe(result.cpu.initial_cost);
    expect(Math.abs(result.final_cost_relative_difference)).toBeLessThan(1e-3);
    expect(result).toHaveProperty('adapter');
    expect(result).toHaveProperty('commit');
    expect(s.jsonLines().at(-1)).toMatchObject({ type: 'result', bench: 'ba' });
  });

  it('refuses sizes it cannot build, naming the option', async () => {
    const s = captureStreams();
    expect(await runCli(['--no-gui', 'bench', 'ba', '--images', '4', '--obs-per-point', '5'], { streams: s })).toBe(2);
    expect(s.err()).toMatch(/--obs-per-point must be between 2 and --images \(4\), got 5/);
  });
});
