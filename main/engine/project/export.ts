/**
 * Exports of splats to the formats other tools read (formats/splat-files.ts: the 3DGS PLY,
 * antimatter15's `.splat`, Niantic's SPZ v4, glTF binary with KHR_gaussian_splatting). Written
 * atomically; a project records each export.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { ExportFormat } from '../../../shared/project/manifest.js';
import { badInput } from '../../../shared/rpc/errors.js';
import type { SplatSet } from '../../../shared/scene/splats.js';
import { writeSplatsAs } from '../formats/splat-files.js';
import type { Project } from './project.js';
import { projectSplats } from './splats.js';

export interface ExportResult {
  path: string;
  format: ExportFormat;
  bytes: number;
  splats: number;
  /** SPZ: positions clamped to its 24-bit range. */
  clamped?: number;
}

/** Refuses a target whose folder is missing, or which is a folder itself, before any work. */
export async function checkExportTarget(file: string): Promise<void> {
  const folder = await stat(path.dirname(file)).catch(() => undefined);
  if (!folder?.isDirectory()) throw badInput(file, `cannot write: the folder ${path.dirname(file)} does not exist`);
  const existing = await stat(file).catch(() => undefined);
  if (existing?.isDirectory()) throw badInput(file, 'cannot write: it is a folder');
}

export async function exportSplats(splats: SplatSet, format: ExportFormat, file: string, options: { antialiased?: boolean } = {}): Promise<ExportResult> {
  const target = path.resolve(file);
  await checkExportTarget(target);
  const { clamped } = await writeSplatsAs(format, target, splats, options);
  const { size } = await stat(target);
  return { path: target, format, bytes: size, splats: splats.count, ...(clamped !== undefined ? { clamped } : {}) };
}

/** Exports a project's newest splats and records the export in its manifest. */
export async function exportProject(project: Project, format: ExportFormat, file: string, warn?: (m: string) => void): Promise<ExportResult & { run: string; step: number }> {
  await checkExportTarget(path.resolve(file));
  const found = await projectSplats(project, warn);
  const result = await exportSplats(found.splats, format, file, { antialiased: Boolean(found.run.params['train.antialiased']) });
  project.manifest.exports.push({ format, path: project.relative(result.path), run: found.run.id, step: found.step, splats: result.splats, bytes: result.bytes, createdAt: new Date().toISOString() });
  await project.save();
  return { ...result, run: found.run.id, step: found.step };
}
