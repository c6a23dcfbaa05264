/**
 * The engine host's selection and cleanup preview (`edits.select`, `edits.cleanPreview`): the
 * GPU selection (main/engine/edit/select.ts) and the floater cleanup's scores on a project's
 * edited splats at their base indices (main/engine/project/selection-scene.ts). Both keep the
 * last project state they computed on: a brush stroke's many requests upload the splats once, and
 * a strength slider's previews score them once (only `cleanSelectionAt` runs per position).
 */
import type { Services } from '../../shared/contract/index.js';
import { badInput } from '../../shared/rpc/errors.js';
import type { ServiceImpl } from '../../shared/rpc/define.js';
import { cleanSelectionAt, computeCleanScores, resolveCleanParams, type CleanParams, type CleanScores } from '../engine/edit/clean.js';
import { GpuSelection } from '../engine/edit/select.js';
import type { Engine } from '../engine/engine.js';
import { checkedProjectFile } from '../engine/jobs/checked-paths.js';
import { type JobManager } from '../engine/jobs/manager.js';
import { Project } from '../engine/project/project.js';
import { selectionScene, selectionSceneKey, trainingCameras } from '../engine/project/selection-scene.js';

type EditsImpl = ServiceImpl<Services>['edits'];

/** A RangeError from the engine's checks is the caller's bad input: named with the project. */
function asBadInput<T>(file: string, run: () => Promise<T>): Promise<T> {
  return run().catch((error: unknown) => {
    if (error instanceof RangeError) throw badInput(file, error.message);
    throw error;
  });
}

export function createSelectServices(engine: Engine, jobs: JobManager): Pick<EditsImpl, 'select' | 'cleanPreview'> {
  const warn = (m: string) => engine.log('warn', m, 'edits');
  const openProject = async (file: string) => jobs.openProjectOf(await checkedProjectFile(file)) ?? Project.open(await checkedProjectFile(file));
  let selection: { key: string; gpu: GpuSelection; splats: number } | undefined;
  let scores: { key: string; scores: CleanScores } | undefined;
  // one request at a time per cache: a second waits rather than uploading the scene twice
  let queue: Promise<unknown> = Promise.resolve();
  const serialized = <T>(run: () => Promise<T>): Promise<T> => {
    const next = queue.then(run, run);
    queue = next.catch(() => undefined);
    return next;
  };

  return {
    select: ({ project: file, mode, shape, camera, current }) => serialized(async () => {
      const project = await openProject(file);
      const key = await selectionSceneKey(project, { warn });
      if (selection?.key !== key) {
        selection?.gpu.destroy();
        selection = undefined;
        const scene = await selectionScene(project, { warn });
        const gpu = await GpuSelection.create(await engine.gpu(), scene.splats);
        gpu.setExclude(scene.exclude);
        selection = { key, gpu, splats: scene.baseCount };
      }
      const { gpu, splats } = selection;
      const result = await asBadInput(project.file, () => gpu.select({ mode, shape, camera, current }));
      return { ...result, splats };
    }),
    cleanPreview: ({ project: file, params: explicit }) => serialized(async () => {
      const project = await openProject(file);
      let params: CleanParams;
      try {
        params = resolveCleanParams(explicit ?? {});
      } catch (error) {
        throw badInput(project.file, (error as Error).message);
      }
      // the scores depend on every parameter but the strength (and the toggles, which only gate)
      const scoring = { ...params, 'edit.cleanStrength': 1 };
      const key = `${await selectionSceneKey(project, { untransformed: true, warn })}|${params['edit.cleanRadius']}|${params['edit.cleanNeighbours']}|${params['edit.cleanViews']}`;
      if (scores?.key !== key) {
        scores = undefined;
        const scene = await selectionScene(project, { untransformed: true, warn });
        const cameras = await trainingCameras(project);
        // score every criterion, so turning a toggle on needs no rescoring
        const all = { ...scoring, 'edit.cleanByOpacity': true, 'edit.cleanBySize': true, 'edit.cleanByIsolation': true, 'edit.cleanByViews': true };
        scores = { key, scores: await asBadInput(project.file, async () => computeCleanScores(scene.splats, { cameras, params: all, exclude: scene.exclude })) };
      }
      const { selection: chosen, reasons } = cleanSelectionAt(scores.scores, params);
      return { selection: chosen, reasons, splats: scores.scores.count };
    }),
  };
}
