/**
 * Paths inside a project. A manifest stores paths relative to the folder holding the .argo file
 * (forward slashes), so a project folder moves in one piece; a path on another drive (Windows)
 * stays absolute.
 */
import path from 'node:path';
import { PROJECT_EXTENSION } from '../../../shared/project/manifest.js';
import { badInput } from '../../../shared/rpc/errors.js';

/** `statue.argo` -> `statue.argo.data`: the data folder a new project gets. */
export function defaultDataDirName(file: string): string {
  return `${path.basename(file)}.data`;
}

/** A path as the manifest stores it. */
export function toManifestPath(projectDir: string, target: string): string {
  const relative = path.relative(projectDir, target);
  if (relative === '') return '.';
  if (path.isAbsolute(relative)) return target; // another drive
  return relative.split(path.sep).join('/');
}

/** A manifest path on this machine. */
export function fromManifestPath(projectDir: string, stored: string): string {
  return path.resolve(projectDir, stored.split('/').join(path.sep));
}

/** Refuses anything but a `.argo` path for a new project (the OS file association depends on it). */
export function checkProjectFileName(file: string): void {
  if (path.extname(file).toLowerCase() !== PROJECT_EXTENSION) throw badInput(file, `a project file must end in ${PROJECT_EXTENSION}`);
}
