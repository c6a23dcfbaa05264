import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { parseSpz } from '../../../main/engine/formats/spz.js';
import { checkSplatFile } from '../../../main/engine/formats/splat.js';
import { readPly, writePly } from '../../../main/engine/formats/ply.js';
import { parseGlb } from '../../../main/engine/formats/gltf-splats.js';
import { parseSog } from '../../../main/engine/formats/sog.js';
import { writeSplatsAs } from '../../../main/engine/formats/splat-files.js';
import { EXPORT_FORMATS } from '../../../shared/project/manifest.js';
import { randomSplats } from '../../helpers/splat-sets.js';
import { tempDir } from '../../helpers/datasets.js';
import { tinyDataset } from '../../helpers/projects.js';
import { cliJson } from '../../helpers/cli-json.js';

const cli = cliJson;

describe('argonaut --no-gui with projects', () => {
  it('export --format transforms of a project without a dataset (the sample scene) is a bad input naming the project', async () => {
    const dir = await tempDir('cli-export-cameras');
    const file = path.join(dir, 'sample.argo');
    expect((await cli(['import', '--sample', '--project', file])).code).toBe(0);
    const { code, error } = await cli(['export', file, '--format', 'transforms', '--out', path.join(dir, 'cams')]);
    expect(code).toBe(3);
    expect(String(error?.message)).toContain(file);
    expect(String(error?.message)).toMatch(/no dataset folder/);
    expect(existsSync(path.join(dir, 'cams'))).toBe(false);
  });

  it('import creates a project from a dataset and reports views, split and format', async () => {
    const ds = await tinyDataset();
    const dir = await tempDir('cli-import');
    const { code, result, lines } = await cli(['import', ds.root, '--project', path.join(dir, 'p.argo'), '--iterations', '40']);
    expect(code).toBe(0);
    expect(result).toMatchObject({ project: path.join(dir, 'p.argo'), format: 'colmap', views: 6, train: 5, test: 1, width: 32, height: 24, points: 5, copied: false });
    expect(lines.some((l) => l.type === 'progress' && l.stage === 'verify' && l.step === 6)).toBe(true);
    const manifest = JSON.parse(readFileSync(path.join(dir, 'p.argo'), 'utf8'));
    expect(manifest.params).toEqual({ 'train.iterations': 40 });
  });

  it('train resumes from the newest checkpoint after Ctrl+C (exit 130) and ends bit-identical to an uninterrupted run', async () => {
    const ds = await tinyDataset();
    const dir = await tempDir('cli-train');
    const straight = path.join(dir, 'straight.argo');
    const broken = path.join(dir, 'broken.argo');
    for (const file of [straight, broken]) expect((await cli(['import', ds.root, '--project', file, '--iterations', '60', '--checkpoint-every', '20'])).code).toBe(0);

    const full = await cli(['train', straight]);
    expect(full.code).toBe(0);
    expect(full.result).toMatchObject({ resumed_from: 0, steps: 60, status: 'finished', run: 'run-001', cancelled: false });
    const steps = full.lines.filter((l) => l.type === 'progress' && l.stage === 'train').map((l) => l.step as number);
    expect(steps.length).toBeGreaterThan(0);
    expect(steps.at(-1)).toBe(60);

    // Ctrl+C after the step-20 checkpoint: the job stops at the next step boundary and saves there.
    const controller = new AbortController();
    const first = await cli(['train', broken], { signal: controller.signal, onOutput: (t) => t.includes('checkpoint at step 20') && controller.abort() });
    expect(first.code).toBe(130);
    const stoppedAt = first.result!.steps as number;
    expect(stoppedAt).toBeGreaterThanOrEqual(20);
    expect(stoppedAt).toBeLessThan(40);
    expect(first.result).toMatchObject({ cancelled: true, status: 'interrupted', checkpoint_step: stoppedAt, resumed_from: 0 });
    expect(JSON.parse(readFileSync(broken, 'utf8')).runs[0]).toMatchObject({ status: 'interrupted', step: stoppedAt, latestCheckpoint: { step: stoppedAt } });

    const second = await cli(['train', broken]);
    expect(second.code).toBe(0);
    expect(second.result).toMatchObject({ resumed_from: stoppedAt, steps: 60, status: 'finished', run: 'run-001' });
    expect(second.lines.find((l) => l.type === 'run')).toMatchObject({ run: 'run-001', resumed_from: stoppedAt });
    const a = await readPly(full.result!.splats_ply as string);
    const b = await readPly(second.result!.splats_ply as string);
    for (const key of ['means', 'logScales', 'quats', 'opacityLogits', 'sh'] as const) expect(Buffer.from(b[key].buffer).equals(Buffer.from(a[key].buffer)), key).toBe(true);
    // Rotation keeps the newest three checkpoints; the manifest knows the newest.
    const checkpoints = readdirSync(path.join(dir, 'broken.argo.data', 'runs', 'run-001', 'checkpoints')).sort();
    expect(checkpoints).toEqual([...new Set(['step-0000020.ckpt', `step-${String(stoppedAt).padStart(7, '0')}.ckpt`, 'step-0000040.ckpt'])].sort());
    const manifest = JSON.parse(readFileSync(broken, 'utf8'));
    expect(manifest.runs[0]).toMatchObject({ status: 'finished', step: 60, resumes: [stoppedAt], latestCheckpoint: { file: 'broken.argo.data/runs/run-001/checkpoints/step-0000040.ckpt', step: 40 }, outputs: { splats: 'broken.argo.data/runs/run-001/splats.ply' } });
    expect(manifest.runs[0].metrics.at(-1)).toMatchObject({ step: 60 });

    // A finished run: the next train starts run-002; a continuing run refuses changed parameters.
    const next = await cli(['train', broken, '--iterations', '10']);
    expect(next.result).toMatchObject({ run: 'run-002', resumed_from: 0, steps: 10 });
  }, 180_000);

  it('refuses to change what a continuing run computes (exit 2), but accepts checkpoint frequency', async () => {
    const ds = await tinyDataset();
    const dir = await tempDir('cli-conflict');
    const file = path.join(dir, 'c.argo');
    await cli(['import', ds.root, '--project', file, '--iterations', '50', '--checkpoint-every', '10']);
    const controller = new AbortController();
    await cli(['train', file], { signal: controller.signal, onOutput: (t) => t.includes('checkpoint at step 10') && controller.abort() });
    const refused = await cli(['train', file, '--iterations', '99']);
    expect(refused.code).toBe(2);
    expect(refused.error!.message).toMatch(/c\.argo: run-001 continues with its own parameters \(train\.iterations 50 \(asked 99\)\); start a new run \(--new-run\)/);
    const ok = await cli(['train', file, '--checkpoint-every', '25']);
    expect(ok.result).toMatchObject({ steps: 50 });
    expect(ok.result!.resumed_from).toBeGreaterThanOrEqual(10);
  }, 120_000);

  it('render --view K draws a training view of the newest splats; export writes every splat format and records them', async () => {
    const ds = await tinyDataset();
    const dir = await tempDir('cli-render');
    const file = path.join(dir, 'r.argo');
    await cli(['import', ds.root, '--project', file, '--iterations', '20']);
    const noSplats = await cli(['export', file, '--format', 'ply', '--out', path.join(dir, 'none.ply')]);
    expect(noSplats.code).toBe(3);
    expect(noSplats.error!.message).toMatch(/r\.argo: the project has no trained splats yet; train it first/);
    await cli(['train', file]);
    const image = path.join(dir, 'view 2 ü.png');
    const render = await cli(['render', file, '--view', '2', '--out', image]);
    expect(render.code).toBe(0);
    expect(render.result).toMatchObject({ view: 2, view_name: 'img_2.png', split: 'train', width: 32, height: 24, run: 'run-001', step: 20 });
    const png = PNG.sync.read(readFileSync(image));
    expect([png.width, png.height]).toEqual([32, 24]);
    const outOfRange = await cli(['render', file, '--view', '6', '--out', path.join(dir, 'x.png')]);
    expect(outOfRange.code).toBe(3);
    expect(outOfRange.error!.message).toMatch(/r\.argo: view 6 does not exist: the dataset has views 0 to 5/);
    expect((await cli(['render', file, '--out', path.join(dir, 'x.png')])).code).toBe(2);

    for (const format of EXPORT_FORMATS) {
      const out = path.join(dir, `export.${format}`);
      const res = await cli(['export', file, '--format', format, '--out', out]);
      expect(res.code).toBe(0);
      expect(res.result).toMatchObject({ format, splats: 5, path: out, run: 'run-001', step: 20 });
      expect(res.result!.bytes).toBe(readFileSync(out).length);
    }
    expect((await readPly(path.join(dir, 'export.ply'))).count).toBe(5);
    expect(checkSplatFile(readFileSync(path.join(dir, 'export.splat')), 'x')).toBe(5);
    expect(parseSpz(readFileSync(path.join(dir, 'export.spz')), 'x').count).toBe(5);
    expect(parseGlb(readFileSync(path.join(dir, 'export.glb')), 'x').count).toBe(5);
    expect((await parseSog(readFileSync(path.join(dir, 'export.sog')), 'x')).count).toBe(5);
    expect(JSON.parse(readFileSync(file, 'utf8')).exports.map((e: { format: string; path: string }) => [e.format, e.path])).toEqual(EXPORT_FORMATS.map((f) => [f, `export.${f}`]));
    // A bare PLY exports too.
    const fromPly = await cli(['export', path.join(dir, 'export.ply'), '--format', 'splat', '--out', path.join(dir, 'again.splat')]);
    expect(fromPly.result).toMatchObject({ splats: 5, format: 'splat' });
    expect((await cli(['export', file, '--format', 'obj', '--out', path.join(dir, 'x.obj')])).code).toBe(2);
    expect(existsSync(path.join(dir, 'x.obj'))).toBe(false);
  }, 120_000);

  it('import makes a project of a splat file in every format (the antialiased flag kept where the format has one), and export converts between them', async () => {
    const dir = await tempDir('cli-splat-formats');
    const s = randomSplats(30, 1, 9);
    const source = path.join(dir, 'source.ply');
    await writePly(source, s);
    for (const format of EXPORT_FORMATS.filter((f) => f !== 'ply')) {
      const out = path.join(dir, `converted ü.${format}`);
      const exported = await cli(['export', source, '--format', format, '--out', out]);
      expect(exported.code, exported.err).toBe(0);
      expect(exported.result).toMatchObject({ format, splats: 30 });
      const project = path.join(dir, `${format}.argo`);
      const imported = await cli(['import', out, '--project', project]);
      expect(imported.code, imported.err).toBe(0);
      expect(imported.result).toMatchObject({ format, splats: 30 });
      const back = await cli(['export', project, '--format', 'ply', '--out', path.join(dir, `${format}-back.ply`)]);
      expect(back.result).toMatchObject({ splats: 30 });
    }
    // A project trained with antialiasing exports the flag; importing the file gives the run the parameter back.
    const aa = path.join(dir, 'aa.spz');
    await writeSplatsAs('spz', aa, s, { antialiased: true });
    await cli(['import', aa, '--project', path.join(dir, 'aa.argo')]);
    expect(JSON.parse(readFileSync(path.join(dir, 'aa.argo'), 'utf8')).runs[0].params['train.antialiased']).toBe(true);
  }, 60_000);
});
