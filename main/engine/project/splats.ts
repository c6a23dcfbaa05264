/**
 * The splats a project has to show, render or export: the newest run's finished PLY, else its
 * newest complete checkpoint (a run still training, or interrupted), else an older run's.
 */
import { stat } from 'node:fs/promises';
import type { ProjectRun } from '../../../shared/project/manifest.js';
import { badInput } from '../../../shared/rpc/errors.js';
import type { SplatSet } from '../../../shared/scene/splats.js';
import { readPly } from '../formats/ply.js';
import { checkpointSplats, readCheckpoint } from '../train/checkpoint.js';
import type { Project } from './project.js';
import { newestCompleteCheckpoint } from './train-run.js';

export interface ProjectSplats {
  splats: SplatSet;
  run: ProjectRun;
  step: number;
  /** The file they came from (a PLY or a checkpoint). */
  file: string;
}

export async function projectSplats(project: Project, warn?: (m: string) => void): Promise<ProjectSplats> {
  const problems: string[] = [];
  const note = (m: string) => {
    problems.push(m);
    warn?.(m);
  };
  for (const run of [...project.manifest.runs].reverse()) {
    if (run.outputs.splats) {
      const file = project.resolve(run.outputs.splats);
      const exists = await stat(file).then((s) => s.isFile(), () => false);
      if (exists) return { splats: await readPly(file), run, step: run.step, file };
      note(`${run.id}'s splats ${file} are missing`);
    }
    const newest = await newestCompleteCheckpoint(project.resolve(run.checkpointsDir), note);
    if (newest) return { splats: checkpointSplats(await readCheckpoint(newest.file), newest.file), run, step: newest.step, file: newest.file };
  }
  if (problems.length) throw badInput(project.file, `no trained splats found (${problems.join('; ')})`);
  throw badInput(project.file, project.manifest.runs.length ? 'no trained splats found (no finished run and no checkpoint); train it first' : 'the project has no trained splats yet; train it first (argonaut --no-gui train <file.argo>)');
}
