/**
 * The `.argo` project manifest: one versioned JSON document beside a data folder. This module is
 * the schema (zod, shared so the renderer can read a manifest too) and the migrations from older
 * versions; reading and writing files is the engine's (main/engine/project/).
 *
 * Every relative path in a manifest is relative to the folder that holds the .argo file, with
 * forward slashes, so a project folder can move (or change OS) in one piece. docs/projects.md
 * shows a complete example.
 */
import { z } from 'zod';
import { allParams, getParamByFlag, paramsSchema, paramValueSchema, type ParamDef, type ParamValue } from '../params/index.js';
import { EvaluationViewSchema, TrainMetricsSchema, type EvaluationView } from '../contract/train-metrics.js';
import { badInput } from '../rpc/errors.js';
import { isoTime } from '../schema-values.js';
import { ProjectEditsSchema } from '../edits/edit-list.js';
import { CameraPathSchema } from '../scene/camera-path.js';
import { PartitionedRunSchema, PartitionSchema } from './partition.js';

export const PROJECT_FORMAT = 'argonaut-project';
export const PROJECT_VERSION = 3;
export const PROJECT_EXTENSION = '.argo';

/** Whether a path names a project file (by its extension, any case). */
export function isProjectFile(file: string | undefined): file is string {
  return typeof file === 'string' && file.toLowerCase().endsWith(PROJECT_EXTENSION);
}

/** The parameters a project stores: every `train.*` parameter (system ones belong to the machine). */
export function projectParamDefs(): ParamDef[] {
  return allParams().filter((p) => p.key.startsWith('train.'));
}

const relativeOrAbsolutePath = z.string().min(1).refine((s) => !s.includes('\0'), 'a path cannot contain NUL');
const count = z.number().int().min(0);

export const ProjectParamsSchema = paramsSchema(projectParamDefs());
export type ProjectParams = z.infer<typeof ProjectParamsSchema>;

export const DatasetFormatSchema = z.enum(['colmap', 'transforms', 'nerf-synthetic']);

export const DatasetRefSchema = z.discriminatedUnion('kind', [
  /** The built-in procedural scene (no files). */
  z.object({ kind: z.literal('sample') }).strict(),
  z.object({
    kind: z.literal('folder'),
    /** The dataset folder (or transforms JSON), relative to the .argo folder where possible. */
    path: relativeOrAbsolutePath,
    /** Where it was at import: tried when `path` no longer resolves (the project moved without its dataset). */
    absolutePath: relativeOrAbsolutePath.optional(),
    /** True when import copied the dataset into the data folder. */
    copied: z.boolean(),
    format: DatasetFormatSchema,
    views: count,
    train: count,
    test: count,
    /** Largest view at the project's downscale, in pixels. */
    width: count,
    height: count,
    /** SfM points (0: none; training starts from random points). */
    points: count,
  }).strict(),
]);
export type DatasetRef = z.infer<typeof DatasetRefSchema>;

export const CaptureSourceSchema = z.object({
  /** video / photos: a clip or photo folder captured into the project's own dataset (main/engine/capture). */
  kind: z.enum(['dataset', 'sample', 'splat', 'video', 'photos']),
  path: relativeOrAbsolutePath.optional(),
  importedAt: isoTime,
}).strict();
export type CaptureSource = z.infer<typeof CaptureSourceSchema>;

/**
 * What structure from motion made of a project's captured sources (the full report stays in
 * `report`, the dataset's capture/report.json): enough to show the result without reading it.
 */
export const CaptureRecordSchema = z.object({
  report: relativeOrAbsolutePath,
  registered: count,
  total: count,
  points: count,
  /** Null when no model was built (never written then: a failed capture makes no project). */
  meanReprojectionErrorPx: z.number().nullable(),
  matcher: z.string(),
  cameraModel: z.string(),
  diagnostics: z.array(z.object({ level: z.enum(['info', 'warn']), message: z.string() }).strict()),
  capturedAt: isoTime,
}).strict();
export type CaptureRecord = z.infer<typeof CaptureRecordSchema>;

/** One recorded training step: the step and the metric tuple the trainer reports (train-metrics.ts). */
export const MetricsPointSchema = z.object({ step: count }).extend(TrainMetricsSchema.shape).strict();
export type MetricsPoint = z.infer<typeof MetricsPointSchema>;

/**
 * One evaluation on the test views: the means, and on the newest evaluation of a run every test
 * view by name (recordEvaluation keeps the manifest's size bounded). `views` was added in place in
 * version 1: optional, older files read unchanged.
 */
