import { z } from 'zod';
import { allParams, paramsSchema } from '../params/index.js';
import { ProjectSummarySchema } from './projects.js';

/**
 * Tasks: long engine work that is not training (capture + import of video and photos, mesh
 * extraction). One starts with `capture.import` or `mesh.extract`, answers `{ task }` at once,
 * reports through `task` events (stage, fraction, the result or the error at the end) and stops
 * with `tasks.cancel`. Tasks are not training jobs: they have their own event so the training
 * views never mistake them for a job, and no journal (a capture resumes by importing again, a mesh
 * is quick to redo).
 */
const path = z.string().min(1).max(4096).refine((s) => !s.includes('\0'), 'a path cannot contain NUL');
const taskId = z.string().min(1).max(100);

export const TASK_KINDS = ['capture', 'mesh', 'video'] as const;
export const TASK_STATES = ['running', 'finished', 'failed', 'cancelled'] as const;
export const TaskStateSchema = z.enum(TASK_STATES);
export type TaskState = z.infer<typeof TaskStateSchema>;

/** The registry's capture.* and train.* parameters (train.* become the new project's own). */
export const captureImportParams = () => allParams().filter((p) => p.key.startsWith('capture.') || p.key.startsWith('train.'));
/** The registry's mesh.* parameters. */
export const meshParams = () => allParams().filter((p) => p.key.startsWith('mesh.'));

export const CaptureImportArgs = z.object({
  /** Video files and photo folders (absolute paths on the engine's machine), captured together. */
  inputs: z.array(path).min(1).max(64),
  /** Project name (the file is `<dir>/<name>.argo`); default: the first input's name. */
  name: z.string().min(1).max(200).regex(/^[^/\\:*?"<>|\0]+$/, 'a name cannot contain / \\ : * ? " < > |').optional(),
  /** Folder for the project; default: the first input's folder. */
  dir: path.optional(),
  params: paramsSchema(captureImportParams()).default({}),
}).strict();

/** The structure-from-motion report, as the Home view shows it (the full one is capture/report.json). */
export const CaptureReportSchema = z.object({
  datasetDir: z.string(),
  registered: z.number().int(),
  total: z.number().int(),
  points: z.number().int(),
  /** Null when no model was built. */
  meanReprojectionErrorPx: z.number().nullable(),
  meanTrackLength: z.number(),
  matcher: z.string(),
  cameraModel: z.string(),
  models: z.array(z.object({ registered: z.number().int(), points: z.number().int() })),
  inputs: z.array(z.object({ name: z.string(), kind: z.enum(['video', 'photos']), images: z.number().int(), registered: z.number().int() })),
  timingsS: z.record(z.string(), z.number()),
  resumed: z.array(z.string()),
  diagnostics: z.array(z.object({ level: z.enum(['info', 'warn']), message: z.string() })),
  /** Who mapped (our SfM or COLMAP's mapper), and why COLMAP took over where it did; absent in reports from before --sfm. */
  sfm: z.object({ method: z.enum(['argonaut', 'colmap']), fallback: z.string().optional() }).optional(),
});
export type CaptureReportView = z.infer<typeof CaptureReportSchema>;

export const MESH_FILE_FORMATS = ['glb', 'ply', 'obj'] as const;

export const MeshExtractArgs = z.object({
  /** A .argo project with trained splats and a dataset (its training cameras are the views fused). */
  project: path,
  /** The mesh file to write; its extension picks the format (.glb, .ply, .obj); its folder must exist. */
  path,
  params: paramsSchema(meshParams()).default({}),
}).strict();

export const TaskResultSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('capture'), project: ProjectSummarySchema, report: CaptureReportSchema }),
  z.object({
    kind: z.literal('mesh'),
    path: z.string(),
    format: z.enum(MESH_FILE_FORMATS),
    bytes: z.number().int(),
    triangles: z.number().int(),
    vertices: z.number().int(),
    views: z.number().int(),
    grid: z.array(z.number().int()),
    timingsS: z.record(z.string(), z.number()),
  }),
  // A camera path's MP4 (shared/contract/paths.ts: paths.render).
  z.object({
    kind: z.literal('video'),
    path: z.string(),
    pathId: z.string(),
    frames: z.number().int(),
    width: z.number().int(),
    height: z.number().int(),
    fps: z.number().int(),
    durationS: z.number(),
    bytes: z.number().int(),
    seconds: z.number(),
  }),
]);
export type TaskResult = z.infer<typeof TaskResultSchema>;

export const TaskStatusSchema = z.object({
  task: z.string(),
  kind: z.enum(TASK_KINDS),
  state: TaskStateSchema,
  /** What it works on: the inputs of a capture, the project of a mesh or video. */
  title: z.string(),
  /** The current stage (capture: probe, scan, extract, photos, features, matching, mapping, bundle, import, verify; mesh: load, fuse, march, clean, simplify, write; video: load, render). */
  stage: z.string().optional(),
  /** 0..1 within the stage. */
  fraction: z.number().min(0).max(1).optional(),
  message: z.string().optional(),
  /** The stage's result came from an earlier run (a resumed capture). */
  skipped: z.boolean().optional(),
  startedMs: z.number(),
  result: TaskResultSchema.optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  /** A capture that failed after structure from motion ran: its report (diagnostics say what to try). */
  report: CaptureReportSchema.optional(),
});
export type TaskStatus = z.infer<typeof TaskStatusSchema>;

/** A task's state or stage changed (progress at most a few times a second per task). */
export const TaskEvent = TaskStatusSchema;

export const TaskRef = z.object({ task: taskId }).strict();

export const MeshPreviewArgs = z.object({ task: taskId }).strict();
/** A finished mesh task's mesh (typed arrays, sent as raw bytes): positions xyz, sRGB colours rgb8, triangle indices. */
export const MeshPreviewResult = z.object({
  positions: z.instanceof(Float32Array),
  colors: z.instanceof(Uint8Array),
  indices: z.instanceof(Uint32Array),
  normals: z.instanceof(Float32Array).optional(),
});
