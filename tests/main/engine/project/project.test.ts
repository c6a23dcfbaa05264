import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ProjectManifestSchema } from '../../../../shared/project/manifest.js';
import { removeStaleTemps } from '../../../../main/engine/formats/atomic-file.js';
import { writePly } from '../../../../main/engine/formats/ply.js';
import { createSampleProject, createSplatProject, importDataset } from '../../../../main/engine/project/import.js';
import { acquireTrainingLock } from '../../../../main/engine/project/lock.js';
import { Project } from '../../../../main/engine/project/project.js';
import { emptySplats } from '../../../../shared/scene/splats.js';
import { tempDir } from '../../../helpers/datasets.js';
import { hashFile, tinyDataset, validManifest } from '../../../helpers/projects.js';

const sleepers: ReturnType<typeof spawn>[] = [];
afterAll(() => {
  for (const child of sleepers) child.kill('SIGKILL');
});

/** The pid of a process that has exited (for stale locks and temporary files). */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout as unknown as number;
}

describe('project files', () => {
  it('creates a valid manifest beside its data folder, and never overwrites one', async () => {
    const dir = await tempDir('proj');
    const project = await createSampleProject(path.join(dir, 'knot.argo'), { 'train.iterations': 500, 'system.backend': 'vulkan' } as never);
    const raw = JSON.parse(readFileSync(project.file, 'utf8'));
    expect(ProjectManifestSchema.parse(raw)).toMatchObject({ name: 'knot', dataDir: 'knot.argo.data', dataset: { kind: 'sample' }, params: { 'train.iterations': 500 } });
    expect(raw.params).not.toHaveProperty('system.backend'); // machine settings stay out of projects
    expect(existsSync(path.join(dir, 'knot.argo.data'))).toBe(true);
    const before = hashFile(project.file);
    await expect(createSampleProject(project.file)).rejects.toMatchObject({ code: 'bad_input', message: `${project.file}: the project file already exists; open it, or choose another name` });
    await expect(createSampleProject(path.join(dir, 'knot.json'))).rejects.toMatchObject({ message: expect.stringContaining('must end in .argo') });
    expect(hashFile(project.file)).toBe(before);
  });

  it('refuses files that are not projects, naming the file and the problem', async () => {
    const dir = await tempDir('proj-bad');
    const cases: [string, string | Buffer, RegExp, string][] = [
      ['empty.argo', '', /the project file is empty/, 'bad_input'],
      ['text.argo', 'hello world', /not valid JSON/, 'bad_input'],
      ['array.argo', '[]', /not an Argonaut project \(expected a JSON object\)/, 'bad_input'],
      ['newer.argo', JSON.stringify({ ...validManifest(), version: 9 }), /project version 9 is newer than this build/, 'bad_input'],
      ['fields.argo', JSON.stringify({ ...validManifest(), runs: [{ id: 'run-1' }] }), /invalid project file: runs\.0\.id: expected run-NNN/, 'bad_input'],
    ];
    for (const [name, content, message, code] of cases) {
      const file = path.join(dir, name);
      writeFileSync(file, content);
      await expect(Project.open(file)).rejects.toMatchObject({ code, message: expect.stringMatching(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ${message.source}`)) });
    }
    await expect(Project.open(path.join(dir, 'missing.argo'))).rejects.toMatchObject({ code: 'not_found', message: expect.stringContaining('missing.argo: project file not found') });
    mkdirSync(path.join(dir, 'folder.argo'));
    await expect(Project.open(path.join(dir, 'folder.argo'))).rejects.toMatchObject({ code: 'bad_input', message: expect.stringContaining('is a folder') });
  });

  it('migrates a version-0 file on open and keeps the original as .v0.bak when it first saves', async () => {
    const dir = await tempDir('proj-v0');
    const file = path.join(dir, 'old.argo');
    const v0 = JSON.stringify({ argonaut_project: 0, name: 'old', created: '2025-11-02T09:30:00Z', settings: { iterations: 900 }, trainings: [] });
    writeFileSync(file, v0);
    const project = await Project.open(file);
    expect(project.migratedFrom).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(v0); // opening changes nothing on disk
    await project.save();
    expect(readFileSync(`${file}.v0.bak`, 'utf8')).toBe(v0);
    const reopened = await Project.open(file);
    expect(reopened.migratedFrom).toBeUndefined();
    expect(reopened.manifest).toMatchObject({ version: 3, name: 'old', params: { 'train.iterations': 900 }, migration: { from: 0 } });
  });

  it('queues saves: the file always holds a whole manifest and ends with the newest state', async () => {
    const dir = await tempDir('proj-saves');
    const project = await createSampleProject(path.join(dir, 'busy.argo'));
    const saves: Promise<void>[] = [];
    for (let i = 0; i < 20; i++) {
      project.manifest.name = `name ${i}`;
      saves.push(project.save());
      ProjectManifestSchema.parse(JSON.parse(readFileSync(project.file, 'utf8')));
    }
    await Promise.all(saves);
    expect(JSON.parse(readFileSync(project.file, 'utf8')).name).toBe('name 19');
  });

  it('finds a referenced dataset by its relative path after the folder moves, by its old absolute path when only the project moves, and names missing data', async () => {
    const ds = await tinyDataset();
    const root = await tempDir('proj-move');
    const workspace = path.join(root, 'work');
    mkdirSync(workspace);
    cpSync(ds.root, path.join(workspace, 'data'), { recursive: true });
    const { project } = await importDataset(path.join(workspace, 'data'), path.join(workspace, 'p.argo'));
    expect(project.manifest.dataset).toMatchObject({ kind: 'folder', path: 'data', copied: false, format: 'colmap', views: 6, train: 5, test: 1, width: 32, height: 24, points: 5 });
    // The whole folder moves: the relative path still resolves.
    renameSync(workspace, path.join(root, 'moved'));
    const moved = await Project.open(path.join(root, 'moved', 'p.argo'));
    expect(await moved.datasetPath()).toBe(path.join(root, 'moved', 'data'));
    // Only the project moves: the absolute path from import is the fallback...
    const alone = await importDataset(ds.root, path.join(root, 'alone', 'q.argo'));
    renameSync(path.join(root, 'alone'), path.join(root, 'elsewhere'));
    expect(await (await Project.open(path.join(root, 'elsewhere', 'q.argo'))).datasetPath()).toBe(path.resolve(ds.root));
    // ... and a dataset that is gone is a bad input naming the project and the missing folder.
    renameSync(path.join(root, 'moved', 'data'), path.join(root, 'moved', 'data-gone'));
    await expect(moved.datasetPath()).rejects.toMatchObject({ code: 'bad_input', message: expect.stringMatching(/p\.argo: the project's dataset .*moved[/\\]data is missing/) });
    void alone;
  });

  it('copies a dataset into the data folder on request, so the project folder is self-contained', async () => {
    const ds = await tinyDataset();
    const dir = await tempDir('proj-copy');
    const { project } = await importDataset(ds.root, path.join(dir, 'c.argo'), { copy: true });
    expect(project.manifest.dataset).toMatchObject({ path: 'c.argo.data/dataset', copied: true });
    expect(project.manifest.dataset).not.toHaveProperty('absolutePath');
    expect(readFileSync(path.join(dir, 'c.argo.data', 'dataset', 'images', 'img_0.png'))).toEqual(readFileSync(path.join(ds.root, 'images', 'img_0.png')));
  });

  it('writes nothing when the dataset does not load (a corrupt image is found before the project exists)', async () => {
    const ds = await tinyDataset();
    const png = path.join(ds.root, 'images', 'img_3.png');
    const bytes = readFileSync(png);
    writeFileSync(png, bytes.subarray(0, bytes.length - 40)); // header intact, pixels cut
    const dir = await tempDir('proj-corrupt');
    const file = path.join(dir, 'bad.argo');
    await expect(importDataset(ds.root, file)).rejects.toMatchObject({ code: 'bad_input', message: expect.stringContaining('img_3.png') });
    expect(existsSync(file)).toBe(false);
    expect(existsSync(`${file}.data`)).toBe(false);
  });

  it('makes a project from a splat PLY: a finished run holding a copy', async () => {
    const dir = await tempDir('proj-ply');
    const ply = path.join(dir, 'in.ply');
    const splats = emptySplats(3, 0);
    splats.quats.fill(1);
    await writePly(ply, splats);
    const project = await createSplatProject(ply, path.join(dir, 'viewed.argo'));
    expect(project.summary()).toMatchObject({ name: 'viewed', splats: 3, source: { kind: 'splat', path: 'in.ply' }, runs: [{ id: 'run-001', status: 'finished' }] });
    expect(hashFile(project.resolve(project.manifest.runs[0].outputs.splats!))).toBe(hashFile(ply));
  });

  it('locks training: a live holder is refused with busy, a dead one is stale, and an interrupted run shows as such', async () => {
    const dir = await tempDir('proj-lock');
    const project = await createSampleProject(path.join(dir, 'l.argo'));
    project.manifest.runs.push({ id: 'run-001', createdAt: project.manifest.createdAt, updatedAt: project.manifest.createdAt, params: {}, status: 'running', step: 10, total: 100, resumes: [], checkpointsDir: 'l.argo.data/runs/run-001/checkpoints', metrics: [], evaluations: [], outputs: {} });
    await project.save();
    const lockFile = path.join(project.dataDir, 'train.lock');
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    sleepers.push(sleeper);
    writeFileSync(lockFile, JSON.stringify({ pid: sleeper.pid, host: os.hostname(), startedAt: new Date().toISOString() }));
    expect((await Project.open(project.file)).manifest.runs[0].status).toBe('running'); // someone trains it
    await expect(acquireTrainingLock(project)).rejects.toMatchObject({ code: 'busy', message: expect.stringContaining(`already being trained by process ${sleeper.pid}`) });
    writeFileSync(lockFile, JSON.stringify({ pid: Number(deadPid()), host: os.hostname(), startedAt: new Date().toISOString() }));
    expect((await Project.open(project.file)).manifest.runs[0].status).toBe('interrupted'); // its trainer died
    const release = await acquireTrainingLock(project);
    expect(JSON.parse(readFileSync(lockFile, 'utf8')).pid).toBe(process.pid);
    await release();
    expect(existsSync(lockFile)).toBe(false);
  });

  it('removes temporary files of writes whose process died, and only those', async () => {
    const dir = await tempDir('proj-temps');
    const dead = `.step-0000010.ckpt.${deadPid()}.0123456789ab.tmp`;
    const live = `.p.argo.${process.pid}.0123456789ab.tmp`;
    for (const name of [dead, live, 'step-0000010.ckpt', '.hidden']) writeFileSync(path.join(dir, name), 'x');
    expect(await removeStaleTemps(dir)).toEqual([dead]);
    expect(existsSync(path.join(dir, live))).toBe(true);
    expect(existsSync(path.join(dir, 'step-0000010.ckpt'))).toBe(true);
  });
});
