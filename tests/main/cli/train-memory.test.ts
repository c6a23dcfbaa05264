import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/datasets.js';
import { hashTree, tinyDataset } from '../../helpers/projects.js';
import { cliJson } from '../../helpers/cli-json.js';

describe('train --gpu-memory-budget', () => {
  it('a start that cannot fit exits 3 naming what it needs and the budget; the project and its checkpoints are untouched', async () => {
    const ds = await tinyDataset();
    const out = await tempDir('cli-train-memory');
    expect((await cliJson(['train', ds.root, '--out', out, '--iterations', '20', '--checkpoint-every', '10'])).code).toBe(0);
    const before = hashTree(out);
    expect(Object.keys(before).some((f) => f.endsWith('step-0000010.ckpt'))).toBe(true);
    const refused = await cliJson(['train', path.join(out, 'train.argo'), '--new-run', '--iterations', '20', '--gpu-memory-budget', '64KiB']);
    expect(refused.code).toBe(3);
    expect(refused.error).toMatchObject({ code: 'bad_input', message: expect.stringMatching(/training cannot start within GPU memory: its set-up needs at least .* and the GPU memory budget is 64\.0 KiB \(65536 bytes/), details: { refusedAtStart: true, budgetBytes: 65536 } });
    expect(hashTree(out)).toEqual(before);
  }, 120_000);

  it('a budget that is not a size is a usage error (exit 2)', async () => {
    const refused = await cliJson(['train', '--sample', '--gpu-memory-budget', 'plenty']);
    expect(refused.code).toBe(2);
    expect(refused.error?.message).toContain('--gpu-memory-budget: expected a size');
  });
});
