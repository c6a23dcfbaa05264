import { z } from 'zod';
import { CameraPathSchema, VideoSettingsSchema } from '../scene/camera-path.js';

/**
 * Camera paths saved in a project (`manifest.cameraPaths`) and their video renders. `paths.render`
 * starts a cancellable `video` task (shared/contract/tasks.ts: task events, tasks.cancel) and
 * renders the path it is given, saved or not, so the panel renders what it shows.
 */
const path = z.string().min(1).max(4096).refine((s) => !s.includes('\0'), 'a path cannot contain NUL');

export const PathsListArgs = z.object({ project: path }).strict();
export const PathsResult = z.object({ paths: z.array(CameraPathSchema) });

/** Saves `path`, replacing the saved path with its id. */
export const PathsSaveArgs = z.object({ project: path, path: CameraPathSchema }).strict();

export const PathsDeleteArgs = z.object({ project: path, id: CameraPathSchema.shape.id }).strict();

export const PathsRenderArgs = z.object({
  project: path,
  path: CameraPathSchema,
  /** The MP4 to write (absolute; its folder must exist). */
  out: path,
  settings: VideoSettingsSchema,
}).strict();
