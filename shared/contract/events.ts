import { z } from 'zod';
import { TrainBlockSchema, TrainEvaluationSchema, TrainMergeSchema, TrainProfileSchema, TrainProgressSchema, TrainSnapshotSchema, TrainStateSchema } from './train-events.js';
import { MetricValuesSchema } from './train-metrics.js';

/** Events that flow from the engine to every client. */
export const LogEvent = z.object({
  level: z.enum(['debug', 'info', 'warn', 'error']),
  message: z.string(),
  source: z.string(),
  timeMs: z.number(),
});

/**
 * Training events as they cross the contract: a job's `TrainEvent`s (train-events.ts) with the
 * job's id added, nothing reshaped. A progress event's step and total stay optional here: older
 * engines ended a job with a bare `done`, and clients still read those.
 */
export const ProgressEvent = TrainProgressSchema.omit({ type: true }).partial({ step: true, total: true }).extend({
  job: z.string(),
  /** step / total, when the stage has a total. */
  fraction: z.number().min(0).max(1).optional(),
  message: z.string().optional(),
});

/** One step's (or one evaluation's) metric values, for the studio's charts. */
export const MetricsEvent = z.object({
  job: z.string(),
  step: z.number().int(),
  values: MetricValuesSchema,
});

/**
 * An evaluation on the test views, every view by name (the Train view's table of test views; its
 * means also go out as a `metrics` event, for the charts).
 */
export const EvaluationEvent = TrainEvaluationSchema.omit({ type: true }).extend({ job: z.string() });

/** Binary splat snapshot for the live viewer (Babylon's layout); never JSON-encoded. */
export const SnapshotEvent = TrainSnapshotSchema.omit({ type: true }).extend({ job: z.string() });

/** A block of a partitioned job's run changed (train-events.ts TrainBlockSchema). */
export const BlockEvent = TrainBlockSchema.omit({ type: true }).extend({ job: z.string() });

/** A partitioned job's merge changed state (train-events.ts TrainMergeSchema). */
export const MergeEvent = TrainMergeSchema.omit({ type: true }).extend({ job: z.string() });

export const ErrorEvent = z.object({
  job: z.string().optional(),
  code: z.string(),
  message: z.string(),
  details: z.unknown().optional(),
});

/** A training job changed state (started, paused, resumed after a host restart, finished ...). */
export const JobEvent = TrainStateSchema.omit({ type: true }).extend({
  job: z.string(),
  /** The project the job trains. */
  project: z.string(),
});

/** Per-kernel GPU profile of a job (when the engine profiles: --profile / ARGONAUT_PROFILE=1). */
export const ProfileEvent = TrainProfileSchema.omit({ type: true }).extend({ job: z.string() });

/** Electron main asks the renderer to open a project (a double-clicked .argo, a second launch, macOS open-file). */
export const OpenProjectEvent = z.object({
  path: z.string(),
  via: z.enum(['argv', 'open-file', 'second-instance']),
});

/** State of the engine host process as seen by its supervisor. */
export const HostEvent = z.object({
  state: z.enum(['starting', 'ready', 'crashed', 'restarting', 'stopped']),
  restarts: z.number().int(),
  reason: z.string().optional(),
});

export const DeviceLostEvent = z.object({
  reason: z.string(),
  message: z.string(),
});
