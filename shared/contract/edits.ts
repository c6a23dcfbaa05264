import { z } from 'zod';
import { EDIT_OPERATION_KINDS, EditListSchema, EditOperationSchema } from '../edits/edit-list.js';

/**
 * Contract shapes of the edit service (docs/editing.md): a project's non-destructive edit list
 * (shared/edits/edit-list.ts), read, added to, undone, redone, cleared. Selections travel as raw
 * Uint32Array bytes of base indices; the engine writes them to the project's selection files.
 */
const path = z.string().min(1).max(4096).refine((s) => !s.includes('\0'), 'a path cannot contain NUL');

/**
 * An operation as a caller asks for it: what the manifest's operation holds less what the engine
 * adds (`id`, `at`, and the `selection` file, written from the indices sent beside it).
 */
const [deleteOp, hideOp, unhideOp, cropOp, separateOp, transformOp, cleanOp] = EditOperationSchema.options;
const engineFields = { id: true, at: true } as const;
const engineFieldsAndSelection = { ...engineFields, selection: true } as const;
export const NewEditOperationSchema = z.discriminatedUnion('op', [
  deleteOp.omit(engineFieldsAndSelection),
  hideOp.omit(engineFieldsAndSelection),
  unhideOp.omit(engineFieldsAndSelection),
  cropOp.omit(engineFields),
  separateOp.omit(engineFieldsAndSelection),
  transformOp.omit(engineFields),
  cleanOp.omit(engineFieldsAndSelection),
]);
export type NewEditOperation = z.infer<typeof NewEditOperationSchema>;

/** Operations that act on a selection (required), may take one (`unhide`: without, every hidden splat), or take none. */
export const SELECTION_USE: Record<NewEditOperation['op'], 'required' | 'optional' | 'none'> = {
  delete: 'required', hide: 'required', unhide: 'optional', crop: 'none', separate: 'required', transform: 'none', clean: 'required',
};

/** The problem with indices that must be sorted and distinct, or undefined. (In range is the engine's check: it knows the base.) */
function orderProblem(indices: Uint32Array): string | undefined {
  for (let i = 1; i < indices.length; i++) {
    if (indices[i] <= indices[i - 1]) return `selection index ${i} (${indices[i]}) does not follow index ${i - 1} (${indices[i - 1]}): indices must be sorted and distinct`;
  }
  return undefined;
}

export const EditsProjectArgs = z.object({ project: path }).strict();

export const EditsApplyArgs = z.object({
  project: path,
  operation: NewEditOperationSchema,
  /** Base indices (sorted, distinct, below the base's splat count). */
  selection: z.instanceof(Uint32Array).optional(),
}).strict().superRefine((args, ctx) => {
  const use = SELECTION_USE[args.operation.op];
  if (use === 'required' && !args.selection) ctx.addIssue({ code: 'custom', path: ['selection'], message: `a ${args.operation.op} needs a selection` });
  if (use === 'none' && args.selection) ctx.addIssue({ code: 'custom', path: ['selection'], message: `a ${args.operation.op} takes no selection` });
  const problem = args.selection ? orderProblem(args.selection) : undefined;
  if (problem) ctx.addIssue({ code: 'custom', path: ['selection'], message: problem });
});

export const EditSummarySchema = z.object({
  /** Operations applied, and undone (what redo can bring back). */
  operations: z.number().int(),
  undone: z.number().int(),
  /** Applied operations per kind. */
  counts: z.record(z.enum(EDIT_OPERATION_KINDS as [string, ...string[]]), z.number().int()),
  /** Splats in the base, and kept and visible after the edits. */
  before: z.number().int(),
  after: z.number().int(),
  hidden: z.number().int(),
  layers: z.array(z.string()),
});
export type EditSummary = z.infer<typeof EditSummarySchema>;

export const EditStateResult = z.object({
  project: z.string(),
  /** The edit list of the newest splats (absent when nothing was ever edited on them). */
  list: EditListSchema.optional(),
  /** Lists closed when training moved the base on. */
  history: z.number().int(),
  summary: EditSummarySchema,
});
export type EditState = z.infer<typeof EditStateResult>;
