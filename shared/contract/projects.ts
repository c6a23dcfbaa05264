import { z } from 'zod';
import { paramsForCommand, paramsSchema } from '../params/index.js';
import { CaptureRecordSchema, CaptureSourceSchema, DatasetFormatSchema, EXPORT_FORMATS, RunStatusSchema } from '../project/manifest.js';
import { PartitionedJobSchema } from './partitions.js';

/**
 * Contract shapes of the project, training and export services (docs/gui.md lists what the GUI
 * expected; docs/projects.md the deviations). Paths are absolute paths on the engine's machine;
 * the engine checks each one (exists, file or folder as expected) and names it in its errors.
 */
const path = z.string().min(1).max(4096).refine((s) => !s.includes('\0'), 'a path cannot contain NUL');

export const ProjectSummarySchema = z.object({
  id: z.string(),
  /** The .argo file. */
  path: z.string(),
  name: z.string(),
  source: CaptureSourceSchema.or(z.object({ kind: z.literal('sample') })),
  createdMs: z.number(),
  modifiedMs: z.number(),
  /** Splats of the newest finished run, if any. */
  splats: z.number().int().optional(),
  dataset: z.union([
    z.object({ kind: z.literal('sample') }),
    z.object({ kind: z.literal('folder'), path: z.string(), format: DatasetFormatSchema, views: z.number().int(), train: z.number().int(), test: z.number().int() }),
  ]).optional(),
  runs: z.array(z.object({ id: z.string(), status: RunStatusSchema, step: z.number().int(), total: z.number().int() })),
  /** Projects made from video or photos: the structure-from-motion result (`report`: absolute path of capture/report.json). */
  capture: CaptureRecordSchema.optional(),
});
export type ProjectSummary = z.infer<typeof ProjectSummarySchema>;

export const ProjectCreateSource = z.discriminatedUnion('kind', [
  /**
   * An existing dataset folder; `format`, when given, must be what the folder holds. `masks`: a
   * folder of per-image masks (docs/datasets.md, "Masks"), kept as the project's `train.masks`.
   */
  z.object({ kind: z.literal('dataset'), dir: path, format: DatasetFormatSchema.optional(), masks: path.optional() }).strict(),
  z.object({ kind: z.literal('splat'), path }).strict(),
  z.object({ kind: z.literal('sample') }).strict(),
]);

export const ProjectCreateArgs = z.object({
  source: ProjectCreateSource,
  /** Project name (the file is `<dir>/<name>.argo`); default: the source's folder or file name. */
  name: z.string().min(1).max(200).regex(/^[^/\\:*?"<>|\0]+$/, 'a name cannot contain / \\ : * ? " < > |').optional(),
  /** Folder for the project; default: the source's parent folder (sample: the user's Argonaut Projects folder). */
  dir: path.optional(),
  /** Copy the dataset into the project's data folder instead of referencing it. */
  copy: z.boolean().optional(),
}).strict();

export const PinholeCameraSchema = z.object({
  width: z.number().int(),
  height: z.number().int(),
  fx: z.number(),
  fy: z.number(),
  cx: z.number(),
  cy: z.number(),
  worldToCamera: z.array(z.number()).length(16),
});

export const ProjectSceneResult = z.object({
  /** Every view of the dataset, in dataset order, at the project's downscale. */
  cameras: z.array(PinholeCameraSchema),
  /** Per camera: image name and split. */
  views: z.array(z.object({ name: z.string(), split: z.enum(['train', 'test']) })),
  points: z.object({ positions: z.instanceof(Float32Array), colors: z.instanceof(Uint8Array), count: z.number().int() }),
});

export const ProjectImageArgs = z.object({
  project: path,
  /** Index into `projects.scene`'s cameras. */
  camera: z.number().int().min(0).max(1_000_000),
  /** Longest side in pixels (downscaled by whole-pixel area averaging when larger). */
  maxSize: z.number().int().min(16).max(16384).optional(),
}).strict();

export const ProjectImageResult = z.object({ mime: z.literal('image/png'), width: z.number().int(), height: z.number().int(), data: z.instanceof(ArrayBuffer) });

// ---- training ----

export const TrainSourceSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('sample') }).strict(),
  z.object({ kind: z.literal('dataset'), path }).strict(),
  z.object({ kind: z.literal('project'), path }).strict(),
]);
export type TrainSource = z.infer<typeof TrainSourceSchema>;

