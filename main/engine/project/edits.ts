/**
 * A project's edit list, changed through the project (docs/editing.md): add an operation, undo,
 * redo, clear. Each change
 *   - waits for the project's other edit changes in this process (one at a time per file) and is
 *     refused while a trainer holds the project (its base would move under the list);
 *   - re-reads the manifest's edits from disk first, so two Project objects of one file do not
 *     lose each other's operations;
 *   - writes an operation's selection file before the manifest names it (a crash leaves at worst
 *     an unreferenced file, never a manifest pointing at nothing), and removes selection files
 *     no list references any more only after the manifest that dropped them is saved.
 * When the newest splats are no longer the list's base (training moved on), the list goes to
 * `edits.history` with `closedAt` and a new empty one starts.
 */
import { readdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import { type NewEditOperation, SELECTION_USE, type EditState, type EditSummary } from '../../../shared/contract/edits.js';
import { EDIT_OPERATION_KINDS, EditOperationSchema, redoLast, undoLast, withOperation, type EditBase, type EditList, type ProjectEdits, type Similarity } from '../../../shared/edits/edit-list.js';
import { ArgonautError, badInput } from '../../../shared/rpc/errors.js';
import { applyEdits } from '../edit/apply-edits.js';
import { selectionProblem, writeSelectionFile } from '../edit/selection-file.js';
import { makeFolder } from '../formats/atomic-file.js';
import { describeBase, projectSelectionReader, sameBase, selectionPath, selectionRelativePath, SELECTIONS_FOLDER } from './edit-base.js';
import { liveLockHolder } from './lock.js';
import { Project } from './project.js';
import { newestSplatsSource, projectSplats, type ProjectSplats } from './splats.js';

export type { NewEditOperation } from '../../../shared/contract/edits.js';

const queues = new Map<string, Promise<unknown>>();

/** Runs `change` after every earlier edit change of the same project file (in this process). */
function serialized<T>(project: Project, change: () => Promise<T>): Promise<T> {
  const previous = queues.get(project.file) ?? Promise.resolve();
  const next = previous.then(change, change);
  const settled = next.catch(() => undefined);
  queues.set(project.file, settled);
  void settled.then(() => {
    if (queues.get(project.file) === settled) queues.delete(project.file);
  });
  return next;
}

async function refuseWhileTraining(project: Project): Promise<void> {
  const holder = await liveLockHolder(project.dataDir);
  if (holder) throw new ArgonautError('busy', `${project.file}: being trained by process ${holder.pid} on ${holder.host}; stop training before editing (the splats the edits apply to are still changing)`, { file: project.file, pid: holder.pid });
}

/** The manifest's edits as they are on disk now (another Project object may have changed them). */
async function refreshEdits(project: Project): Promise<void> {
  const onDisk = await Project.open(project.file);
  project.manifest.edits = onDisk.manifest.edits;
}

/**
 * The list for `base`: the current one when it applies to it; otherwise the current one is
 * closed into the history and a new empty list starts (in memory: the caller saves).
 */
function listFor(edits: ProjectEdits, base: EditBase): EditList {
  const current = edits.current;
  if (current && sameBase(current.base, base)) return current;
  if (current && (current.operations.length || current.undone.length)) edits.history.push({ ...current, closedAt: new Date().toISOString() });
  const fresh: EditList = { base, operations: [], undone: [] };
  edits.current = fresh;
  return fresh;
}

function allLists(edits: ProjectEdits): EditList[] {
  return [...(edits.current ? [edits.current] : []), ...edits.history];
}

/** `e-0001`, `e-0002`, ...: one more than any id the project used, in any list. */
function nextOperationId(edits: ProjectEdits): string {
  let highest = 0;
  for (const list of allLists(edits)) {
    for (const op of [...list.operations, ...list.undone]) {
      const m = /^e-(\d+)$/.exec(op.id);
      if (m) highest = Math.max(highest, Number(m[1]));
    }
  }
  return `e-${String(highest + 1).padStart(4, '0')}`;
}

/** Removes selection files that no operation of any list (current, undone, history) references. */
async function removeUnreferencedSelections(project: Project): Promise<string[]> {
  const folder = path.join(project.dataDir, SELECTIONS_FOLDER);
  const referenced = new Set<string>();
  for (const list of allLists(project.manifest.edits)) {
    for (const op of [...list.operations, ...list.undone]) if ('selection' in op && op.selection) referenced.add(path.resolve(selectionPath(project, op.selection.file)));
  }
  const names = await readdir(folder).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of names) {
    if (!name.endsWith('.sel')) continue;
    const file = path.join(folder, name);
    if (referenced.has(path.resolve(file))) continue;
    await unlink(file).catch(() => undefined);
    removed.push(file);
  }
  return removed;
}

/**
 * Adds `operation` after the current list's operations (the redo stack is dropped), writing its
 * selection (sorted, distinct base indices) first. `clean` (main/cli/commands/clean.ts) comes here too.
 */
