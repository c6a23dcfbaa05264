import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSplatsFile } from '../../../../main/engine/formats/splat-files.js';
import { makeFolder } from '../../../../main/engine/formats/atomic-file.js';
import { writePly } from '../../../../main/engine/formats/ply.js';
import { addEditOperation, clearEdits, editState, redoEdit, undoEdit } from '../../../../main/engine/project/edits.js';
import { exportProject } from '../../../../main/engine/project/export.js';
import { createSplatProject } from '../../../../main/engine/project/import.js';
import { acquireTrainingLock } from '../../../../main/engine/project/lock.js';
import { Project } from '../../../../main/engine/project/project.js';
import { projectSplats } from '../../../../main/engine/project/splats.js';
import { tempDir } from '../../../helpers/datasets.js';
import { hashFile } from '../../../helpers/projects.js';
import { freshSeed } from '../../../helpers/random.js';
import { randomSplats } from '../../../helpers/splat-sets.js';

const seed = freshSeed();

async function splatProject(count = 200, name = 'p') {
  const dir = await tempDir('edits');
  const ply = path.join(dir, 'in.ply');
  await writePly(ply, randomSplats(count, 1, seed));
  const project = await createSplatProject(ply, path.join(dir, `${name}.argo`));
  return { dir, project };
}

function everyOther(count: number, offset = 0): Uint32Array {
  return Uint32Array.from({ length: Math.ceil((count - offset) / 2) }, (_, i) => 2 * i + offset);
}

const onDisk = (project: Project) => JSON.parse(readFileSync(project.file, 'utf8'));
const selFiles = (project: Project) => (existsSync(path.join(project.dataDir, 'edits')) ? readdirSync(path.join(project.dataDir, 'edits')).sort() : []);

