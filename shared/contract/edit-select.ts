/**
 * Selection and cleanup in the edit service (issue 17): what the viewer asks the engine to select
 * and what the floater cleanup would remove. The shapes are the one source of truth for the GPU
 * selection (main/engine/edit/select.ts), its float64 reference and the UI's tools.
 *
 * A selection is a bitmask over the edit list's base splats: u32 words, bit (i & 31) of word
 * (i >> 5) for base splat i; bits past the base's count are zero.
 */
import { z } from 'zod';
import { OrientedBoxSchema } from '../edits/edit-list.js';
import { PinholeCameraSchema } from './projects.js';

const finite = z.number().finite();
const point2 = z.tuple([finite, finite]);
const nonNegative = z.number().finite().min(0);

/** Most lasso vertices and brush circles one selection takes (the kernel loops over them per splat). */
export const MAX_SHAPE_POINTS = 4096;

/** Screen-space shapes (pixels of `camera`, OpenCV: x right, y down; pixel (u, v) covers [u, u+1) x [v, v+1)). */
export const RectShapeSchema = z.object({ kind: z.literal('rect'), min: point2, max: point2 }).strict()
  .refine((s) => s.min[0] <= s.max[0] && s.min[1] <= s.max[1], 'expected rect.min <= rect.max on both axes');
/** A closed polygon; a splat is inside by the even-odd rule. */
export const LassoShapeSchema = z.object({ kind: z.literal('lasso'), points: z.array(point2).min(3, 'a lasso needs at least 3 points').max(MAX_SHAPE_POINTS) }).strict();
/** A brush stroke: the union of circles (centre in pixels, radius in pixels, > 0). */
export const BrushShapeSchema = z.object({
  kind: z.literal('brush'),
  circles: z.array(z.object({ centre: point2, radius: z.number().finite().positive('a brush radius must be positive') }).strict()).min(1, 'a brush stroke needs at least one circle').max(MAX_SHAPE_POINTS),
}).strict();
/** World-space solids: splat centres inside an oriented box, or inside the ellipsoid with those half axes. */
export const BoxShapeSchema = z.object({ kind: z.literal('box'), box: OrientedBoxSchema }).strict();
export const EllipsoidShapeSchema = z.object({ kind: z.literal('ellipsoid'), ellipsoid: OrientedBoxSchema }).strict();
/** Attribute ranges, inclusive: opacity in [0, 1]; size = the largest axis scale (standard deviation, world units). */
export const OpacityShapeSchema = z.object({ kind: z.literal('opacity'), min: nonNegative, max: nonNegative }).strict().refine((s) => s.min <= s.max, 'expected opacity min <= max');
export const SizeShapeSchema = z.object({ kind: z.literal('size'), min: nonNegative, max: nonNegative }).strict().refine((s) => s.min <= s.max, 'expected size min <= max');
/** The DC colour (0.5 + SH_C0 * dc, clamped to [0, 1]) within `distance` (Euclidean, RGB in [0, 1]) of `rgb`. */
export const ColourShapeSchema = z.object({ kind: z.literal('colour'), rgb: z.tuple([finite, finite, finite]), distance: nonNegative }).strict();

export const SelectionShapeSchema = z.union([
  RectShapeSchema, LassoShapeSchema, BrushShapeSchema, BoxShapeSchema, EllipsoidShapeSchema, OpacityShapeSchema, SizeShapeSchema, ColourShapeSchema,
]);
export type SelectionShape = z.infer<typeof SelectionShapeSchema>;
export type SelectionShapeKind = SelectionShape['kind'];
export const SCREEN_SHAPES: readonly SelectionShapeKind[] = ['rect', 'lasso', 'brush'];

/**
 * How the shape's splats combine with the current selection. 'invert', 'all' and 'none' take no
 * shape. Hidden or deleted splats (the exclude mask) are never in the result.
 */
export const SELECTION_MODES = ['replace', 'add', 'subtract', 'intersect', 'invert', 'all', 'none'] as const;
export const SelectionModeSchema = z.enum(SELECTION_MODES);
export type SelectionMode = z.infer<typeof SelectionModeSchema>;

const projectPath = z.string().min(1).max(4096);

export const EditsSelectArgs = z.object({
  project: projectPath,
  mode: SelectionModeSchema,
  /** Required for 'replace', 'add', 'subtract' and 'intersect'. */
  shape: SelectionShapeSchema.optional(),
  /** The viewer's camera; required for the screen-space shapes. */
  camera: PinholeCameraSchema.optional(),
  /** The current selection (bitmask words over the base); none is the empty selection. */
  current: z.instanceof(Uint32Array).optional(),
}).strict();

export const EditsSelectResult = z.object({
  /** The new selection, bitmask words over the base's splats. */
  mask: z.instanceof(Uint32Array),
  /** Selected splats. */
  count: z.number().int().min(0),
  /** Splats of the base (the mask covers ceil(splats / 32) words). */
  splats: z.number().int().min(0),
});

export const EditsCleanPreviewArgs = z.object({
  project: projectPath,
  /** `edit.` parameters from the registry (shared/params/registry.ts); unset ones take their defaults. */
  params: z.record(z.string(), z.union([z.number(), z.string(), z.boolean()])).optional(),
}).strict();

export const CleanReasonsSchema = z.object({
  opacity: z.number().int().min(0),
  size: z.number().int().min(0),
  isolated: z.number().int().min(0),
  unseen: z.number().int().min(0),
});

export const EditsCleanPreviewResult = z.object({
  /** Sorted base indices the cleanup would remove. */
  selection: z.instanceof(Uint32Array),
  /** Splats meeting each criterion (a splat may meet several). */
  reasons: CleanReasonsSchema,
  splats: z.number().int().min(0),
});