export function addEditOperation(project: Project, operation: NewEditOperation, selection?: Uint32Array, warn?: (m: string) => void): Promise<EditState> {
  return serialized(project, async () => {
    await refuseWhileTraining(project);
    await refreshEdits(project);
    const raw = await projectSplats(project, warn, { raw: true });
    const baseCount = raw.splats.count;
    const base: EditBase = { run: raw.run.id, step: raw.step, splats: baseCount };
    const use = SELECTION_USE[operation.op];
    if (use === 'required' && !selection) throw badInput(project.file, `a ${operation.op} edit needs a selection of splats`);
    if (use === 'none' && selection) throw badInput(project.file, `a ${operation.op} edit takes no selection`);
    if (selection) {
      const problem = selectionProblem(selection, baseCount);
      if (problem) throw badInput(project.file, `the ${operation.op} edit's selection: ${problem}`);
      if (selection.length === 0 && operation.op !== 'clean') throw badInput(project.file, `the ${operation.op} edit's selection is empty: it would change nothing`);
    }
    const edits = project.manifest.edits;
    const list = listFor(edits, base);
    const id = nextOperationId(edits);
    const candidate = { ...operation, id, at: new Date().toISOString(), ...(selection ? { selection: { file: selectionRelativePath(id), count: selection.length } } : {}) };
    const parsed = EditOperationSchema.safeParse(candidate);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw badInput(project.file, `the ${operation.op} edit is invalid (${issue?.path.join('.') || 'operation'}: ${issue?.message})`);
    }
    if (selection) {
      await makeFolder(path.join(project.dataDir, SELECTIONS_FOLDER));
      await writeSelectionFile(selectionPath(project, selectionRelativePath(id)), selection, baseCount);
    }
    edits.current = withOperation(list, parsed.data);
    await project.save();
    await removeUnreferencedSelections(project);
    return editState(project, warn, raw);
  });
}

/** Moves the newest operation to the redo stack; refused (bad input) when there is nothing to undo. */
export function undoEdit(project: Project, warn?: (m: string) => void): Promise<EditState> {
  return changeList(project, 'undo', (list) => undoLast(list), warn);
}

/** Applies the most recently undone operation again; refused when there is nothing to redo. */
export function redoEdit(project: Project, warn?: (m: string) => void): Promise<EditState> {
  return changeList(project, 'redo', (list) => redoLast(list), warn);
}

function changeList(project: Project, what: 'undo' | 'redo', change: (list: EditList) => EditList | undefined, warn?: (m: string) => void): Promise<EditState> {
  return serialized(project, async () => {
    await refuseWhileTraining(project);
    await refreshEdits(project);
    const source = await newestSplatsSource(project, warn);
    const current = project.manifest.edits.current;
    const active = current && sameBase(current.base, { run: source.run.id, step: source.step }) ? current : undefined;
    const next = active ? change(active) : undefined;
    if (!next) {
      const stale = current && !active ? ` (the edit list applies to ${describeBase(current.base)}, not to the newest splats: training moved on)` : '';
      throw badInput(project.file, `nothing to ${what}${stale}`);
    }
    project.manifest.edits.current = next;
    await project.save();
    return editState(project, warn);
  });
}

/**
 * Empties the current edit list (its operations and its redo stack): the newest splats show as
 * trained. Lists in the history stay, with their selection files; only files no list references
 * any more are deleted. Returns the selection files removed.
 */
export function clearEdits(project: Project, warn?: (m: string) => void): Promise<EditState & { removed: string[] }> {
  return serialized(project, async () => {
    await refuseWhileTraining(project);
    await refreshEdits(project);
    delete project.manifest.edits.current;
    await project.save();
    const removed = await removeUnreferencedSelections(project);
    return { ...(await editState(project, warn)), removed };
  });
}

/**
 * Closes the current list into the history (training continues from the edited splats: they
 * become a new base). The caller saves. Returns the closed list, if it had operations.
 */
export function closeEditList(project: Project): EditList | undefined {
  const current = project.manifest.edits.current;
  if (!current) return undefined;
  delete project.manifest.edits.current;
  if (!current.operations.length && !current.undone.length) return undefined;
  project.manifest.edits.history.push({ ...current, closedAt: new Date().toISOString() });
  return current;
}

/**
 * Starts the list of a run that trained from edited splats with the transform its old list had
 * (edit-training.ts): the run's splats are in the dataset's frame, the user's scene was not. The
 * caller saves.
 */
export function carryTransform(project: Project, base: EditBase, transform: Similarity, from: EditBase): void {
  const id = nextOperationId(project.manifest.edits);
  const operation = EditOperationSchema.parse({ op: 'transform', id, at: new Date().toISOString(), label: `Transform kept from the edits of ${describeBase(from)}`, transform });
  project.manifest.edits.current = { base, operations: [operation], undone: [] };
}

function countsOf(list: EditList | undefined): EditSummary['counts'] {
  const counts = Object.fromEntries(EDIT_OPERATION_KINDS.map((k) => [k, 0])) as EditSummary['counts'];
  for (const op of list?.operations ?? []) counts[op.op] = (counts[op.op] ?? 0) + 1;
  return counts;
}

/** The project's edit list on its newest splats and what it does (splats before and after). */
export async function editState(project: Project, warn?: (m: string) => void, rawSplats?: ProjectSplats): Promise<EditState> {
  const found = rawSplats ?? (await projectSplats(project, warn, { raw: true }));
  const current = project.manifest.edits.current;
  const base = { run: found.run.id, step: found.step, splats: found.splats.count };
  const list = current && sameBase(current.base, base) ? current : undefined;
  const applied = list?.operations.length ? await applyEdits(found.splats, list, projectSelectionReader(project, list.base)) : undefined;
  return {
    project: project.file,
    ...(list ? { list } : {}),
    history: project.manifest.edits.history.length,
    summary: {
      operations: list?.operations.length ?? 0,
      undone: list?.undone.length ?? 0,
      counts: countsOf(list),
      before: base.splats,
      after: applied ? applied.splats.count : base.splats,
      hidden: applied?.hidden ?? 0,
      layers: applied?.layerNames ?? ['main'],
    },
  };
}

