import { z } from 'zod';
import { defineContract, method } from '../rpc/define.js';
import { BlockEvent, DeviceLostEvent, ErrorEvent, EvaluationEvent, HostEvent, JobEvent, LogEvent, MergeEvent, MetricsEvent, OpenProjectEvent, ProfileEvent, ProgressEvent, SnapshotEvent } from './events.js';
import { EditsApplyArgs, EditsProjectArgs, EditStateResult } from './edits.js';
import { EditsCleanPreviewArgs, EditsCleanPreviewResult, EditsSelectArgs, EditsSelectResult } from './edit-select.js';
import { GpuInfoSchema } from './gpu.js';
import { ExportSplatsArgs, ExportSplatsResult, ExportWebArgs, ExportWebResult, JobControlResult, JobRef, JobStatusSchema, ProjectCreateArgs, ProjectImageArgs, ProjectImageResult, ProjectSceneResult, ProjectSplatsArgs, ProjectSplatsResult, ProjectSummarySchema, TrainStartArgs } from './projects.js';
import { PartitionMakeArgs, PartitionsArgs, PartitionsResult, TrainPartitionedArgs } from './partitions.js';
import { PartitionSchema } from '../project/partition.js';
import { PathsDeleteArgs, PathsListArgs, PathsRenderArgs, PathsResult, PathsSaveArgs } from './paths.js';
import { SettingsApplyArgs, SettingsApplyResult, SettingsResult } from './settings.js';
import { AppCommandEvent, DialogOpenArgs, DialogResult, DialogSaveArgs } from './shell.js';
import { CaptureImportArgs, MeshExtractArgs, MeshPreviewArgs, MeshPreviewResult, TaskEvent, TaskRef, TaskStateSchema, TaskStatusSchema } from './tasks.js';

/**
 * The one typed contract between the renderer, Electron main, the browser-mode server, the
 * engine host and the CLI. Every argument has a schema; the serving side parses it before any
 * service code runs. Services grow with the product; nothing here is declared before it is served.
 */