export const EvaluationRecordSchema = z.object({
  step: count,
  psnr: z.number(),
  ssim: z.number(),
  ccPsnr: z.number().optional(),
  views: z.array(EvaluationViewSchema).optional(),
}).strict();
export type EvaluationRecord = z.infer<typeof EvaluationRecordSchema>;

export const RUN_STATUSES = ['running', 'paused', 'interrupted', 'stopped', 'finished', 'failed'] as const;
export const RunStatusSchema = z.enum(RUN_STATUSES);
export type RunStatus = z.infer<typeof RunStatusSchema>;

export const RunSchema = z.object({
  id: z.string().regex(/^run-\d{3,}$/, 'expected run-NNN'),
  createdAt: isoTime,
  updatedAt: isoTime,
  /** Every train.* value the run uses (resolved: presets and defaults applied). */
  params: ProjectParamsSchema,
  status: RunStatusSchema,
  /** Steps done (the newest checkpoint's step after a crash, until training continues). */
  step: count,
  total: count,
  /** Steps a run continued from, in order (one per resume). */
  resumes: z.array(count),
  checkpointsDir: relativeOrAbsolutePath,
  latestCheckpoint: z.object({ file: relativeOrAbsolutePath, step: count, savedAt: isoTime }).strict().optional(),
  /** Loss, PSNR, splat count over time (decimated to at most METRICS_LIMIT points). */
  metrics: z.array(MetricsPointSchema),
  evaluations: z.array(EvaluationRecordSchema),
  outputs: z.object({ splats: relativeOrAbsolutePath.optional(), splatCount: count.optional(), cameras: relativeOrAbsolutePath.optional() }).strict(),
  error: z.object({ code: z.string(), message: z.string() }).strict().optional(),
  /**
   * A run that started from a project's edited splats (training continued after edits,
   * docs/editing.md): the base the edits applied to, how many operations, the splats it started
   * with. Added in place in version 2 (optional: older files read unchanged).
   */
  startedFrom: z.object({ run: z.string(), step: count, operations: count, splats: count }).strict().optional(),
}).strict();
/** Version 3's run: a run trained as blocks of a partition also records them (shared/project/partition.ts). */
const RunV3Schema = RunSchema.extend({ partition: PartitionedRunSchema.optional() }).strict();
export type ProjectRun = z.infer<typeof RunV3Schema>;

export const EXPORT_FORMATS = ['ply', 'splat', 'spz', 'sog', 'glb'] as const;
export const ExportFormatSchema = z.enum(EXPORT_FORMATS);
export type ExportFormat = z.infer<typeof ExportFormatSchema>;
/**
 * What an export record names: a splat format, or 'web' (the web viewer folder or single HTML
 * file, main/engine/project/web-export.ts). Kept apart from ExportFormat, which the splat readers
 * and writers, the contract and the Export view take as "a splat file format".
 */
export const EXPORT_RECORD_FORMATS = [...EXPORT_FORMATS, 'web'] as const;

export const ExportRecordSchema = z.object({
  format: z.enum(EXPORT_RECORD_FORMATS),
  path: relativeOrAbsolutePath,
  run: z.string().optional(),
  step: count.optional(),
  splats: count,
  bytes: count,
  createdAt: isoTime,
}).strict();
export type ExportRecord = z.infer<typeof ExportRecordSchema>;

/** Version 1 (before edits and camera paths): read and migrated to the current version. */
const ProjectManifestV1Schema = z.object({
  format: z.literal(PROJECT_FORMAT),
  version: z.literal(1),
  id: z.string().min(1),
  name: z.string().min(1),
  createdAt: isoTime,
  modifiedAt: isoTime,
  /** Argonaut version that last wrote the file. */
  app: z.string(),
  /** The data folder (checkpoints, run outputs, a copied dataset), relative to the .argo folder. */
  dataDir: relativeOrAbsolutePath,
  sources: z.array(CaptureSourceSchema),
  /** Projects made from video or photos: the structure-from-motion result (added in place in version 1: optional, older files read unchanged). */
  capture: CaptureRecordSchema.optional(),
  /** What training reads; absent for a project made from a splat file alone. */
  dataset: DatasetRefSchema.optional(),
  /** Parameters for new runs (only those set; the registry's defaults fill the rest). */
  params: ProjectParamsSchema,
  runs: z.array(RunSchema),
  exports: z.array(ExportRecordSchema),
  /** Set when the file was migrated from an older version, with what the migration changed. */
  migration: z.object({ from: z.number().int(), at: isoTime, notes: z.array(z.string()) }).strict().optional(),
}).strict();
/** Version 2: version 1 plus the non-destructive edits and the camera paths; read and migrated. */
const ProjectManifestV2Schema = ProjectManifestV1Schema.extend({
  version: z.literal(2),
  /** The splats' edit list and the lists older bases had (shared/edits/edit-list.ts). */
  edits: ProjectEditsSchema,
  /** Saved camera paths (video renders, the web viewer's tours; shared/scene/camera-path.ts). */
  cameraPaths: z.array(CameraPathSchema),
}).strict();
/**
 * The current version (3): version 2 plus the scene's partitions into blocks and, on runs trained
 * as blocks, their block runs (shared/project/partition.ts).
 */
