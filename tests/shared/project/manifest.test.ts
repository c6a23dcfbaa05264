import { describe, expect, it } from 'vitest';
import { appendMetrics, METRICS_LIMIT, parseManifest, PROJECT_VERSION, ProjectManifestSchema, recordEvaluation, type EvaluationRecord, type MetricsPoint } from '../../../shared/project/manifest.js';
import { validManifest } from '../../helpers/projects.js';

const file = '/projects/statue.argo';
const options = { dataDir: 'statue.argo.data', now: '2026-02-01T00:00:00.000Z' };

describe('the .argo manifest', () => {
  it('accepts a current (version-3) manifest as written', () => {
    const m = validManifest();
    expect(parseManifest(JSON.parse(JSON.stringify(m)), file, options)).toEqual({ manifest: m });
  });

  it('validates parameters with the registry: unknown keys, system keys and out-of-range values are refused, naming the field', () => {
    for (const [params, field] of [
      [{ 'train.iterations': 0 }, 'params.train.iterations'],
      [{ 'train.strategy': 'random' }, 'params.train.strategy'],
      [{ 'train.frobnicate': 1 }, 'params'],
      [{ 'system.backend': 'vulkan' }, 'params'],
    ] as const) {
      expect(() => parseManifest({ ...validManifest(), params }, file, options)).toThrow(expect.objectContaining({ code: 'bad_input', message: expect.stringContaining(field) }));
    }
  });

  it('refuses a newer version, naming the file and saying to update', () => {
    const newer = { ...validManifest(), version: PROJECT_VERSION + 1, somethingNew: true };
    expect(() => parseManifest(newer, file, options)).toThrow(expect.objectContaining({
      code: 'bad_input',
      message: `${file}: project version 4 is newer than this build of Argonaut Studio reads (version 3); update Argonaut Studio to open it`,
    }));
  });

  it('refuses what is not a project: other JSON, wrong format, a bad version', () => {
    expect(() => parseManifest([1, 2], file, options)).toThrow(/statue\.argo: not an Argonaut project \(expected a JSON object\)/);
    expect(() => parseManifest({ format: 'blender' }, file, options)).toThrow(/not an Argonaut project \(format is "blender"/);
    expect(() => parseManifest({ format: 'argonaut-project', version: 'one' }, file, options)).toThrow(/invalid project version "one"/);
    expect(() => parseManifest({ argonaut_project: 7 }, file, options)).toThrow(/unknown project version 7/);
  });

  it('migrates version 0 (the prototype: CLI-flag settings, trainings beside the file) to the current version', () => {
    const v0 = {
      argonaut_project: 0,
      name: 'garden',
      created: '2025-11-02T09:30:00Z',
      dataset: '../captures/garden',
      dataset_format: 'colmap',
      settings: { iterations: 7000, 'sh-degree': 2, downscale: 4, backend: 'vulkan', 'max-splats': 'lots', colour: 'blue' },
      trainings: [
        { started: '2025-11-02T10:00:00Z', iterations: 7000, last_step: 7000, checkpoint_dir: 'garden_checkpoints/1', splats: 'garden.ply', psnr: 24.1 },
        { started: '2025-11-03T10:00:00Z', iterations: 30000, last_step: 12000, checkpoint_dir: 'garden_checkpoints/2' },
      ],
    };
    const { manifest, migratedFrom } = parseManifest(v0, file, options);
    expect(migratedFrom).toBe(0);
    expect(ProjectManifestSchema.parse(manifest)).toEqual(manifest); // a valid current manifest
    expect(manifest).toMatchObject({
      version: 3,
      edits: { history: [] },
      cameraPaths: [],
      partitions: [],
      name: 'garden',
      createdAt: '2025-11-02T09:30:00Z',
      dataDir: 'statue.argo.data',
      dataset: { kind: 'folder', path: '../captures/garden', format: 'colmap', copied: false },
      sources: [{ kind: 'dataset', path: '../captures/garden' }],
      params: { 'train.iterations': 7000, 'train.shDegree': 2, 'train.downscale': 4 },
    });
    expect(manifest.runs.map((r) => [r.id, r.status, r.step, r.total, r.checkpointsDir, r.outputs.splats])).toEqual([
      ['run-001', 'finished', 7000, 7000, 'garden_checkpoints/1', 'garden.ply'],
      ['run-002', 'interrupted', 12000, 30000, 'garden_checkpoints/2', undefined],
    ]);
    expect(manifest.runs[1].params).toMatchObject({ 'train.iterations': 30000, 'train.shDegree': 2, 'train.strategy': 'adc' });
    const notes = manifest.migration!.notes.join('\n');
    expect(manifest.migration).toMatchObject({ from: 0, at: options.now });
    expect(notes).toMatch(/dropped setting "backend" \(no such training parameter\)/);
    expect(notes).toMatch(/dropped setting "colour"/);
    expect(notes).toMatch(/dropped setting "max-splats": "lots" is not valid/);
  });

  it('migrates version 1 (before edits and camera paths): the same project with an empty edit history, no paths and no partitions', () => {
    const { edits: _edits, cameraPaths: _paths, partitions: _partitions, ...current } = validManifest({ runs: [] });
    const v1 = { ...current, version: 1 };
    const { manifest, migratedFrom } = parseManifest(JSON.parse(JSON.stringify(v1)), file, options);
    expect(migratedFrom).toBe(1);
    expect(manifest).toEqual({ ...validManifest(), migration: { from: 1, at: options.now, notes: ['version 2 adds edits and camera paths, version 3 partitions: none yet'] } });
    // a version-1 file that already carries version-2 fields is not version 1
    expect(() => parseManifest({ ...v1, cameraPaths: [] }, file, options)).toThrow(/statue\.argo: invalid project file \(version 1\): .*cameraPaths/);
  });

  it('migrates version 2 (before partitions): the same project with no partitions', () => {
    const { partitions: _partitions, ...current } = validManifest({ runs: [] });
    const v2 = { ...current, version: 2 };
    const { manifest, migratedFrom } = parseManifest(JSON.parse(JSON.stringify(v2)), file, options);
    expect(migratedFrom).toBe(2);
    expect(manifest).toEqual({ ...validManifest(), migration: { from: 2, at: options.now, notes: ['version 3 adds partitions: none yet'] } });
    expect(() => parseManifest({ ...v2, partitions: [] }, file, options)).toThrow(/statue\.argo: invalid project file \(version 2\): .*partitions/);
  });

  it('refuses a damaged version-0 file with the field named', () => {
    expect(() => parseManifest({ argonaut_project: 0, name: 'x', created: 'yesterday' }, file, options)).toThrow(/statue\.argo: version 0 project: created: expected an ISO 8601 time/);
  });

  it('keeps the metrics history bounded, thinning the oldest half and keeping the newest points', () => {
    const history: MetricsPoint[] = [];
    for (let step = 1; step <= 10_000; step++) appendMetrics(history, { step, loss: 1 / step });
    expect(history.length).toBeLessThanOrEqual(METRICS_LIMIT);
    expect(history.at(-1)!.step).toBe(10_000);
    expect(history[0].step).toBe(1);
    for (let i = 1; i < history.length; i++) expect(history[i].step).toBeGreaterThan(history[i - 1].step);
  });
});

describe('a run\'s evaluations in the manifest', () => {
  it('reads a run recorded before per-view scores existed, and one with them; refuses a view without its name', () => {
    const m = validManifest();
    const at = m.createdAt;
    const run = { id: 'run-001', createdAt: at, updatedAt: at, params: {}, status: 'finished', step: 10, total: 10, resumes: [], checkpointsDir: 'statue.argo.data/runs/run-001/checkpoints', metrics: [], evaluations: [], outputs: {} };
    const older = { ...m, runs: [{ ...run, evaluations: [{ step: 10, psnr: 24, ssim: 0.8 }] }] };
    expect(parseManifest(JSON.parse(JSON.stringify(older)), file, options).manifest.runs[0].evaluations).toEqual([{ step: 10, psnr: 24, ssim: 0.8 }]);
    const views = [{ name: 'IMG_0001.jpg', psnr: 22.5, ssim: 0.75, ccPsnr: 23 }];
    const newer = { ...m, runs: [{ ...run, evaluations: [{ step: 10, psnr: 22.5, ssim: 0.75, ccPsnr: 23, views }] }] };
    expect(parseManifest(JSON.parse(JSON.stringify(newer)), file, options).manifest.runs[0].evaluations[0].views).toEqual(views);
    const nameless = { ...m, runs: [{ ...run, evaluations: [{ step: 10, psnr: 22.5, ssim: 0.75, views: [{ psnr: 22.5, ssim: 0.75 }] }] }] };
    expect(() => parseManifest(nameless, file, options)).toThrow(expect.objectContaining({ code: 'bad_input', message: expect.stringContaining('runs.0.evaluations.0.views.0.name') }));
  });

  it('keeps per-view scores on the newest evaluation only, and replaces a step recorded twice', () => {
    const history: EvaluationRecord[] = [];
    recordEvaluation(history, { step: 100, psnr: 20, ssim: 0.6, views: [{ name: 'a', psnr: 20, ssim: 0.6 }] });
    recordEvaluation(history, { step: 200, psnr: 21, ssim: 0.65, ccPsnr: 22, views: [{ name: 'a', psnr: 21, ssim: 0.65, ccPsnr: 22 }] });
    expect(history).toEqual([{ step: 100, psnr: 20, ssim: 0.6 }, { step: 200, psnr: 21, ssim: 0.65, ccPsnr: 22, views: [{ name: 'a', psnr: 21, ssim: 0.65, ccPsnr: 22 }] }]);
    recordEvaluation(history, { step: 200, psnr: 21.5, ssim: 0.66, views: [{ name: 'a', psnr: 21.5, ssim: 0.66 }] });
    expect(history.map((e) => [e.step, e.psnr, e.views?.length])).toEqual([[100, 20, undefined], [200, 21.5, 1]]);
  });
});
