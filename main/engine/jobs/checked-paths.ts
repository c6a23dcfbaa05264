/**
 * Paths the renderer gives the engine host, checked before anything uses them: absolute, there,
 * a file or a folder as expected; every error names the path.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { PROJECT_EXTENSION } from '../../../shared/project/manifest.js';
import { ArgonautError, badInput } from '../../../shared/rpc/errors.js';

/** A renderer-given project path: absolute, an existing file, ending in .argo. */
export async function checkedProjectFile(file: string): Promise<string> {
  if (!path.isAbsolute(file)) throw badInput(file, `expected an absolute path to a ${PROJECT_EXTENSION} project file`);
  if (path.extname(file).toLowerCase() !== PROJECT_EXTENSION) throw badInput(file, `not a project file (expected a name ending in ${PROJECT_EXTENSION})`);
  const s = await stat(file).catch(() => undefined);
  if (!s) throw new ArgonautError('not_found', `${file}: project file not found`, { file });
  if (!s.isFile()) throw badInput(file, `is a folder, not a ${PROJECT_EXTENSION} project file`);
  return path.resolve(file);
}

/** A renderer-given dataset path: absolute, an existing folder (or a transforms .json file). */
export async function checkedDatasetPath(target: string): Promise<string> {
  if (!path.isAbsolute(target)) throw badInput(target, 'expected an absolute path to a dataset folder');
  const s = await stat(target).catch(() => undefined);
  if (!s) throw new ArgonautError('not_found', `${target}: dataset folder not found`, { file: target });
  if (!s.isDirectory() && !(s.isFile() && target.toLowerCase().endsWith('.json'))) throw badInput(target, 'is a file; expected a dataset folder (COLMAP, transforms.json, NeRF-synthetic)');
  return path.resolve(target);
}