export const ProjectManifestSchema = ProjectManifestV2Schema.extend({
  version: z.literal(PROJECT_VERSION),
  runs: z.array(RunV3Schema),
  partitions: z.array(PartitionSchema),
}).strict();
export type ProjectManifest = z.infer<typeof ProjectManifestSchema>;

/** The most metric points a run keeps; older points are thinned (every other one) past it. */
export const METRICS_LIMIT = 2000;

/** Appends a point, thinning the oldest half when the history is full (bounded manifest size). */
export function appendMetrics(history: MetricsPoint[], point: MetricsPoint): void {
  history.push(point);
  if (history.length > METRICS_LIMIT) {
    const half = Math.floor(history.length / 2);
    const thinned = history.slice(0, half).filter((_, i) => i % 2 === 0);
    history.splice(0, half, ...thinned);
  }
}

/**
 * Records an evaluation in a run's history: its means always, its per-view scores only on the
 * newest (an evaluation every 1,000 steps of 30,000 on 40 test views would otherwise keep 1,200
 * rows that nobody reads; the Train view shows the newest). An evaluation of a step already
 * recorded replaces that record.
 */
export function recordEvaluation(history: EvaluationRecord[], evaluation: EvaluationRecord): void {
  for (const older of history) delete older.views;
  const record: EvaluationRecord = { step: evaluation.step, psnr: evaluation.psnr, ssim: evaluation.ssim, ...(evaluation.ccPsnr !== undefined ? { ccPsnr: evaluation.ccPsnr } : {}), ...(evaluation.views ? { views: evaluation.views.map(viewRecord) } : {}) };
  const same = history.findIndex((e) => e.step === evaluation.step);
  if (same >= 0) history.splice(same, 1);
  history.push(record);
}

function viewRecord(view: EvaluationView): EvaluationView {
  return { name: view.name, psnr: view.psnr, ssim: view.ssim, ...(view.ccPsnr !== undefined ? { ccPsnr: view.ccPsnr } : {}) };
}

// ---- migrations ----

/**
 * Version 0: the prototype's project file (before the data folder existed). Settings were CLI
 * flags, trainings kept a checkpoint folder and a PLY beside the project file:
 *   { "argonaut_project": 0, "name", "created", "dataset": path, "dataset_format",
 *     "settings": { "iterations": 7000, "sh-degree": 3, ... },
 *     "trainings": [{ "started", "iterations", "last_step", "checkpoint_dir", "splats", "psnr" }] }
 */
const V0Schema = z.object({
  argonaut_project: z.literal(0),
  name: z.string().min(1),
  created: isoTime,
  dataset: z.string().min(1).nullable().optional(),
  dataset_format: DatasetFormatSchema.optional(),
  settings: z.record(z.string(), z.union([z.number(), z.string(), z.boolean()])).default({}),
  trainings: z.array(z.object({
    started: isoTime,
    iterations: z.number().int().min(1),
    last_step: z.number().int().min(0),
    checkpoint_dir: z.string().min(1),
    splats: z.string().min(1).nullable().optional(),
    psnr: z.number().nullable().optional(),
  })).default([]),
});

