import { PROJECT_EXTENSION } from '../../shared/project/manifest.js';

/** Whether a command's input names a project file (`.argo`, any case) rather than a dataset, folder or PLY. */
export function isProjectFile(input: string | undefined): input is string {
  return typeof input === 'string' && input.toLowerCase().endsWith(PROJECT_EXTENSION);
}