describe(`a project's edits (seed ${seed})`, () => {
  it('adds an operation (selection file first, then the manifest), undoes and redoes it through the file on disk', async () => {
    const { project } = await splatProject(200);
    const state = await addEditOperation(project, { op: 'delete', label: 'Delete half' }, everyOther(200));
    expect(state.summary).toMatchObject({ operations: 1, undone: 0, before: 200, after: 100, counts: { delete: 1 } });
    const saved = onDisk(project).edits;
    expect(saved.current.base).toEqual({ run: 'run-001', step: 0, splats: 200 });
    expect(saved.current.operations[0]).toMatchObject({ op: 'delete', id: 'e-0001', label: 'Delete half', selection: { file: 'edits/e-0001.sel', count: 100 } });
    expect(selFiles(project)).toEqual(['e-0001.sel']);

    // another Project object of the same file sees it, and its change is not lost
    const other = await Project.open(project.file);
    await addEditOperation(other, { op: 'crop', box: { centre: [0, 0, 0], halfSize: [30, 30, 30], rotation: [0, 0, 0, 1] } });
    const reopened = await Project.open(project.file);
    expect(reopened.manifest.edits.current!.operations.map((o) => o.id)).toEqual(['e-0001', 'e-0002']);

    const undone = await undoEdit(project);
    expect(undone.summary).toMatchObject({ operations: 1, undone: 1, after: 100 });
    expect(onDisk(project).edits.current.undone.map((o: { id: string }) => o.id)).toEqual(['e-0002']);
    const undoneTwice = await undoEdit(project);
    expect(undoneTwice.summary).toMatchObject({ operations: 0, undone: 2, after: 200 });
    expect(selFiles(project)).toEqual(['e-0001.sel']); // redo needs it
    await expect(undoEdit(project)).rejects.toMatchObject({ code: 'bad_input', message: `${project.file}: nothing to undo` });
    const redone = await redoEdit(project);
    expect(redone.summary).toMatchObject({ operations: 1, undone: 1, after: 100 });
    expect(onDisk(project).edits.current.operations.map((o: { id: string }) => o.id)).toEqual(['e-0001']);

    // a new operation drops the redo stack
    const hidden = await addEditOperation(project, { op: 'hide' }, Uint32Array.of(1, 3, 4));
    expect(hidden.summary).toMatchObject({ operations: 2, undone: 0, after: 98, hidden: 2 }); // 4 was deleted
    expect(hidden.list!.operations.map((o) => o.id)).toEqual(['e-0001', 'e-0003']);
    await expect(redoEdit(project)).rejects.toMatchObject({ message: `${project.file}: nothing to redo` });
  });

  it('edited splats reach the export (exported count = after-edit count), the raw splats stay untouched', async () => {
    const { dir, project } = await splatProject(300);
    const rawBefore = hashFile(project.resolve(project.manifest.runs[0].outputs.splats!));
    await addEditOperation(project, { op: 'delete' }, everyOther(300));
    await addEditOperation(project, { op: 'transform', transform: { translation: [1, 2, 3], rotation: [0, 0, Math.SQRT1_2, Math.SQRT1_2], scale: 2 } });
    const state = await editState(project);
    expect(state.summary.after).toBe(150);
    for (const format of ['ply', 'splat', 'spz'] as const) {
      const file = path.join(dir, `out.${format}`);
      const result = await exportProject(project, format, file);
      expect(result.splats).toBe(150);
      expect((await readSplatsFile(file)).splats.count).toBe(150);
    }
    const found = await projectSplats(project);
    const raw = await projectSplats(project, undefined, { raw: true });
    expect(raw.splats.count).toBe(300);
    // splat 1 (base) is the first kept one: rotated 90 degrees about z, doubled, moved
    const [x, y, z] = raw.splats.means.subarray(3, 6);
    for (const [a, expected] of [2 * -y + 1, 2 * x + 2, 2 * z + 3].entries()) expect(found.splats.means[a]).toBeCloseTo(expected, 4);
    expect(Array.from(found.edits!.keptToBase.subarray(0, 3))).toEqual([1, 3, 5]);
    expect(hashFile(project.resolve(project.manifest.runs[0].outputs.splats!))).toBe(rawBefore);
  });

  it('clear empties the current list and removes only selection files no list references', async () => {
    const { project } = await splatProject(100);
    await addEditOperation(project, { op: 'delete' }, Uint32Array.of(1, 2));
    // training moved on: a newer run's splats; the next edit closes the list into the history
    const newer = path.join(project.runDir('run-002'), 'splats.ply');
    await makeFolder(path.dirname(newer));
    await writePly(newer, randomSplats(80, 1, seed + 1));
    const now = new Date().toISOString();
    project.manifest.runs.push({ ...project.manifest.runs[0], id: 'run-002', createdAt: now, updatedAt: now, step: 50, outputs: { splats: project.relative(newer), splatCount: 80 } });
    await project.save();
    const warnings: string[] = [];
    expect((await projectSplats(project, (m) => warnings.push(m))).splats.count).toBe(80); // the old list does not apply
    expect(warnings.join('\n')).toContain('the edit list applies to run-001 step 0 (100 splats), not to the newest splats (run-002 step 50 (80 splats)); showing them unedited');
    await expect(undoEdit(project)).rejects.toMatchObject({ message: expect.stringContaining('nothing to undo (the edit list applies to run-001 step 0 (100 splats), not to the newest splats: training moved on)') });

    const state = await addEditOperation(project, { op: 'hide' }, Uint32Array.of(0));
    const edits = onDisk(project).edits;
    expect(edits.history).toHaveLength(1);
    expect(edits.history[0]).toMatchObject({ base: { run: 'run-001', step: 0, splats: 100 }, operations: [{ id: 'e-0001' }], closedAt: expect.any(String) });
    expect(edits.current).toMatchObject({ base: { run: 'run-002', step: 50, splats: 80 }, operations: [{ id: 'e-0002', op: 'hide' }] });
    expect(state).toMatchObject({ history: 1, summary: { before: 80, after: 79, hidden: 1 } });
    writeFileSync(path.join(project.dataDir, 'edits', 'e-0099.sel'), 'orphan from a crash');
    await addEditOperation(project, { op: 'delete' }, Uint32Array.of(5));
    await undoEdit(project);
    expect(selFiles(project)).toEqual(['e-0001.sel', 'e-0002.sel', 'e-0003.sel']); // the orphan went; the undone one stays

    const cleared = await clearEdits(project);
    expect(cleared.summary).toMatchObject({ operations: 0, before: 80, after: 80 });
    expect(cleared.removed.map((f) => path.basename(f)).sort()).toEqual(['e-0002.sel', 'e-0003.sel']);
    expect(selFiles(project)).toEqual(['e-0001.sel']); // the history's list keeps its file
    expect(onDisk(project).edits).toMatchObject({ history: [{ base: { run: 'run-001' } }] });
    expect(onDisk(project).edits.current).toBeUndefined();
    expect((await projectSplats(project)).splats.count).toBe(80);
  });

  it('refuses bad operations by name and leaves the project byte-identical', async () => {
    const { project } = await splatProject(50);
    await addEditOperation(project, { op: 'delete' }, Uint32Array.of(3));
    const before = hashFile(project.file);
    const files = selFiles(project);
    const refusals: [Parameters<typeof addEditOperation>[1], Uint32Array | undefined, string][] = [
      [{ op: 'delete' }, undefined, 'a delete edit needs a selection of splats'],
      [{ op: 'delete' }, Uint32Array.of(4, 2), "the delete edit's selection: index 1 (2) does not follow index 0 (4): indices must be sorted and distinct"],
      [{ op: 'hide' }, Uint32Array.of(1, 50), "the hide edit's selection: index 1 is 50, not below the base's 50 splats"],
      [{ op: 'separate', layer: 'x' }, new Uint32Array(), "the separate edit's selection is empty: it would change nothing"],
      [{ op: 'crop', box: { centre: [0, 0, 0], halfSize: [1, -1, 1], rotation: [0, 0, 0, 1] } }, undefined, 'the crop edit is invalid (box.halfSize.1:'],
      [{ op: 'crop', box: { centre: [0, Number.NaN, 0], halfSize: [1, 1, 1], rotation: [0, 0, 0, 1] } }, undefined, 'the crop edit is invalid (box.centre.1:'],
      [{ op: 'transform', transform: { translation: [0, 0, 0], rotation: [0, 0, 0, 2], scale: 1 } }, undefined, 'the transform edit is invalid (transform.rotation: expected a unit quaternion (x, y, z, w))'],
      [{ op: 'transform', transform: { translation: [0, 0, 0], rotation: [0, 0, 0, 1], scale: 1 } }, Uint32Array.of(1), 'a transform edit takes no selection'],
    ];
    for (const [operation, selection, message] of refusals) {
      await expect(addEditOperation(project, operation, selection), message).rejects.toMatchObject({ code: 'bad_input', message: expect.stringContaining(`${project.file}: ${message}`) });
    }
    expect(hashFile(project.file)).toBe(before);
    expect(selFiles(project)).toEqual(files);

    // while a trainer holds the project, every change is refused (its splats are still changing)
    const release = await acquireTrainingLock(project);
    try {
      await expect(addEditOperation(project, { op: 'delete' }, Uint32Array.of(1))).rejects.toMatchObject({ code: 'busy', message: expect.stringContaining('stop training before editing') });
      await expect(undoEdit(project)).rejects.toMatchObject({ code: 'busy' });
      await expect(clearEdits(project)).rejects.toMatchObject({ code: 'busy' });
    } finally {
      await release();
    }
    expect(hashFile(project.file)).toBe(before);
  });

  it('a manifest naming an unknown operation is refused by name, and the file is left untouched', async () => {
    const { project } = await splatProject(20);
    await addEditOperation(project, { op: 'delete' }, Uint32Array.of(3));
    const manifest = onDisk(project);
    manifest.edits.current.operations.push({ op: 'melt', id: 'e-0002', at: new Date().toISOString() });
    writeFileSync(project.file, JSON.stringify(manifest));
    const before = hashFile(project.file);
    await expect(Project.open(project.file)).rejects.toMatchObject({ code: 'bad_input', message: expect.stringMatching(/edits\.current\.operations\.1\.op.*melt|edits\.current\.operations\.1/) });
    await expect(addEditOperation(project, { op: 'delete' }, Uint32Array.of(4))).rejects.toMatchObject({ code: 'bad_input' });
    expect(hashFile(project.file)).toBe(before);
  });

  it('a damaged selection file is refused by name when the edits apply', async () => {
    const { project } = await splatProject(20);
    await addEditOperation(project, { op: 'delete' }, Uint32Array.of(3));
    const sel = path.join(project.dataDir, 'edits', 'e-0001.sel');
    writeFileSync(sel, readFileSync(sel).subarray(0, 18));
    await expect(projectSplats(project)).rejects.toMatchObject({ code: 'bad_input', message: expect.stringContaining(`${sel}: the header says 1 indices`) });
    expect((await projectSplats(project, undefined, { raw: true })).splats.count).toBe(20);
  });
});
