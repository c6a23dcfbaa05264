/**
 * What the project's edit modules share: where selections live, how an edit list's base is
 * compared with the newest splats, how an operation's selection file is read.
 */
import path from 'node:path';
import type { EditBase } from '../../../shared/edits/edit-list.js';
import type { SelectionReader } from '../edit/apply-edits.js';
import { readSelectionFile } from '../edit/selection-file.js';
import type { Project } from './project.js';

/** Selection files' folder, relative to the data folder (the manifest's `selection.file` is `edits/<id>.sel`). */
export const SELECTIONS_FOLDER = 'edits';

export function selectionRelativePath(operationId: string): string {
  return `${SELECTIONS_FOLDER}/${operationId}.sel`;
}

/** An operation's selection file on disk (`file` is relative to the data folder). */
export function selectionPath(project: Project, file: string): string {
  return path.join(project.dataDir, ...file.split('/'));
}

export function sameBase(a: { run: string; step: number; splats?: number }, b: { run: string; step: number; splats?: number }): boolean {
  return a.run === b.run && a.step === b.step && (a.splats === undefined || b.splats === undefined || a.splats === b.splats);
}

export function describeBase(base: { run: string; step: number; splats?: number }): string {
  return `${base.run} step ${base.step}${base.splats !== undefined ? ` (${base.splats} splats)` : ''}`;
}

export function projectSelectionReader(project: Project, base: EditBase): SelectionReader {
  return (ref) => readSelectionFile(selectionPath(project, ref.file), { baseCount: base.splats, count: ref.count });
}
