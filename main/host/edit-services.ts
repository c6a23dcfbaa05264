/**
 * The engine host's edit service (docs/editing.md): a project's non-destructive edit list read,
 * added to, undone, redone, cleared, through main/engine/project/edits.ts. Arguments arrive
 * validated by the contract (shared/contract/edits.ts: the operation's shape, the selection
 * sorted and distinct); the engine checks the rest (indices below the base's count, the project
 * not training) and names the project in every error. `edits.select` and `edits.cleanPreview`
 * (the selection kernels and the cleanup) join this service from their own module.
 */
import type { Services } from '../../shared/contract/index.js';
import type { ServiceImpl } from '../../shared/rpc/define.js';
import type { Engine } from '../engine/engine.js';
import { checkedProjectFile } from '../engine/jobs/checked-paths.js';
import { type JobManager } from '../engine/jobs/manager.js';
import { addEditOperation, clearEdits, editState, redoEdit, undoEdit } from '../engine/project/edits.js';
import { Project } from '../engine/project/project.js';
import { createSelectServices } from './select-services.js';

type Impl = ServiceImpl<Services>;

export function createEditServices(engine: Engine, jobs: JobManager): Pick<Impl, 'edits'> {
  const warn = (m: string) => engine.log('warn', m, 'edits');
  // The job's own Project object when a job has the project open (one writer per manifest).
  const openProject = async (file: string) => jobs.openProjectOf(await checkedProjectFile(file)) ?? Project.open(await checkedProjectFile(file));
  return {
    edits: {
      ...createSelectServices(engine, jobs),
      async get({ project }) {
        return editState(await openProject(project), warn);
      },
      async apply({ project, operation, selection }) {
        return addEditOperation(await openProject(project), operation, selection, warn);
      },
      async undo({ project }) {
        return undoEdit(await openProject(project), warn);
      },
      async redo({ project }) {
        return redoEdit(await openProject(project), warn);
      },
      async clear({ project }) {
        const { removed: _removed, ...state } = await clearEdits(await openProject(project), warn);
        return state;
      },
    },
  };
}
