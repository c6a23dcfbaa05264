/**
 * Datasets as the trainer sees them: posed pinhole views (after undistortion and downscale), their
 * train/test split, optional SfM points and the scene scale. `loadDataset` detects the format and
 * delegates to one module per format (colmap.ts, transforms.ts, nerf-synthetic.ts); the parts all
 * formats share (options, split, downscale, scene scale, duplicate names) live here, once.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { ArgonautError, badInput } from '../../../shared/rpc/errors.js';
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import { downscaledSize } from '../formats/image-ops.js';
import { findColmapModel, readColmapDataset } from './colmap.js';
import { attachMasks } from './masks.js';
import { readNerfSynthetic } from './nerf-synthetic.js';
import { cameraCenter } from './pose.js';
import { isFile, type SourceDataset, type SourceView } from './source-view.js';
import { readTransformsJson } from './transforms.js';
import type { Dataset, DatasetView, Rgb } from './types.js';

export type { Dataset, DatasetFormat, DatasetView, Distortion, Rgb } from './types.js';

export interface LoadDatasetOptions {
  /** `--downscale F` (>= 1): images become round(W / F) x round(H / F). Default 1. */
  downscale?: number;
  background?: Rgb;
  /** Every testEvery-th view (index % testEvery == 0, sorted by name) is held out, unless the dataset has its own split. 0: none. Default 8. */
  testEvery?: number;
  /** Folder of per-view masks (masks.ts); default `<dataset>/masks` when it exists. */
  masks?: string;
}

export interface ResolvedOptions {
  downscale: number;
  background: Rgb | undefined;
  testEvery: number;
  masks?: string;
}

export function resolveOptions(options: LoadDatasetOptions): ResolvedOptions {
  const downscale = options.downscale ?? 1;
  if (typeof downscale !== 'number' || !Number.isFinite(downscale) || downscale < 1) {
    throw new ArgonautError('invalid_argument', `downscale must be a finite number >= 1, got ${String(options.downscale)}`);
  }
  const testEvery = options.testEvery ?? 8;
  if (!Number.isInteger(testEvery) || testEvery < 0) {
    throw new ArgonautError('invalid_argument', `testEvery must be an integer >= 0, got ${String(options.testEvery)}`);
  }
  const background = options.background;
  if (background !== undefined && (!Array.isArray(background) || background.length !== 3 || !background.every((c) => Number.isFinite(c) && c >= 0 && c <= 1))) {
    throw new ArgonautError('invalid_argument', `background must be three numbers in [0, 1], got ${JSON.stringify(background)}`);
  }
  if (options.masks !== undefined && (typeof options.masks !== 'string' || options.masks.length === 0)) {
    throw new ArgonautError('invalid_argument', `masks must be a folder path, got ${JSON.stringify(options.masks)}`);
  }
  return { downscale, background: background && ([...background] as Rgb), testEvery, ...(options.masks !== undefined ? { masks: options.masks } : {}) };
}

/** Intrinsics for an image resized from camera.width x camera.height to width x height. */
export function scaleCamera(camera: PinholeCamera, width: number, height: number): PinholeCamera {
  const sx = width / camera.width;
  const sy = height / camera.height;
  return { ...camera, width, height, fx: camera.fx * sx, fy: camera.fy * sy, cx: camera.cx * sx, cy: camera.cy * sy };
}

/** 3DGS getNerfppNorm: 1.1 x the largest distance of a camera centre from their mean; 1 for a single position. */
export function sceneScaleOf(cameras: readonly PinholeCamera[]): number {
  const centers = cameras.map((c) => cameraCenter(c.worldToCamera));
  if (centers.length === 0) return 1;
  const mean = [0, 1, 2].map((k) => centers.reduce((s, c) => s + c[k], 0) / centers.length);
  const radius = Math.max(...centers.map((c) => Math.hypot(c[0] - mean[0], c[1] - mean[1], c[2] - mean[2])));
  return radius > 0 ? radius * 1.1 : 1;
}

/** Shared last step of every loader: duplicate names, split, downscale, scene scale. */
export function finishDataset(source: SourceDataset, options: ResolvedOptions): Dataset {
  const seen = new Map<string, SourceView>();
  for (const view of source.views) {
    const first = seen.get(view.name);
    if (first) throw badInput(view.file, `${view.source}: duplicate image name "${view.name}" (also ${first.source})`);
    seen.set(view.name, view);
  }
  if (source.views.length === 0) throw badInput(source.root, 'the dataset has no views');
  const views: DatasetView[] = source.views.map((view, index) => {
    const size = downscaledSize(view.camera.width, view.camera.height, options.downscale);
    const split = view.split ?? (options.testEvery > 0 && index % options.testEvery === 0 ? 'test' : 'train');
    const out: DatasetView = { name: view.name, imagePath: view.imagePath, camera: scaleCamera(view.camera, size.width, size.height), split };
    if (view.distortion) out.distortion = view.distortion;
    if (view.maskPath) out.maskPath = view.maskPath;
    return out;
  });
  const train = views.filter((v) => v.split === 'train');
  const dataset: Dataset = {
    root: source.root,
    format: source.format,
    views,
    sceneScale: sceneScaleOf((train.length > 0 ? train : views).map((v) => v.camera)),
  };
  if (source.points) dataset.points = source.points;
  const background = options.background ?? source.defaultBackground;
  if (background) dataset.background = background;
  return dataset;
}

/**
 * Detects the format (COLMAP `sparse/`, NeRF-synthetic `transforms_train.json`, `transforms.json`,
 * in 3DGS's order) and loads it. `datasetPath` is the dataset folder, or a transforms JSON file.
 */
export async function loadDataset(datasetPath: string, options: LoadDatasetOptions = {}): Promise<Dataset> {
  const resolved = resolveOptions(options);
  const root = path.resolve(datasetPath);
  let info;
  try {
    info = await stat(root);
  } catch {
    throw badInput(root, 'dataset not found');
  }
  let source: SourceDataset;
  if (info.isFile()) {
    const base = path.basename(root);
    if (/^transforms_(train|test|val)\.json$/.test(base)) {
      source = await readNerfSynthetic(path.dirname(root));
    } else if (base.endsWith('.json')) {
      source = await readTransformsJson(root);
    } else {
      throw badInput(root, 'not a dataset: expected a folder, or a transforms.json file');
    }
  } else {
    const sparse = await findColmapModel(root);
    if (sparse) source = await readColmapDataset(root, sparse);
    else if (await isFile(path.join(root, 'transforms_train.json'))) source = await readNerfSynthetic(root);
    else if (await isFile(path.join(root, 'transforms.json'))) source = await readTransformsJson(path.join(root, 'transforms.json'));
    else {
      throw badInput(root, 'not a dataset folder: expected sparse/0/cameras.bin (or .txt), transforms_train.json or transforms.json');
    }
  }
  await attachMasks(source.views, source.root, resolved.masks);
  return finishDataset(source, resolved);
}

export { loadViewImage, loadViewImages, type ViewImage, type ViewImageOptions } from './view-image.js';