export const contract = defineContract({
  services: {
    system: {
      ping: method(z.object({}).strict(), z.object({ pong: z.literal(true), pid: z.number(), uptimeS: z.number() }), 'liveness check of the engine host'),
      info: method(z.object({}).strict(), GpuInfoSchema, 'the GPU adapter, backend, features and limits the engine uses'),
      version: method(z.object({}).strict(), z.object({ app: z.string(), node: z.string(), platform: z.string() }), 'versions of the engine host'),
    },
    projects: {
      create: method(ProjectCreateArgs, ProjectSummarySchema, 'a new .argo project from a dataset folder, a splat PLY or the sample scene'),
      open: method(z.object({ path: z.string().min(1).max(4096) }).strict(), ProjectSummarySchema, 'opens a .argo project (migrating older versions) and adds it to the recent list'),
      recent: method(z.object({}).strict(), z.object({ projects: z.array(ProjectSummarySchema) }), 'recently opened projects that still exist, newest first'),
      scene: method(z.object({ project: z.string().min(1).max(4096) }).strict(), ProjectSceneResult, "a project's cameras and SfM points (typed arrays, sent as raw bytes)"),
      image: method(ProjectImageArgs, ProjectImageResult, "a training view's photo as training sees it (undistorted, downscaled), as PNG"),
      splats: method(ProjectSplatsArgs, ProjectSplatsResult, "a project's newest splats, edits applied unless raw, in the viewer's 32-byte layout (binary, never JSON)"),
      partition: method(PartitionMakeArgs, PartitionSchema, "splits a project's scene into overlapping blocks on its ground plane (cameras by visibility) and keeps the partition in the project"),
      partitions: method(PartitionsArgs, PartitionsResult, "a project's partitions and its runs trained as blocks (each block's state, step and worker; the merge)"),
      blockSplats: method(PartitionsArgs, ProjectSplatsResult, "the newest block-trained run's finished blocks, each cropped to its core and joined, in the viewer's 32-byte layout (the scene so far, while other blocks train)"),
    },
    train: {
      start: method(TrainStartArgs, z.object({ job: z.string() }), 'starts (or continues) training on the sample scene, a dataset or a project'),
      partitioned: method(TrainPartitionedArgs, z.object({ job: z.string() }), "starts (or continues) training a project as the blocks of one of its partitions, in the engine or as jobs on a Redis queue for workers, then merges them (block and merge events; stop keeps it resumable)"),
      pause: method(JobRef, JobControlResult, 'pauses a job after saving a checkpoint'),
      resume: method(JobRef, JobControlResult, 'resumes a paused, stopped or interrupted job from its newest checkpoint'),
      stop: method(JobRef, JobControlResult, 'stops a job after saving a checkpoint (it can be resumed later)'),
      status: method(z.object({}).strict(), z.object({ jobs: z.array(JobStatusSchema) }), 'every job this engine knows, newest first'),
    },
    export: {
      splats: method(ExportSplatsArgs, ExportSplatsResult, "writes a project's or a job's newest splats as PLY, .splat or SPZ"),
      web: method(ExportWebArgs, ExportWebResult, "writes a project's newest splats and its camera paths as a web viewer: a folder with index.html, or one HTML file"),
    },
    capture: {
      import: method(CaptureImportArgs, z.object({ task: z.string() }), 'video clips and photo folders -> frames -> COLMAP -> a new project on the captured dataset, as a cancellable task (task events)'),
    },
    edits: {
      get: method(EditsProjectArgs, EditStateResult, "a project's edit list on its newest splats and what it does (operations per kind, splats before and after)"),
      apply: method(EditsApplyArgs, EditStateResult, 'adds an operation (its selection: sorted, distinct base indices, as raw bytes) to the edit list; the redo stack is dropped'),
      undo: method(EditsProjectArgs, EditStateResult, 'undoes the newest edit (kept for redo)'),
      redo: method(EditsProjectArgs, EditStateResult, 'applies the most recently undone edit again'),
      clear: method(EditsProjectArgs, EditStateResult, "empties the edit list: the newest splats show as trained (older bases' lists stay in the history)"),
      select: method(EditsSelectArgs, EditsSelectResult, "a selection on the GPU: a shape (rect, lasso, brush through the viewer's camera; box, ellipsoid; opacity, size or colour range) combined with the current bitmask by mode, over the edited splats' base indices; the new bitmask (raw bytes) and its count"),
      cleanPreview: method(EditsCleanPreviewArgs, EditsCleanPreviewResult, 'what the floater cleanup would remove at these edit.clean* parameters (sorted base indices, raw bytes) and how many splats meet each criterion'),
    },
    mesh: {
      extract: method(MeshExtractArgs, z.object({ task: z.string() }), "extracts a mesh from a project's newest splats to GLB, PLY or OBJ, as a cancellable task (task events)"),
      preview: method(MeshPreviewArgs, MeshPreviewResult, "a finished mesh task's mesh for the preview (typed arrays, sent as raw bytes)"),
    },
    paths: {
      list: method(PathsListArgs, PathsResult, "a project's saved camera paths"),
      save: method(PathsSaveArgs, PathsResult, 'saves a camera path in the project (replacing the one with its id); answers every saved path'),
      delete: method(PathsDeleteArgs, PathsResult, 'deletes a saved camera path; answers the ones left'),
      render: method(PathsRenderArgs, z.object({ task: z.string() }), "renders a camera path of a project's newest splats to an H.264 MP4 (ffmpeg), as a cancellable task (task events)"),
    },
    tasks: {
      cancel: method(TaskRef, z.object({ task: z.string(), state: TaskStateSchema }), 'cancels a running capture, mesh or video task (a capture resumes when imported again)'),
      status: method(z.object({}).strict(), z.object({ tasks: z.array(TaskStatusSchema) }), 'capture, mesh and video tasks this engine ran or runs, newest first'),
    },
    settings: {
      get: method(z.object({}).strict(), SettingsResult, 'the GPU settings the engine host runs with, and where each value came from'),
      apply: method(SettingsApplyArgs, SettingsApplyResult, 'saves GPU settings and restarts the engine host with them (refused while a job trains)'),
    },
    dialog: {
      open: method(DialogOpenArgs, DialogResult, 'a native picker for a dataset folder, splat PLY, project or folder (desktop app only)'),
      save: method(DialogSaveArgs, DialogResult, 'a native save dialog for an export (desktop app only)'),
    },
  },
  events: {
    log: LogEvent,
    progress: ProgressEvent,
    metrics: MetricsEvent,
    evaluation: EvaluationEvent,
    snapshot: SnapshotEvent,
    block: BlockEvent,
    merge: MergeEvent,
    job: JobEvent,
    task: TaskEvent,
    profile: ProfileEvent,
    openProject: OpenProjectEvent,
    appCommand: AppCommandEvent,
    error: ErrorEvent,
    host: HostEvent,
    deviceLost: DeviceLostEvent,
  },
});

export type Contract = typeof contract;
export type Services = Contract['services'];
export type Events = Contract['events'];
export { GpuInfoSchema } from './gpu.js';
export type { JobState, JobStatus, ProjectSummary, TrainSource } from './projects.js';
export type { GpuInfo, BackendChoice } from './gpu.js';
export type { Settings, SettingSource } from './settings.js';
export type { AppCommandId } from './shell.js';
export type { EditState, EditSummary, NewEditOperation } from './edits.js';
export type { CaptureReportView, TaskResult, TaskState, TaskStatus } from './tasks.js';
