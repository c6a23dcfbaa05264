import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSampleProject } from '../../../../main/engine/project/import.js';
import { recordRunEvent } from '../../../../main/engine/project/train-run.js';
import type { ProjectRun } from '../../../../shared/project/manifest.js';
import { tempDir } from '../../../helpers/datasets.js';

async function projectWithRun() {
  const dir = await tempDir('train-run-record');
  const project = await createSampleProject(path.join(dir, 's.argo'));
  const now = new Date().toISOString();
  const run: ProjectRun = {
    id: 'run-001', createdAt: now, updatedAt: now, params: {}, status: 'running', step: 0, total: 10, resumes: [],
    checkpointsDir: project.relative(path.join(project.runDir('run-001'), 'checkpoints')), metrics: [], evaluations: [], outputs: {},
  };
  project.manifest.runs.push(run);
  await project.save();
  return { project, run, warnings: [] as string[] };
}

describe('recordRunEvent: a run records what its job reports', () => {
  it('a training step becomes the run step and one metric point of the tuple (ETA and stage are not metrics)', async () => {
    const { project, run, warnings } = await projectWithRun();
    await recordRunEvent(project, run, { type: 'progress', stage: 'train', step: 4, total: 10, loss: 0.3, psnr: 19, splats: 12, itPerS: 2, etaS: 3 }, (m) => warnings.push(m));
    await recordRunEvent(project, run, { type: 'progress', stage: 'load', step: 0, total: 1 }, (m) => warnings.push(m));
    expect(run.step).toBe(4);
    expect(run.metrics).toEqual([{ step: 4, loss: 0.3, psnr: 19, splats: 12, itPerS: 2 }]);
    expect(warnings).toEqual([]);
  });

  it('a checkpoint is in the saved manifest (relative path, step) before the call returns', async () => {
    const { project, run, warnings } = await projectWithRun();
    const file = path.join(project.resolve(run.checkpointsDir), 'step-0000006.ckpt');
    await recordRunEvent(project, run, { type: 'checkpoint', step: 6, file }, (m) => warnings.push(m));
    const saved = JSON.parse(readFileSync(project.file, 'utf8')).runs[0];
    expect(saved).toMatchObject({ step: 6, latestCheckpoint: { file: project.relative(file), step: 6 } });
    expect(saved.latestCheckpoint.file).not.toMatch(/^\//);
  });

  it('an evaluation adds its means to the run, and its per-view scores on the newest evaluation only (saved)', async () => {
    const { project, run, warnings } = await projectWithRun();
    await recordRunEvent(project, run, { type: 'evaluation', step: 5, psnr: 22, ssim: 0.7, views: [{ name: 'v0', psnr: 22, ssim: 0.7 }] }, (m) => warnings.push(m));
    await recordRunEvent(project, run, { type: 'evaluation', step: 10, psnr: 24.5, ssim: 0.81, ccPsnr: 25, views: [{ name: 'v0', psnr: 23, ssim: 0.8, ccPsnr: 24 }, { name: 'v8', psnr: 26, ssim: 0.82, ccPsnr: 26 }] }, (m) => warnings.push(m));
    expect(run.evaluations).toEqual([
      { step: 5, psnr: 22, ssim: 0.7 },
      { step: 10, psnr: 24.5, ssim: 0.81, ccPsnr: 25, views: [{ name: 'v0', psnr: 23, ssim: 0.8, ccPsnr: 24 }, { name: 'v8', psnr: 26, ssim: 0.82, ccPsnr: 26 }] },
    ]);
    await project.save(); // the evaluation's own save is not awaited
    const saved = JSON.parse(readFileSync(project.file, 'utf8')).runs[0];
    expect(saved.evaluations[1].views.map((v: { name: string }) => v.name)).toEqual(['v0', 'v8']);
    expect(warnings).toEqual([]);
  });
});
