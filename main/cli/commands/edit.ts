/**
 * `edit <file.argo>`: the project's non-destructive edit list (docs/editing.md) from the command
 * line: list it, undo, redo, clear, or add a crop, a transform or a delete of listed indices.
 * Every value is checked before the project is touched: a refused edit leaves it byte-identical
 * (bad values exit 3, naming the flag and the problem).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { EditState, NewEditOperation } from '../../../shared/contract/edits.js';
import { isProjectFile } from '../../../shared/project/manifest.js';
import { badInput } from '../../../shared/rpc/errors.js';
import { decodeSelection, SELECTION_MAGIC } from '../../engine/edit/selection-file.js';
import { addEditOperation, clearEdits, editState, redoEdit, undoEdit } from '../../engine/project/edits.js';
import { Project } from '../../engine/project/project.js';
import { UsageError } from '../args.js';
import { JSON_OPTION, type CommandSpec } from '../command.js';

const ACTIONS = ['list', 'undo', 'redo', 'clear', 'crop', 'transform', 'delete-indices'] as const;

/** Comma-separated finite numbers, `count` of them (or one of `counts`), refused by flag name. */
function numbers(file: string, flag: string, value: string, counts: readonly number[], what: string): number[] {
  const parts = value.split(',').map((s) => s.trim());
  if (!counts.includes(parts.length)) throw badInput(file, `--${flag}: expected ${what} (${counts.join(' or ')} comma-separated numbers), got ${parts.length}: "${value}"`);
  return parts.map((part, i) => {
    const n = part === '' ? Number.NaN : Number(part);
    if (!Number.isFinite(n)) throw badInput(file, `--${flag}: value ${i + 1} is "${part}", not a finite number`);
    return n;
  });
}

/** A unit quaternion from the user's (x, y, z, w): normalised; a zero one is refused. */
function unitQuaternion(file: string, flag: string, q: number[]): [number, number, number, number] {
  const n = Math.hypot(...q);
  if (!(n > 1e-9)) throw badInput(file, `--${flag}: the rotation quaternion (x, y, z, w) is zero`);
  return q.map((v) => v / n) as [number, number, number, number];
}

/** `--crop`'s value as a crop; `file` (the project) is named in every refusal. */
export function parseCrop(file: string, value: string): NewEditOperation {
  const v = numbers(file, 'crop', value, [6, 10], 'cx,cy,cz,hx,hy,hz[,qx,qy,qz,qw]');
  const half = v.slice(3, 6);
  half.forEach((h, i) => {
    if (!(h > 0)) throw badInput(file, `--crop: half size ${'xyz'[i]} is ${h}; half sizes must be > 0`);
  });
  return { op: 'crop', box: { centre: [v[0], v[1], v[2]], halfSize: [half[0], half[1], half[2]], rotation: v.length === 10 ? unitQuaternion(file, 'crop', v.slice(6, 10)) : [0, 0, 0, 1] } };
}

/** `--transform`'s value as a transform; `file` (the project) is named in every refusal. */
export function parseTransform(file: string, value: string): NewEditOperation {
  const v = numbers(file, 'transform', value, [8], 'tx,ty,tz,qx,qy,qz,qw,s');
  if (!(v[7] > 0)) throw badInput(file, `--transform: scale is ${v[7]}; it must be > 0`);
  return { op: 'transform', transform: { translation: [v[0], v[1], v[2]], rotation: unitQuaternion(file, 'transform', v.slice(3, 7)), scale: v[7] } };
}

/**
 * Indices from a file: a `.sel` selection file (checked as the project's own), or text with one
 * base index per line (or separated by spaces or commas), sorted and made distinct here.
 */
