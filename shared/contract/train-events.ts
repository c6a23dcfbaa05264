import { z } from 'zod';
import { BLOCK_ID_PATTERN, BLOCK_STATUSES } from '../project/partition.js';
import { ProfileReportSchema } from './profile.js';
import { JobStateSchema } from './projects.js';
import { EvaluationViewSchema, TrainMetricsSchema, trainMetricsOf, type MetricValues } from './train-metrics.js';

/**
 * One training job's event stream (as Brush's `TrainMessage`): the trainer emits these, the
 * project run records them (main/engine/project/train-run.ts), the engine host's job manager
 * forwards them as contract events (adding the job id) and the CLI prints them. Nobody reshapes
 * an event on the way; docs/architecture.md has the diagram.
 */
const step = z.number().int().min(0);

export const TRAIN_STAGES = ['load', 'upload', 'train', 'eval', 'done'] as const;
export const TrainStageSchema = z.enum(TRAIN_STAGES);
export type TrainStage = z.infer<typeof TrainStageSchema>;

/** Where the job is: loading data, uploading it, training (with the step's metrics), evaluating, done. */
/**
 * Training's growth stopped by GPU memory (main/engine/train/memory-growth.ts): the splat cap it
 * stays under, the capacity it wanted and has, the bytes the growth needed and the budget (absent
 * when there is none of ours: the driver refused), and the sentence the log and the banner show.
 */
export const MemoryCapSchema = z.object({
  step,
  splats: z.number().int().min(0),
  wantedCapacity: z.number().int().min(0),
  capacity: z.number().int().min(0),
  neededBytes: z.number().min(0),
  budgetBytes: z.number().min(0).optional(),
  message: z.string(),
});
export type MemoryCapInfo = z.infer<typeof MemoryCapSchema>;

export const TrainProgressSchema = z.object({
  type: z.literal('progress'),
  stage: TrainStageSchema,
  step,
  total: step,
  etaS: z.number().optional(),
  /** Set on every training progress once GPU memory capped growth (the Train view's banner). */
  memoryCap: MemoryCapSchema.optional(),
}).extend(TrainMetricsSchema.shape);

/**
 * An evaluation on the test views (mean PSNR in dB and SSIM, and per view); `ccPsnr` is the PSNR
 * after each view's best affine colour fit to its image (absent from engines before it).
 */
export const TrainEvaluationSchema = z.object({
  type: z.literal('evaluation'),
  step,
  psnr: z.number(),
  ssim: z.number(),
  ccPsnr: z.number().optional(),
  views: z.array(EvaluationViewSchema),
});

/** The current splats in the viewer's 32-byte layout (binary, never JSON-encoded). */
export const TrainSnapshotSchema = z.object({
  type: z.literal('snapshot'),
  step,
  count: z.number().int().min(0),
  data: z.instanceof(ArrayBuffer),
});

export const TrainLogSchema = z.object({
  type: z.literal('log'),
  level: z.enum(['info', 'warn', 'error']),
  message: z.string(),
});

/** A checkpoint was written (atomically; `file` is absolute) and recorded. */
export const TrainCheckpointSchema = z.object({
  type: z.literal('checkpoint'),
  step,
  file: z.string(),
});

/** The job changed state; `run` is the project run it trains, `reason` why (a continuation, an error). */
export const TrainStateSchema = z.object({
  type: z.literal('state'),
  state: JobStateSchema,
  step,
  total: step,
  run: z.string().optional(),
  reason: z.string().optional(),
});

/** A per-kernel GPU profile (when the engine profiles). */
export const TrainProfileSchema = z.object({
  type: z.literal('profile'),
  step,
  report: ProfileReportSchema,
});

/**
 * A block of a partitioned run changed (shared/project/partition.ts): queued, taken by a worker,
 * a step reached, finished (with its trained splats, `splats` absolute) or failed. The coordinator
 * emits them for every block, in-process or through the queue; the GUI's Partition panel shows them.
 */
export const TrainBlockSchema = z.object({
  type: z.literal('block'),
  block: z.string().regex(BLOCK_ID_PATTERN),
  status: z.enum(BLOCK_STATUSES),
  step,
  total: step,
  /** Host and process id of the worker, or 'in-process'. */
  worker: z.string().optional(),
  splats: z.string().optional(),
});

/** A partitioned run's merge changed state; when finished, `splats` (absolute) holds the run's merged splats. */
export const TrainMergeSchema = z.object({
  type: z.literal('merge'),
  status: z.enum(['running', 'finished', 'failed']),
  splats: z.string().optional(),
  splatCount: z.number().int().min(0).optional(),
});

export const TrainEventSchema = z.discriminatedUnion('type', [
  TrainProgressSchema,
  TrainEvaluationSchema,
  TrainSnapshotSchema,
  TrainLogSchema,
  TrainCheckpointSchema,
  TrainStateSchema,
  TrainProfileSchema,
  TrainBlockSchema,
  TrainMergeSchema,
]);
export type TrainEvent = z.infer<typeof TrainEventSchema>;
export type TrainEventOf<T extends TrainEvent['type']> = Extract<TrainEvent, { type: T }>;

/**
 * Where a training job's events go. Awaited where the job must not go on before the event is
 * recorded (a checkpoint lands in the project's manifest before training continues).
 */
export type TrainEventSink = (event: TrainEvent) => void | Promise<void>;

/** What a job's caller gives it: where events go and what stops it (between steps). */
export interface TrainEventOptions {
  signal?: AbortSignal;
  onEvent?: TrainEventSink;
}

/** The metric values an event contributes to a run's metric series (training steps, evaluations). */
export function metricValuesOf(event: TrainEvent): { step: number; values: MetricValues } | undefined {
  if (event.type === 'progress' && event.stage === 'train') return { step: event.step, values: trainMetricsOf(event) };
  if (event.type === 'evaluation') return { step: event.step, values: { testPsnr: event.psnr, testSsim: event.ssim, ...(event.ccPsnr !== undefined ? { testCcPsnr: event.ccPsnr } : {}) } };
  return undefined;
}
