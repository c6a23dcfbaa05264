/**
 * New projects from what the user has: an existing dataset (COLMAP, transforms.json,
 * NeRF-synthetic), the built-in sample scene, or a trained splat file. A dataset is loaded and
 * every image decoded before the project file is written (a project never points at a dataset
 * that cannot train); the decodes fill the image cache, so the first training starts at once.
 *
 * Datasets are referenced by default (they are large and usually kept elsewhere), by a path
 * relative to the project folder; `copy` puts a copy in the data folder instead, so the project
 * folder is self-contained.
 */
import { cp, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { type ParamValue } from '../../../shared/params/index.js';
import { projectParamDefs, type CaptureRecord, type CaptureSource, type DatasetRef, type ProjectParams } from '../../../shared/project/manifest.js';
import { badInput } from '../../../shared/rpc/errors.js';
import { loadDataset, type Dataset } from '../dataset/dataset.js';
import { mapLimit } from '../dataset/source-view.js';
import { IMAGES_IN_FLIGHT, loadViewImage } from '../dataset/view-image.js';
import { makeFolder, writeError } from '../formats/atomic-file.js';
import { resolveCacheDir } from '../formats/image-cache.js';
import { writePly } from '../formats/ply.js';
import { readSplatsFile } from '../formats/splat-files.js';
import { refuseVideoLikeFile } from '../formats/video-signature.js';
import { alphaUseOf, backgroundColour } from '../train/dataset-data.js';
import { trainParamValues } from '../train/trainer-config.js';
import { checkProjectFileName, defaultDataDirName } from './paths.js';
import { Project } from './project.js';

export interface ImportDatasetOptions {
  /** Project parameters given at import (only train.* keys are kept). */
  params?: Readonly<Record<string, ParamValue>>;
  /** Copy the dataset into the data folder. */
  copy?: boolean;
  /** Decode every image now (default true). */
  verifyImages?: boolean;
  onProgress?: (stage: 'load' | 'verify' | 'copy', done: number, total: number) => void;
  warn?: (message: string) => void;
  /**
   * The dataset was captured into this project's data folder (import-capture.ts): the folder
   * exists already and is adopted, the dataset counts as the project's own (copied), and these
   * sources and the capture record go into the manifest.
   */
  captured?: { sources: CaptureSource[]; record: CaptureRecord };
}

/** Keeps the project's own parameters (train.*) from a mixed map. */
export function projectParamsOf(params: Readonly<Record<string, ParamValue>> = {}): ProjectParams {
  const keys = new Set(projectParamDefs().map((d) => d.key));
  return Object.fromEntries(Object.entries(params).filter(([k]) => keys.has(k)));
}

/** Refuses a target whose project file or data folder exists, before any slow work. */
export async function checkTarget(projectFile: string, { dataDir = true } = {}): Promise<void> {
  checkProjectFileName(projectFile);
  for (const [target, problem] of [
    [projectFile, 'the project file already exists; open it, or choose another name'],
    ...(dataDir ? [[path.join(path.dirname(projectFile), defaultDataDirName(projectFile)), 'a data folder of that name already exists; move it away, or choose another project name'] as const] : []),
  ] as const) {
    const exists = await stat(target).then(() => true, () => false);
    if (exists) throw badInput(target, problem);
  }
}

/** Decodes every view's image as training will (downscale, background), naming the first bad file. */
export async function verifyDatasetImages(dataset: Dataset, params: ProjectParams, onProgress?: (done: number, total: number) => void, warn?: (m: string) => void): Promise<void> {
  const values = trainParamValues(params);
  const downscale = values['train.downscale'];
  const background = backgroundColour(values['train.background'], dataset.background);
  const cacheDir = await resolveCacheDir(dataset.root);
  let done = 0;
  await mapLimit(dataset.views, IMAGES_IN_FLIGHT, async (view) => {
    // as training loads them (dataset-data.ts), so that training finds them in the cache
    const alpha = alphaUseOf(values['train.alpha']);
    await loadViewImage(view, { downscale, background, cacheDir, alpha, warn });
    onProgress?.(++done, dataset.views.length);
  });
}

function datasetRef(project: { relative(p: string): string }, dataset: Dataset, trainPath: string, copied: boolean): DatasetRef {
  const train = dataset.views.filter((v) => v.split === 'train').length;
  return {
    kind: 'folder',
    path: project.relative(trainPath),
    ...(copied ? {} : { absolutePath: trainPath }),
    copied,
    format: dataset.format,
    views: dataset.views.length,
    train,
    test: dataset.views.length - train,
    width: Math.max(...dataset.views.map((v) => v.camera.width)),
    height: Math.max(...dataset.views.map((v) => v.camera.height)),
    points: dataset.points ? dataset.points.positions.length / 3 : 0,
  };
}

/** `import <dataset> --project p.argo`: validates the dataset, then writes the project. */
export async function importDataset(datasetPath: string, projectFile: string, options: ImportDatasetOptions = {}): Promise<{ project: Project; dataset: Dataset }> {
  const file = path.resolve(projectFile);
  await checkTarget(file, { dataDir: !options.captured });
  const params = projectParamsOf(options.params);
  // a mask folder is kept absolute: training may run from another working directory
  if (typeof params['train.masks'] === 'string' && params['train.masks'] !== '') params['train.masks'] = path.resolve(params['train.masks']);
  if ((await stat(datasetPath).catch(() => undefined))?.isFile() && !datasetPath.toLowerCase().endsWith('.json')) await refuseVideoLikeFile(path.resolve(datasetPath));
  options.onProgress?.('load', 0, 1);
  const values = trainParamValues(params);
  const dataset = await loadDataset(datasetPath, { downscale: values['train.downscale'], ...(values['train.masks'] ? { masks: values['train.masks'] } : {}) });
  options.onProgress?.('load', 1, 1);
  if (options.verifyImages !== false) await verifyDatasetImages(dataset, params, (d, t) => options.onProgress?.('verify', d, t), options.warn);
  // What training opens: the folder, or the transforms JSON file the user named.
  let trainPath = path.resolve(datasetPath);
  const dataDir = path.join(path.dirname(file), defaultDataDirName(file));
  if (options.copy) {
    const isFile = (await stat(trainPath)).isFile();
    const from = isFile ? path.dirname(trainPath) : trainPath;
    const to = path.join(dataDir, 'dataset');
    options.onProgress?.('copy', 0, 1);
    try {
      await cp(from, to, { recursive: true, errorOnExist: true, force: false, filter: (src) => path.basename(src) !== '.argonaut-cache' });
    } catch (error) {
      await rm(dataDir, { recursive: true, force: true }); // ours: checkTarget proved it did not exist
      throw writeError(to, error);
    }
    options.onProgress?.('copy', 1, 1);
    trainPath = isFile ? path.join(to, path.basename(trainPath)) : to;
  }
  const relativeTo = { relative: (p: string) => path.relative(path.dirname(file), p).split(path.sep).join('/') || '.' };
  try {
    const project = await Project.create(file, {
      dataset: datasetRef(relativeTo, dataset, trainPath, Boolean(options.copy || options.captured)),
      sources: options.captured?.sources ?? [{ kind: 'dataset', path: relativeTo.relative(path.resolve(datasetPath)), importedAt: new Date().toISOString() }],
      ...(options.captured ? { capture: options.captured.record } : {}),
      params,
      adoptDataDir: Boolean(options.copy || options.captured),
    });
    return { project, dataset };
  } catch (error) {
    if (options.copy) await rm(dataDir, { recursive: true, force: true }).catch(() => undefined);
    throw error;
  }
}

/** A project on the built-in sample scene. */
export async function createSampleProject(projectFile: string, params?: Readonly<Record<string, ParamValue>>): Promise<Project> {
  return Project.create(projectFile, { dataset: { kind: 'sample' }, sources: [{ kind: 'sample', importedAt: new Date().toISOString() }], params: projectParamsOf(params) });
}

/**
 * A project holding a trained splat file (any format of formats/splat-files.ts), kept in the data
 * folder as the PLY of a finished run, so it can be viewed, rendered from a camera file and
 * exported. The file's antialiased flag, where its format has one, becomes the run's parameter.
 */
export async function createSplatProject(splatPath: string, projectFile: string): Promise<Project> {
  const file = path.resolve(projectFile);
  await checkTarget(file);
  const { splats, antialiased } = await readSplatsFile(path.resolve(splatPath));
  const now = new Date().toISOString();
  const project = await Project.create(file, { sources: [{ kind: 'splat', path: path.relative(path.dirname(file), path.resolve(splatPath)).split(path.sep).join('/'), importedAt: now }] });
  try {
    const runDir = project.runDir('run-001');
    await makeFolder(runDir);
    const target = path.join(runDir, 'splats.ply');
    await writePly(target, splats);
    const defaults = Object.fromEntries(projectParamDefs().map((d) => [d.key, d.default]));
    if (antialiased !== undefined) defaults['train.antialiased'] = antialiased;
    project.manifest.runs.push({
      id: 'run-001', createdAt: now, updatedAt: now, params: defaults, status: 'finished', step: 0, total: 0, resumes: [],
      checkpointsDir: project.relative(path.join(runDir, 'checkpoints')), metrics: [], evaluations: [],
      outputs: { splats: project.relative(target), splatCount: splats.count },
    });
    await project.save();
    return project;
  } catch (error) {
    // Both were created by this call a moment ago (checkTarget proved neither existed).
    await rm(project.dataDir, { recursive: true, force: true }).catch(() => undefined);
    await rm(file, { force: true }).catch(() => undefined);
    throw error;
  }
}