export async function readIndicesFile(file: string): Promise<Uint32Array> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw badInput(file, `cannot read the indices file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  if (bytes.subarray(0, 4).toString('latin1') === SELECTION_MAGIC) return decodeSelection(bytes, file).indices;
  const tokens = bytes.toString('utf8').split(/[\s,]+/).filter(Boolean);
  const values = tokens.map((token, i) => {
    const n = Number(token);
    if (!/^\d+$/.test(token) || !Number.isSafeInteger(n) || n >= 2 ** 32) throw badInput(file, `entry ${i + 1} is "${token.slice(0, 40)}", not a splat index (a non-negative integer)`);
    return n;
  });
  if (!values.length) throw badInput(file, 'holds no indices');
  return Uint32Array.from(new Set(values)).sort();
}

function describe(state: EditState): string {
  const { summary, list } = state;
  const lines = (list?.operations ?? []).map((op, i) => {
    const what = 'selection' in op && op.selection ? ` ${op.selection.count.toLocaleString()} splats` : op.op === 'unhide' ? ' every hidden splat' : '';
    return `  ${String(i + 1).padStart(3)}. ${op.id} ${op.op}${what}${op.label ? ` - ${op.label}` : ''}`;
  });
  const base = list ? ` on ${list.base.run} step ${list.base.step}` : '';
  return [
    `${state.project}: ${summary.operations} edit${summary.operations === 1 ? '' : 's'}${base}, ${summary.undone} to redo; ${summary.before.toLocaleString()} splats -> ${summary.after.toLocaleString()}${summary.hidden ? ` (${summary.hidden.toLocaleString()} hidden)` : ''}${state.history ? `; ${state.history} older list${state.history === 1 ? '' : 's'} in the history` : ''}`,
    ...lines,
  ].join('\n');
}

export const editCommand: CommandSpec = {
  name: 'edit',
  summary: "a project's non-destructive edits: list, undo, redo, clear, crop to a box, transform the scene, delete listed splats",
  usage: 'edit <file.argo> --list | --undo | --redo | --clear | --crop cx,cy,cz,hx,hy,hz[,qx,qy,qz,qw] | --transform tx,ty,tz,qx,qy,qz,qw,s | --delete-indices FILE [--label TEXT] [--json]',
  options: [
    JSON_OPTION,
    { flag: 'list', type: 'bool', help: 'print the edit list and what it does (splats before and after)' },
    { flag: 'undo', type: 'bool', help: 'undo the newest edit (redo brings it back)' },
    { flag: 'redo', type: 'bool', help: 'apply the most recently undone edit again' },
    { flag: 'clear', type: 'bool', help: "empty the edit list: the newest splats as trained (older bases' lists stay in the history)" },
    { flag: 'crop', type: 'string', valueName: 'cx,cy,cz,hx,hy,hz[,qx,qy,qz,qw]', help: 'keep only the splats whose centres lie inside the box: centre, half sizes (> 0) along its axes, its rotation (unit quaternion x,y,z,w; default none)' },
    { flag: 'transform', type: 'string', valueName: 'tx,ty,tz,qx,qy,qz,qw,s', help: "move, rotate and scale the scene: x' = s R x + t (rotation a unit quaternion x,y,z,w; scale > 0); view-dependent colour turns with it" },
    { flag: 'delete-indices', type: 'string', valueName: 'FILE', help: 'delete these splats: base indices, one per line (or a .sel selection file)' },
    { flag: 'label', type: 'string', valueName: 'TEXT', help: 'what the history shows for the new edit' },
  ],
  async run({ positionals, options, out, cwd }) {
    const [input, ...extra] = positionals;
    if (!input || extra.length) throw new UsageError('edit needs exactly one file.argo');
    if (!isProjectFile(input)) throw new UsageError(`edit works on a project (.argo), got ${input}`);
    const chosen = ACTIONS.filter((a) => options[a] !== undefined && options[a] !== false);
    if (chosen.length !== 1) throw new UsageError(chosen.length ? `choose one of --${ACTIONS.join(', --')} (got --${chosen.join(' and --')})` : `say what to do: --${ACTIONS.join(', --')}`);
    const action = chosen[0];
    const label = options.label as string | undefined;
    if (label !== undefined && !['crop', 'transform', 'delete-indices'].includes(action)) throw new UsageError('--label names a new edit (--crop, --transform, --delete-indices)');
    const file = path.resolve(cwd, input);
    if (label !== undefined && label.length > 200) throw badInput(file, `--label: ${label.length} characters; at most 200`);
    // Every value is checked before the project is opened for writing.
    const withLabel = (op: NewEditOperation): NewEditOperation => (label !== undefined ? { ...op, label } : op);
    const operation = action === 'crop' ? withLabel(parseCrop(file, String(options.crop))) : action === 'transform' ? withLabel(parseTransform(file, String(options.transform))) : undefined;
    const indices = action === 'delete-indices' ? await readIndicesFile(path.resolve(cwd, String(options['delete-indices']))) : undefined;
    const project = await Project.open(file);
    const warn = (m: string) => out.warn(m);
    let state: EditState;
    if (action === 'list') state = await editState(project, warn);
    else if (action === 'undo') state = await undoEdit(project, warn);
    else if (action === 'redo') state = await redoEdit(project, warn);
    else if (action === 'clear') state = await clearEdits(project, warn);
    else if (indices) state = await addEditOperation(project, withLabel({ op: 'delete' }), indices, warn);
    else state = await addEditOperation(project, operation!, undefined, warn);
    out.result({ action, ...state }, describe(state));
  },
};
