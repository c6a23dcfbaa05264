/**
 * Non-destructive edits of a project's splats (issue 17): an ordered list of operations applied,
 * in order, to one set of trained splats (the list's `base`), never written into them. Exports,
 * meshes, renders and the viewer all see the splats through the list (main/engine/edit/); the raw
 * trained splats stay as training wrote them, and clearing the list brings them back.
 *
 * Selections are splat indices into the base (sorted, distinct), kept beside the manifest in the
 * project's data folder (`edits/<operation id>.sel`, binary: main/engine/edit/selection-file.ts):
 * a selection of 10M splats does not belong in a JSON manifest. Operations that need no indices
 * (a crop box, a transform) carry their geometry.
 *
 * Undo and redo move operations between `operations` and `undone` (a stack: the newest undone
 * last); a new operation clears `undone`. Both live in the manifest, so history survives a restart.
 *
 * Training that continues after edits starts from the edited splats (the edits are kept: what was
 * deleted stays deleted) and the run's new splats become a new base with an empty list; the old
 * list stays recorded with its own base in `history` so nothing is lost.
 */
import { z } from 'zod';
import { finite, isoTime, unitQuaternion } from '../schema-values.js';

const vec3 = z.tuple([finite, finite, finite]);
const positive = z.number().finite().positive();
const relativePath = z.string().min(1).refine((s) => !s.includes('\0') && !s.includes('..'), 'expected a path inside the data folder');

/** The splats an edit list applies to: one run's output (or an imported splat file) at one step. */
export const EditBaseSchema = z.object({
  /** run-NNN, or 'import' for a project made from a splat file. */
  run: z.string().min(1),
  step: z.number().int().min(0),
  /** Splats in the base: every selection's indices are below it. */
  splats: z.number().int().min(0),
}).strict();
export type EditBase = z.infer<typeof EditBaseSchema>;

/** A stored selection: `count` sorted, distinct indices into the base, in `file` (relative to the data folder). */
export const SelectionRefSchema = z.object({
  file: relativePath,
  count: z.number().int().min(0),
}).strict();
export type SelectionRef = z.infer<typeof SelectionRefSchema>;

/** An oriented box: centre, half extents along its own axes (all > 0), its rotation. */
export const OrientedBoxSchema = z.object({
  centre: vec3,
  halfSize: z.tuple([positive, positive, positive]),
  rotation: unitQuaternion,
}).strict();
export type OrientedBox = z.infer<typeof OrientedBoxSchema>;

/**
 * A similarity applied to the whole scene: x' = scale * R x + translation. Setting the up axis or
 * the ground plane is a transform too (the GUI's tools compute it).
 */
export const SimilaritySchema = z.object({
  translation: vec3,
  rotation: unitQuaternion,
  scale: positive,
}).strict();
export type Similarity = z.infer<typeof SimilaritySchema>;

const common = {
  /** Unique within the project (also names the selection file). */
  id: z.string().regex(/^[a-z0-9-]{1,64}$/, 'expected lower-case letters, digits and dashes'),
  at: isoTime,
  /** What the history panel shows (e.g. "Delete 1,204 splats (box)"). */
  label: z.string().max(200).optional(),
};

export const EditOperationSchema = z.discriminatedUnion('op', [
  /** Removes the selected splats. */
  z.object({ op: z.literal('delete'), selection: SelectionRefSchema, ...common }).strict(),
  /** Hides the selected splats (kept, drawn by nothing, exported by nothing) until unhidden. */
  z.object({ op: z.literal('hide'), selection: SelectionRefSchema, ...common }).strict(),
  /** Shows hidden splats again: the selected ones, or every hidden one without a selection. */
  z.object({ op: z.literal('unhide'), selection: SelectionRefSchema.optional(), ...common }).strict(),
  /** Keeps only the splats whose centres lie inside the box. */
  z.object({ op: z.literal('crop'), box: OrientedBoxSchema, ...common }).strict(),
  /** Moves the selected splats to a new layer (exported and drawn on their own, or hidden with it). */
  z.object({ op: z.literal('separate'), selection: SelectionRefSchema, layer: z.string().min(1).max(100), ...common }).strict(),
  /** Moves, rotates and scales the whole scene (positions, orientations, scales; SH rotated with it). */
  z.object({ op: z.literal('transform'), transform: SimilaritySchema, ...common }).strict(),
  /**
   * Floater removal: the splats the automatic cleanup chose (main/engine/edit/clean.ts) at these
   * parameters, removed like a delete; the parameters are kept so the history says what ran.
   */
  z.object({ op: z.literal('clean'), selection: SelectionRefSchema, params: z.record(z.string(), z.union([finite, z.string(), z.boolean()])), ...common }).strict(),
]);
export type EditOperation = z.infer<typeof EditOperationSchema>;
export type EditOperationKind = EditOperation['op'];
export const EDIT_OPERATION_KINDS: readonly EditOperationKind[] = ['delete', 'hide', 'unhide', 'crop', 'separate', 'transform', 'clean'];

export const EditListSchema = z.object({
  base: EditBaseSchema,
  /** Applied in order. */
  operations: z.array(EditOperationSchema),
  /** Undone operations, the most recently undone last (redo takes it). */
  undone: z.array(EditOperationSchema),
}).strict();
export type EditList = z.infer<typeof EditListSchema>;

/** A project's edits: the current list and older lists kept when training moved the base on. */
export const ProjectEditsSchema = z.object({
  current: EditListSchema.optional(),
  history: z.array(EditListSchema.extend({ closedAt: isoTime })),
}).strict();
export type ProjectEdits = z.infer<typeof ProjectEditsSchema>;

/** The list with `operation` applied after the others; the redo stack is dropped (a new branch of history). */
export function withOperation(list: EditList, operation: EditOperation): EditList {
  return { ...list, operations: [...list.operations, operation], undone: [] };
}

/** The list with its newest operation undone, or undefined when there is nothing to undo. */
export function undoLast(list: EditList): EditList | undefined {
  const last = list.operations.at(-1);
  if (!last) return undefined;
  return { ...list, operations: list.operations.slice(0, -1), undone: [...list.undone, last] };
}

/** The list with its most recently undone operation applied again, or undefined when there is nothing to redo. */
export function redoLast(list: EditList): EditList | undefined {
  const next = list.undone.at(-1);
  if (!next) return undefined;
  return { ...list, operations: [...list.operations, next], undone: list.undone.slice(0, -1) };
}
