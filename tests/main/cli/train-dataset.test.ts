import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPly } from '../../../main/engine/formats/ply.js';
import { tempDir } from '../../helpers/datasets.js';
import { tinyDataset } from '../../helpers/projects.js';
import { cliJson } from '../../helpers/cli-json.js';

const cli = cliJson;

describe('train <dataset-dir> --out DIR (a scratch project in DIR)', () => {
  it('writes DIR/splats.ply and DIR/metrics.json with the same fields as always, and keeps the run in DIR/train.argo', async () => {
    const ds = await tinyDataset();
    const out = await tempDir('cli-train-dataset');
    const { code, result } = await cli(['train', ds.root, '--out', out, '--iterations', '20', '--checkpoint-every', '10']);
    expect(code).toBe(0);
    const metrics = JSON.parse(readFileSync(path.join(out, 'metrics.json'), 'utf8'));
    expect(Object.keys(metrics).sort()).toEqual(['adapter', 'appearance', 'backend', 'cancelled', 'cc_psnr', 'checkpoint', 'commit', 'dataset', 'date', 'driver', 'evaluations', 'first_step_s', 'intersection_overflows', 'load_s', 'non_finite_skipped', 'peak_gpu_bytes', 'psnr', 'splats', 'ssim', 'steps', 'test_views', 'train_s'].sort());
    expect(metrics).toMatchObject({ steps: 20, cancelled: false, test_views: 1 });
    expect((await readPly(path.join(out, 'splats.ply'))).count).toBe(metrics.splats);
    expect(result).toMatchObject({ out, splats_ply: path.join(out, 'splats.ply'), project: path.join(out, 'train.argo'), run: 'run-001' });
    const manifest = JSON.parse(readFileSync(path.join(out, 'train.argo'), 'utf8'));
    expect(manifest.runs).toHaveLength(1);
    expect(manifest.runs[0]).toMatchObject({ status: 'finished', step: 20, latestCheckpoint: { step: 10 } }); // checkpoints come before a step: none after the last
    expect(metrics.checkpoint).toBe(path.join(out, 'train.argo.data', 'runs', 'run-001', 'checkpoints', 'step-0000010.ckpt'));
  }, 120_000);

  it('Ctrl+C saves a checkpoint and exits 130; --resume continues the run from it; without --resume a new run starts with the new flags', async () => {
    const ds = await tinyDataset();
    const out = await tempDir('cli-train-dataset-resume');
    const controller = new AbortController();
    const first = await cli(['train', ds.root, '--out', out, '--iterations', '120', '--checkpoint-every', '10'], { signal: controller.signal, onOutput: (t) => t.includes('checkpoint at step 10') && controller.abort() });
    expect(first.code).toBe(130);
    expect(first.result).toMatchObject({ cancelled: true, run: 'run-001' });
    const stoppedAt = first.result!.steps as number;
    expect(stoppedAt).toBeGreaterThanOrEqual(10);
    expect(readdirSync(path.join(out, 'train.argo.data', 'runs', 'run-001', 'checkpoints'))).toContain(`step-${String(stoppedAt).padStart(7, '0')}.ckpt`);

    const second = await cli(['train', ds.root, '--out', out, '--iterations', '120', '--checkpoint-every', '10', '--resume']);
    expect(second.code).toBe(0);
    expect(second.result).toMatchObject({ resumed_from: stoppedAt, steps: 120, cancelled: false, run: 'run-001' });
    expect(second.lines.find((l) => l.type === 'run')).toMatchObject({ run: 'run-001', resumed_from: stoppedAt, total: 120 });

    const third = await cli(['train', ds.root, '--out', out, '--iterations', '5']);
    expect(third.code).toBe(0);
    expect(third.result).toMatchObject({ steps: 5, run: 'run-002' });
    expect(third.result!.resumed_from).toBeUndefined();
  }, 180_000);

  it('refuses an --out folder that holds the training of another source, naming its project, and writes nothing', async () => {
    const ds = await tinyDataset();
    const out = await tempDir('cli-train-dataset-other');
    expect((await cli(['train', ds.root, '--out', out, '--iterations', '2'])).code).toBe(0);
    const before = readFileSync(path.join(out, 'metrics.json'), 'utf8');
    const { code, error } = await cli(['train', '--sample', '--out', out, '--iterations', '2']);
    expect(code).toBe(3);
    expect(String(error?.message)).toContain(path.join(out, 'train.argo'));
    expect(String(error?.message)).toMatch(/holds the training of .* not the sample scene/);
    expect(readFileSync(path.join(out, 'metrics.json'), 'utf8')).toBe(before);
    expect(existsSync(path.join(out, 'train.argo.data', 'runs', 'run-002'))).toBe(false);
  }, 120_000);
});
