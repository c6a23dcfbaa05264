/**
 * The splats a project has to show, render or export: the newest run's finished PLY, else its
 * newest complete checkpoint (a run still training, or interrupted), else an older run's; with
 * the project's edit list applied (main/engine/edit/), so export, mesh, render and the viewer all
 * see the edits through this one path. `{ raw: true }` gives the splats as training wrote them.
 */
import { stat } from 'node:fs/promises';
import type { ProjectRun } from '../../../shared/project/manifest.js';
import { badInput } from '../../../shared/rpc/errors.js';
import type { SplatSet } from '../../../shared/scene/splats.js';
import { applyEdits, type EditedSplats } from '../edit/apply-edits.js';
import { readPly } from '../formats/ply.js';
import { checkpointSplats, readCheckpoint } from '../train/checkpoint.js';
import { describeBase, projectSelectionReader, sameBase } from './edit-base.js';
import type { Project } from './project.js';
import { newestCompleteCheckpoint } from './newest-checkpoint.js';

export interface ProjectSplats {
  /** The edited splats (kept and visible), or the raw ones when asked or when nothing is edited. */
  splats: SplatSet;
  run: ProjectRun;
  step: number;
  /** The file they came from (a PLY or a checkpoint). */
  file: string;
  /** The edit list's result when one was applied (layers, hidden count, kept -> base indices). */
  edits?: Omit<EditedSplats, 'splats'>;
  /** The splats as training wrote them, when edits were applied. */
  raw?: SplatSet;
}

/** Where the newest splats are, without reading them. */
export interface NewestSplatsSource {
  run: ProjectRun;
  step: number;
  file: string;
  kind: 'ply' | 'checkpoint';
}

export async function newestSplatsSource(project: Project, warn?: (m: string) => void): Promise<NewestSplatsSource> {
  const problems: string[] = [];
  const note = (m: string) => {
    problems.push(m);
    warn?.(m);
  };
  for (const run of [...project.manifest.runs].reverse()) {
    if (run.outputs.splats) {
      const file = project.resolve(run.outputs.splats);
      const exists = await stat(file).then((s) => s.isFile(), () => false);
      if (exists) return { run, step: run.step, file, kind: 'ply' };
      note(`${run.id}'s splats ${file} are missing`);
    }
    const newest = await newestCompleteCheckpoint(project.resolve(run.checkpointsDir), note);
    if (newest) return { run, step: newest.step, file: newest.file, kind: 'checkpoint' };
  }
  if (problems.length) throw badInput(project.file, `no trained splats found (${problems.join('; ')})`);
  throw badInput(project.file, project.manifest.runs.length ? 'no trained splats found (no finished run and no checkpoint); train it first' : 'the project has no trained splats yet; train it first (argonaut --no-gui train <file.argo>)');
}

export async function projectSplats(project: Project, warn?: (m: string) => void, options: { raw?: boolean } = {}): Promise<ProjectSplats> {
  const source = await newestSplatsSource(project, warn);
  const splats = source.kind === 'ply' ? await readPly(source.file) : checkpointSplats(await readCheckpoint(source.file), source.file);
  const found = { splats, run: source.run, step: source.step, file: source.file };
  const list = project.manifest.edits.current;
  if (options.raw || !list || list.operations.length === 0) return found;
  const base = { run: source.run.id, step: source.step, splats: splats.count };
  if (!sameBase(list.base, base)) {
    // Training moved on since the list was made: its indices name other splats. The next edit
    // (or training) closes it into the history; until then the newest splats show unedited.
    warn?.(`${project.file}: the edit list applies to ${describeBase(list.base)}, not to the newest splats (${describeBase(base)}); showing them unedited`);
    return found;
  }
  const { splats: edited, ...edits } = await applyEdits(splats, list, projectSelectionReader(project, list.base));
  return { ...found, splats: edited, edits, raw: splats };
}