function migrateV0(raw: unknown, file: string, dataDir: string, now: string): ProjectManifest {
  const parsed = V0Schema.safeParse(raw);
  if (!parsed.success) throw badInput(file, `version 0 project: ${describe(parsed.error.issues)}`);
  const v0 = parsed.data;
  const notes: string[] = [];
  const params: Record<string, ParamValue> = {};
  for (const [flag, value] of Object.entries(v0.settings)) {
    const def = getParamByFlag(flag);
    if (!def || !def.key.startsWith('train.')) {
      notes.push(`dropped setting "${flag}" (no such training parameter)`);
      continue;
    }
    const ok = paramValueSchema(def).safeParse(value);
    if (!ok.success) notes.push(`dropped setting "${flag}": ${JSON.stringify(value)} is not valid (${ok.error.issues[0]?.message})`);
    else params[def.key] = ok.data;
  }
  const defaults = Object.fromEntries(projectParamDefs().map((d) => [d.key, d.default]));
  const runs: ProjectRun[] = v0.trainings.map((t, i) => {
    const finished = t.last_step >= t.iterations;
    return {
      id: `run-${String(i + 1).padStart(3, '0')}`,
      createdAt: t.started,
      updatedAt: t.started,
      params: { ...defaults, ...params, 'train.iterations': t.iterations },
      status: finished ? 'finished' : 'interrupted',
      step: t.last_step,
      total: t.iterations,
      resumes: [],
      checkpointsDir: t.checkpoint_dir,
      metrics: [],
      evaluations: [],
      outputs: t.splats ? { splats: t.splats } : {},
    };
  });
  if (runs.length) notes.push(`${runs.length} training run(s) kept; their checkpoints stay in their old folders`);
  const dataset: DatasetRef | undefined = v0.dataset
    ? { kind: 'folder', path: v0.dataset, copied: false, format: v0.dataset_format ?? 'colmap', views: 0, train: 0, test: 0, width: 0, height: 0, points: 0 }
    : undefined;
  if (dataset) notes.push('dataset statistics are filled in the next time the project is imported or trained');
  return {
    format: PROJECT_FORMAT,
    version: PROJECT_VERSION,
    id: `migrated-${v0.created.replace(/[^0-9]/g, '')}`,
    name: v0.name,
    createdAt: v0.created,
    modifiedAt: now,
    app: 'migrated',
    dataDir,
    sources: v0.dataset ? [{ kind: 'dataset', path: v0.dataset, importedAt: v0.created }] : [],
    ...(dataset ? { dataset } : {}),
    params,
    runs,
    exports: [],
    edits: { history: [] },
    cameraPaths: [],
    partitions: [],
    migration: { from: 0, at: now, notes },
  };
}

/** Version 1 -> 3: no edits, camera paths or partitions yet; nothing else changes. */
function migrateV1(raw: unknown, file: string, now: string): ProjectManifest {
  const parsed = ProjectManifestV1Schema.safeParse(raw);
  if (!parsed.success) throw badInput(file, `invalid project file (version 1): ${describe(parsed.error.issues)}`, { issues: parsed.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })) });
  return { ...parsed.data, version: PROJECT_VERSION, edits: { history: [] }, cameraPaths: [], partitions: [], migration: { from: 1, at: now, notes: ['version 2 adds edits and camera paths, version 3 partitions: none yet'] } };
}

/** Version 2 -> 3: no partitions yet; nothing else changes. */
function migrateV2(raw: unknown, file: string, now: string): ProjectManifest {
  const parsed = ProjectManifestV2Schema.safeParse(raw);
  if (!parsed.success) throw badInput(file, `invalid project file (version 2): ${describe(parsed.error.issues)}`, { issues: parsed.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })) });
  return { ...parsed.data, version: PROJECT_VERSION, partitions: [], migration: { from: 2, at: now, notes: ['version 3 adds partitions: none yet'] } };
}

function describe(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`)
    .join('; ');
}

/**
 * A manifest of any version this build knows, brought to the current one. `file` names the file
 * in every error; `dataDir` is the data folder a migrated (older) project gets. Refuses newer
 * versions and anything that is not a project, naming the file and the problem.
 */
export function parseManifest(raw: unknown, file: string, options: { dataDir: string; now?: string }): { manifest: ProjectManifest; migratedFrom?: number } {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw badInput(file, 'not an Argonaut project (expected a JSON object)');
  const o = raw as Record<string, unknown>;
  const now = options.now ?? new Date().toISOString();
  if ('argonaut_project' in o) {
    if (o.argonaut_project !== 0) throw badInput(file, `unknown project version ${JSON.stringify(o.argonaut_project)}`);
    return { manifest: migrateV0(raw, file, options.dataDir, now), migratedFrom: 0 };
  }
  if (o.format !== PROJECT_FORMAT) throw badInput(file, `not an Argonaut project (format is ${JSON.stringify(o.format ?? null)}, expected "${PROJECT_FORMAT}")`);
  if (typeof o.version !== 'number' || !Number.isInteger(o.version) || o.version < 1) throw badInput(file, `invalid project version ${JSON.stringify(o.version ?? null)}`);
  if (o.version > PROJECT_VERSION) {
    throw badInput(file, `project version ${o.version} is newer than this build of Argonaut Studio reads (version ${PROJECT_VERSION}); update Argonaut Studio to open it`, { version: o.version });
  }
  if (o.version === 1) return { manifest: migrateV1(raw, file, now), migratedFrom: 1 };
  if (o.version === 2) return { manifest: migrateV2(raw, file, now), migratedFrom: 2 };
  const parsed = ProjectManifestSchema.safeParse(raw);
  if (!parsed.success) throw badInput(file, `invalid project file: ${describe(parsed.error.issues)}`, { issues: parsed.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })) });
  return { manifest: parsed.data };
}
