/**
 * What selection and cleanup work on in a project: its newest splats through the edit list, laid
 * out at their base indices (edit/base-indexed.ts), with the splats the list removed or hid as the
 * exclude mask. The selection service and `clean` both read it here, so both index exactly what
 * the edit list does. `untransformed` keeps the trained frame (the cleanup's view test uses the
 * dataset's cameras, which live there); the viewer's selection wants the transformed one.
 */
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import { applyEdits } from '../edit/apply-edits.js';
import { baseIndexedSplats, type BaseIndexedSplats } from '../edit/base-indexed.js';
import { projectSelectionReader, sameBase } from './edit-base.js';
import type { Project } from './project.js';
import { newestSplatsSource, projectSplats } from './splats.js';
import { projectViews } from './views.js';

export interface SelectionScene extends BaseIndexedSplats {
  /** Splats of the base (what a selection's indices are below). */
  baseCount: number;
  /** Names this state of the project (file, base, applied operations): a cache key. */
  key: string;
}

export interface SelectionSceneOptions {
  untransformed?: boolean;
  warn?: (m: string) => void;
}

function keyOf(project: Project, file: string, run: string, step: number, options: SelectionSceneOptions): string {
  const current = project.manifest.edits.current;
  const list = current && current.operations.length && sameBase(current.base, { run, step }) ? current : undefined;
  return `${project.file}|${file}|${run}:${step}|${(list?.operations ?? []).map((o) => o.id).join(',')}|${options.untransformed ? 'trained' : 'edited'}`;
}

/** The key `selectionScene` would give, without reading the splats (a service's cache check). */
export async function selectionSceneKey(project: Project, options: SelectionSceneOptions = {}): Promise<string> {
  const source = await newestSplatsSource(project, options.warn);
  return keyOf(project, source.file, source.run.id, source.step, options);
}

export async function selectionScene(project: Project, options: SelectionSceneOptions = {}): Promise<SelectionScene> {
  const raw = await projectSplats(project, options.warn, { raw: true });
  const base = { run: raw.run.id, step: raw.step, splats: raw.splats.count };
  const current = project.manifest.edits.current;
  const list = current && current.operations.length && sameBase(current.base, base) ? current : undefined;
  const key = keyOf(project, raw.file, base.run, base.step, options);
  if (!list) return { splats: raw.splats, baseCount: base.splats, key };
  const edited = await applyEdits(raw.splats, list, projectSelectionReader(project, list.base), { untransformed: options.untransformed });
  return { ...baseIndexedSplats(edited.splats, edited.keptToBase, base.splats), baseCount: base.splats, key };
}

/** The project's training cameras, or none (a project made from a splat file has no dataset). */
export async function trainingCameras(project: Project): Promise<PinholeCamera[]> {
  if (!project.manifest.dataset) return [];
  const views = await projectViews(project);
  return views.views.filter((v) => v.split === 'train').map((v) => v.camera);
}