export const JOB_STATES = ['starting', 'running', 'paused', 'stopping', 'stopped', 'finished', 'failed', 'interrupted'] as const;
export const JobStateSchema = z.enum(JOB_STATES);
export type JobState = z.infer<typeof JobStateSchema>;

/** States in which a job holds its project and the engine: no second job on it, GPU settings locked. */
export const ACTIVE_JOB_STATES = ['starting', 'running', 'paused', 'stopping'] as const satisfies readonly JobState[];
export type ActiveJobState = (typeof ACTIVE_JOB_STATES)[number];

export function isActiveJobState(state: JobState): state is ActiveJobState {
  return (ACTIVE_JOB_STATES as readonly JobState[]).includes(state);
}

export const TrainStartArgs = z.object({
  source: TrainSourceSchema,
  /** The train command's parameters (system.* are accepted and ignored: the host's GPU options are its own). */
  params: paramsSchema(paramsForCommand('train')).default({}),
  /** Project sources: start a new run even when the newest run can continue. */
  newRun: z.boolean().optional(),
}).strict();

export const JobRef = z.object({ job: z.string().min(1).max(100) }).strict();
export const JobControlResult = z.object({ job: z.string(), state: JobStateSchema });

export const JobStatusSchema = z.object({
  job: z.string(),
  state: JobStateSchema,
  source: TrainSourceSchema,
  /** The project the job trains (scratch projects for sample and dataset sources live in the engine's state folder). */
  project: z.string(),
  run: z.string(),
  step: z.number().int(),
  total: z.number().int(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  /** A job training a partition's blocks (train.partitioned). */
  partition: PartitionedJobSchema.optional(),
});
export type JobStatus = z.infer<typeof JobStatusSchema>;

// ---- export ----

export const ExportSplatsArgs = z.object({
  /** A .argo project (its newest splats) ... */
  project: path.optional(),
  /** ... or a training job (its newest splats: the finished result or the latest checkpoint). */
  job: z.string().min(1).max(100).optional(),
  format: z.enum(EXPORT_FORMATS),
  /** The file to write (its folder must exist). */
  path,
}).strict().refine((a) => (a.project === undefined) !== (a.job === undefined), { message: 'give exactly one of project and job', path: ['project'] });

export const ExportSplatsResult = z.object({ path: z.string(), bytes: z.number().int(), splats: z.number().int(), format: z.enum(EXPORT_FORMATS) });

/** The web viewer export (main/engine/project/web-export.ts): a folder, or one HTML file. */
export const ExportWebArgs = z.object({
  project: path,
  /** The folder to write (new or empty), or with singleFile the HTML file. */
  path,
  singleFile: z.boolean().optional(),
  /** Replace a folder that is not empty. */
  force: z.boolean().optional(),
}).strict();

export const ExportWebResult = z.object({ path: z.string(), bytes: z.number().int(), splats: z.number().int(), cameraPaths: z.number().int(), singleFile: z.boolean(), files: z.array(z.string()) });

/** A project's newest splats for the viewer: the 32-byte layout (shared/scene/splat-layout.ts), binary. */
export const ProjectSplatsResult = z.object({
  count: z.number().int(),
  /** The run they belong to and its step (a finished run's last step, or its newest checkpoint's). */
  run: z.string(),
  step: z.number().int(),
  data: z.instanceof(ArrayBuffer),
  /**
   * When the project's edits were applied (docs/editing.md): per splat sent, its index in the
   * edit list's base, which is what a selection names. Absent for unedited (or `raw`) splats,
   * whose indices are the base's.
   */
  keptToBase: z.instanceof(Uint32Array).optional(),
});
/** `projects.splats`' arguments: `raw` sends the splats as trained, without the edit list. */
export const ProjectSplatsArgs = z.object({ project: path, raw: z.boolean().optional() }).strict();
