/**
 * Training that continues after edits (docs/editing.md, "Training after edits"): a new run starts
 * from the edited splats, so what was deleted, cleaned or cropped away stays gone. Hidden splats
 * are still part of the scene and train with the rest; layers do not survive (training moves,
 * splits and prunes splats, so their indices mean nothing afterwards). The splats train where
 * training put them, because the dataset's cameras are in that frame: the list's transforms are
 * carried over instead, as one transform on the new run's splats once it finishes.
 */
import type { EditList, Similarity } from '../../../shared/edits/edit-list.js';
import type { SplatSet } from '../../../shared/scene/splats.js';
import { applyEdits } from '../edit/apply-edits.js';
import { projectSelectionReader, sameBase } from './edit-base.js';
import type { Project } from './project.js';
import { projectSplats } from './splats.js';

export interface EditedTrainingStart {
  /** Kept splats (hidden ones included), untransformed. */
  splats: SplatSet;
  /** The list they came from (closed into the history when the run starts). */
  list: EditList;
  /** The list's transforms composed, when they do anything. */
  carried?: Similarity;
}

function isIdentitySimilarity(t: Similarity): boolean {
  return t.scale === 1 && t.translation.every((v) => v === 0) && t.rotation[0] === 0 && t.rotation[1] === 0 && t.rotation[2] === 0;
}

/** The edited splats training starts from, or undefined when the newest splats have no edits. */
export async function editedTrainingStart(project: Project, warn?: (m: string) => void): Promise<EditedTrainingStart | undefined> {
  const list = project.manifest.edits.current;
  if (!list || list.operations.length === 0) return undefined;
  const raw = await projectSplats(project, warn, { raw: true });
  // A list made on older splats (training moved on without it) applies to nothing any more.
  if (!sameBase(list.base, { run: raw.run.id, step: raw.step, splats: raw.splats.count })) return undefined;
  const edited = await applyEdits(raw.splats, list, projectSelectionReader(project, list.base), { keepHidden: true, untransformed: true });
  return { splats: edited.splats, list, ...(isIdentitySimilarity(edited.transform) ? {} : { carried: edited.transform }) };
}
