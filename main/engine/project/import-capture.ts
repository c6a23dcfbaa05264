/**
 * A project from video clips and photo folders: `captureToDataset` writes a posed dataset into the
 * project's own data folder (`<name>.argo.data/dataset`: images, COLMAP model, capture/report.json),
 * then the project is created on it like any imported dataset, with the capture sources and the
 * structure-from-motion result in the manifest.
 *
 * Resumable: the project file is written last, so a cancelled or crashed capture leaves only its
 * data folder; importing the same inputs into the same project file again continues it (finished
 * stages are skipped, see capture.ts). A data folder holding anything but that capture is refused.
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ParamValue } from '../../../shared/params/index.js';
import type { CaptureRecord, CaptureSource } from '../../../shared/project/manifest.js';
import { badInput } from '../../../shared/rpc/errors.js';
import { captureToDataset, type CaptureOptions, type CaptureReport } from '../capture/capture.js';
import { resolveInputs } from '../capture/capture-inputs.js';
import { findColmapModel } from '../dataset/colmap.js';
import type { Dataset } from '../dataset/dataset.js';
import { PHOTO_EXTENSIONS } from '../capture/photos.js';
import { isFile } from '../dataset/source-view.js';
import { splatFormatOf } from '../formats/splat-files.js';
import { sniffVideoFile, VIDEO_EXTENSIONS } from '../formats/video-signature.js';
import { checkTarget, importDataset, type ImportDatasetOptions } from './import.js';
import { defaultDataDirName, toManifestPath } from './paths.js';
import type { Project } from './project.js';

export type ImportRoute = 'dataset' | 'splat' | 'capture';

/**
 * What `import` makes of its inputs: one splat file (.ply, .splat, .spz, .sog, .glb), one dataset (a folder with a COLMAP model or
 * transforms JSON, or a JSON file), or capture inputs (video files, folders of photos). A single
 * path that fits none goes the dataset way, whose loader says what it expected; an empty or
 * renamed "video" is refused here, naming the file.
 */
export async function importRoute(paths: readonly string[]): Promise<ImportRoute> {
  if (paths.length > 1) return 'capture';
  const [only] = paths;
  if (splatFormatOf(only)) return 'splat';
  const info = await stat(only).catch(() => undefined);
  if (!info) return 'dataset';
  if (info.isFile()) {
    if (only.toLowerCase().endsWith('.json')) return 'dataset';
    const container = await sniffVideoFile(only);
    return container || VIDEO_EXTENSIONS.includes(path.extname(only).toLowerCase()) ? 'capture' : 'dataset';
  }
  if ((await findColmapModel(only)) || (await isFile(path.join(only, 'transforms.json'))) || (await isFile(path.join(only, 'transforms_train.json')))) return 'dataset';
  const entries = await readdir(only).catch(() => [] as string[]);
  return entries.some((e) => PHOTO_EXTENSIONS.has(path.extname(e).toLowerCase())) ? 'capture' : 'dataset';
}

/** The folder a capture for `projectFile` writes: `<name>.argo.data/dataset`. */
export function captureDatasetDir(projectFile: string): string {
  return path.join(path.dirname(projectFile), defaultDataDirName(projectFile), 'dataset');
}

/** A data folder may pre-exist only as an earlier, unfinished capture of this project (nothing but dataset/capture inside). */
async function checkDataDir(projectFile: string): Promise<void> {
  const dataDir = path.dirname(captureDatasetDir(projectFile));
  const entries = await readdir(dataDir).catch(() => undefined);
  if (entries === undefined || entries.length === 0) return;
  const earlierCapture = entries.every((e) => e === 'dataset') && (await stat(path.join(dataDir, 'dataset', 'capture')).then((s) => s.isDirectory(), () => false));
  if (!earlierCapture) throw badInput(dataDir, 'a data folder of that name already exists and is not an unfinished capture of this project; move it away, or choose another project name');
}

/** The manifest's summary of a capture report. */
export function captureRecordOf(report: CaptureReport, projectDir: string): CaptureRecord {
  return {
    report: toManifestPath(projectDir, path.join(report.datasetDir, 'capture', 'report.json')),
    registered: report.registered,
    total: report.total,
    points: report.points,
    meanReprojectionErrorPx: Number.isFinite(report.meanReprojectionErrorPx) ? report.meanReprojectionErrorPx : null,
    matcher: report.matcher,
    cameraModel: report.cameraModel,
    diagnostics: report.diagnostics.map((d) => ({ level: d.level, message: d.message })),
    capturedAt: new Date().toISOString(),
  };
}

export interface ImportCaptureOptions extends CaptureOptions {
  /** Project parameters (train.* kept). */
  params?: Readonly<Record<string, ParamValue>>;
  verifyImages?: boolean;
  onImportProgress?: ImportDatasetOptions['onProgress'];
  warn?: (message: string) => void;
}

/** `import <video|photos>... --project p.argo`: capture, then a project on the captured dataset. */
export async function importCapture(inputPaths: readonly string[], projectFile: string, options: ImportCaptureOptions = {}): Promise<{ project: Project; dataset: Dataset; report: CaptureReport }> {
  const file = path.resolve(projectFile);
  await checkTarget(file, { dataDir: false });
  // Inputs before the data folder: a missing clip is named before anything is written.
  const inputs = await resolveInputs(inputPaths);
  for (const input of inputs) if (input.kind === 'video') await sniffVideoFile(input.path);
  await checkDataDir(file);
  const { params: given, verifyImages, onImportProgress, warn, ...capture } = options;
  // A mask folder given with photos is the capture's (resized with the photos into the dataset's
  // masks/, where training finds it): the project keeps no path to the user's full-size masks.
  const { 'train.masks': masks, ...params } = given ?? {};
  if (typeof masks === 'string' && masks !== '') capture.masks = masks;
  const { datasetDir, report } = await captureToDataset(inputs.map((i) => i.path), captureDatasetDir(file), capture);
  const projectDir = path.dirname(file);
  const importedAt = new Date().toISOString();
  const sources: CaptureSource[] = inputs.map((i) => ({ kind: i.kind, path: toManifestPath(projectDir, i.path), importedAt }));
  const { project, dataset } = await importDataset(datasetDir, file, {
    params,
    verifyImages,
    onProgress: onImportProgress,
    warn,
    captured: { sources, record: captureRecordOf(report, projectDir) },
  });
  return { project, dataset, report };
}
