/**
 * A project's saved camera paths (`manifest.cameraPaths`, shared/scene/camera-path.ts): saved by
 * id (a path saved again replaces the old one in place), deleted by id, written through
 * Project.save (validated, atomic).
 */
import { ArgonautError } from '../../../shared/rpc/errors.js';
import { CameraPathSchema, type CameraPath } from '../../../shared/scene/camera-path.js';
import type { Project } from './project.js';

export function listCameraPaths(project: Project): CameraPath[] {
  return project.manifest.cameraPaths;
}

/** Saves `path` (validated again: callers inside the engine skip the contract). */
export async function saveCameraPath(project: Project, path: CameraPath): Promise<CameraPath[]> {
  const checked = CameraPathSchema.safeParse(path);
  if (!checked.success) throw new ArgonautError('invalid_argument', `${project.file}: camera path '${path.id}' is invalid (${checked.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')})`);
  const paths = project.manifest.cameraPaths;
  const at = paths.findIndex((p) => p.id === path.id);
  if (at >= 0) paths[at] = checked.data;
  else paths.push(checked.data);
  await project.save();
  return paths;
}

export async function deleteCameraPath(project: Project, id: string): Promise<CameraPath[]> {
  const paths = project.manifest.cameraPaths;
  const at = paths.findIndex((p) => p.id === id);
  if (at < 0) throw new ArgonautError('not_found', `${project.file}: no saved camera path '${id}' (saved: ${paths.map((p) => p.id).join(', ') || 'none'})`, { file: project.file, id });
  paths.splice(at, 1);
  await project.save();
  return paths;
}
