/**
 * Partitioned training (docs/scale.md): a scene split into overlapping blocks on its ground plane,
 * each block trained as a job of its own (in-process, or by queue workers) and the blocks merged.
 * This module is the schema a project manifest keeps for it, shared so the renderer can show the
 * blocks and their runs' state; splitting, training and merging are the engine's
 * (main/engine/partition/).
 *
 * Coordinates: the ground frame maps a world point p to (u, v, h) = ((p - origin) . axisU,
 * (p - origin) . axisV, (p - origin) . up), world units. A block's rectangles are in (u, v); its
 * height range covers the SfM points it holds.
 */
import { z } from 'zod';
import { finite, isoTime } from '../schema-values.js';

const vec3 = z.tuple([finite, finite, finite]);
const vec2 = z.tuple([finite, finite]);
const count = z.number().int().min(0);

/** An axis-aligned rectangle of the ground plane, min <= max on both axes. */
export const GroundRectSchema = z
  .object({ min: vec2, max: vec2 })
  .strict()
  .refine((r) => r.min[0] <= r.max[0] && r.min[1] <= r.max[1], 'expected min <= max on both axes');
export type GroundRect = z.infer<typeof GroundRectSchema>;

/** The ground plane's frame: three orthonormal axes (checked to 1e-3) at an origin. */
export const GroundFrameSchema = z
  .object({ origin: vec3, axisU: vec3, axisV: vec3, up: vec3 })
  .strict()
  .refine((f) => {
    const dot = (a: readonly number[], b: readonly number[]) => a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]!;
    const axes = [f.axisU, f.axisV, f.up];
    return axes.every((a, i) => axes.every((b, j) => Math.abs(dot(a, b) - (i === j ? 1 : 0)) < 1e-3));
  }, 'expected orthonormal axes (axisU, axisV, up)');
export type GroundFrame = z.infer<typeof GroundFrameSchema>;

export const BLOCK_ID_PATTERN = /^block-\d{2,}$/;
export const PARTITION_ID_PATTERN = /^partition-\d{3,}$/;

export const PartitionBlockSchema = z
  .object({
    id: z.string().regex(BLOCK_ID_PATTERN, 'expected block-NN'),
    /** The region this block owns: the merged scene keeps its splats whose centres lie inside. */
    core: GroundRectSchema,
    /** The core grown by the partition's overlap: what the block trains (its points and what its cameras see). */
    bounds: GroundRectSchema,
    /** Heights (along `up`) the block's points span, for the preview boxes. */
    height: vec2,
    /** Training views (by image name) chosen by visibility of the block's bounds. */
    cameras: z.array(z.string().min(1)).min(1, 'a block needs at least one camera'),
    /** SfM points inside `bounds`: the block's initialisation. */
    points: count,
  })
  .strict();
export type PartitionBlock = z.infer<typeof PartitionBlockSchema>;

export const PartitionSchema = z
  .object({
    id: z.string().regex(PARTITION_ID_PATTERN, 'expected partition-NNN'),
    createdAt: isoTime,
    /** 'grid': equal cells; 'kd': balanced splits of the points (and cameras) to a target size. */
    method: z.enum(['grid', 'kd']),
    /** What was asked: a block count or a block size (ground units). */
    target: z.union([z.object({ blocks: z.number().int().min(1) }).strict(), z.object({ blockSize: z.number().positive() }).strict()]),
    /** Overlap as a fraction of a block's core size added on every side. */
    overlap: z.number().min(0).max(1),
    ground: GroundFrameSchema,
    blocks: z.array(PartitionBlockSchema).min(1),
  })
  .strict()
  .refine((p) => new Set(p.blocks.map((b) => b.id)).size === p.blocks.length, 'block ids must be distinct');
export type Partition = z.infer<typeof PartitionSchema>;

export const BLOCK_STATUSES = ['queued', 'running', 'finished', 'failed'] as const;

/** One block's training inside a partitioned run: its own checkpoints, resumable by any worker. */
export const BlockRunSchema = z
  .object({
    block: z.string().regex(BLOCK_ID_PATTERN),
    status: z.enum(BLOCK_STATUSES),
    step: count,
    total: count,
    /** The worker that trains (or last trained) it: host name and process id, or 'in-process'. */
    worker: z.string().optional(),
    attempts: count,
    checkpointsDir: z.string().min(1),
    latestCheckpoint: z.object({ file: z.string().min(1), step: count, savedAt: isoTime }).strict().optional(),
    /** The block's trained splats (before cropping to its core). */
    splats: z.string().min(1).optional(),
    splatCount: count.optional(),
    error: z.object({ code: z.string(), message: z.string() }).strict().optional(),
  })
  .strict();
export type BlockRun = z.infer<typeof BlockRunSchema>;

/** Seams: test-view PSNR of pixels near block borders against those away from them. */
export const SeamReportSchema = z.object({ nearPsnr: finite, awayPsnr: finite, borderPx: z.number().int().min(1) }).strict();

/**
 * The merged splats scored on the project's held-out views, as a whole run's final evaluation
 * (train/evaluate-views.ts): means over `views` test views. Added in place in version 3
 * (optional: older files read unchanged).
 */
export const MergeEvaluationSchema = z.object({ psnr: finite, ssim: finite, ccPsnr: finite.optional(), views: count }).strict();

/** What a run trained as blocks records beside the usual run fields (RunSchema.partition). */
export const PartitionedRunSchema = z
  .object({
    partition: z.string().regex(PARTITION_ID_PATTERN),
    /** 'redis://…' (the password never stored) or 'in-process'. */
    queue: z.string().min(1),
    blocks: z.array(BlockRunSchema).min(1),
    merge: z
      .object({
        status: z.enum(['pending', 'running', 'finished', 'failed']),
        /** Steps of the joint fine-tune over all cameras after joining (0: none). */
        fineTuneSteps: count,
        splatCount: count.optional(),
        seams: SeamReportSchema.optional(),
        evaluation: MergeEvaluationSchema.optional(),
      })
      .strict(),
  })
  .strict();
export type PartitionedRun = z.infer<typeof PartitionedRunSchema>;

/** A queue URL with its password removed: what logs, manifests and the GUI show. */
export function redactQueueUrl(url: string): string {
  return url.replace(/^(rediss?:\/\/)([^@/]*)@/, (_, scheme: string, auth: string) => `${scheme}${auth.includes(':') ? `${auth.split(':')[0]}:***` : '***'}@`);
}
