import { loadDataset, type Dataset } from '../dataset/dataset.js';
import { loadViewImage, type AlphaUse } from '../dataset/view-image.js';
import { loadViewImageRgb8OffThread } from '../dataset/view-image-pool.js';
import { resolveCacheDir } from '../formats/image-cache.js';
import type { TrainingData } from './data.js';
import type { ParamValues } from '../../../shared/params/index.js';

/** The registry's `train.background` choices. */
export type BackgroundChoice = ParamValues['train.background'];

export interface DatasetDataOptions {
  downscale?: number;
  background?: BackgroundChoice;
  testEvery?: number;
  /** Mask folder (loadDataset's `masks`); empty or undefined: the dataset's own masks/ when present. */
  masks?: string;
  /** The registry's `train.alpha`: 'random' keeps alpha for the loss (view-image.ts's 'coverage', images composited over black). */
  alpha?: ParamValues['train.alpha'];
  /** Keep only these views (after the split): protocols that evaluate on a subset. */
  filter?: (view: Dataset['views'][number], index: number) => boolean;
  warn?: (message: string) => void;
}

/** The registry's `train.alpha` as what view images do with alpha. */
export function alphaUseOf(choice: ParamValues['train.alpha']): AlphaUse {
  return choice === 'random' ? 'coverage' : choice;
}

export function backgroundColour(choice: BackgroundChoice, datasetDefault?: readonly number[]): [number, number, number] {
  if (choice === 'white') return [1, 1, 1];
  if (choice === 'black') return [0, 0, 0];
  return datasetDefault ? [datasetDefault[0], datasetDefault[1], datasetDefault[2]] : [0, 0, 0];
}

/**
 * A dataset on disk (COLMAP, transforms.json, NeRF-synthetic) as training data: images decoded
 * (sharp, on libuv's thread pool), undistorted, downscaled, composited over the background, and cached on disk so
 * the next run loads instantly. `dispose()` releases nothing today; callers keep calling it.
 */
export async function trainingDataFromPath(datasetPath: string, options: DatasetDataOptions = {}): Promise<TrainingData & { dataset: Dataset; dispose(): void }> {
  const downscale = options.downscale ?? 1;
  const probe = await loadDataset(datasetPath, { downscale, testEvery: options.testEvery, ...(options.masks ? { masks: options.masks } : {}) });
  const background = backgroundColour(options.background ?? 'auto', probe.background);
  const views = probe.views.filter((v, i) => (options.filter ? options.filter(v, i) : true));
  const dataset = { ...probe, views };
  const cacheDir = await resolveCacheDir(dataset.root);
  const alpha = alphaUseOf(options.alpha ?? 'background');
  return {
    name: datasetPath,
    dataset,
    views: views.map((v) => ({ name: v.name, camera: v.camera, split: v.split })),
    background,
    sceneScale: dataset.sceneScale,
    posesEstimated: dataset.format !== 'nerf-synthetic',
    points: dataset.points,
    photographed: dataset.format !== 'nerf-synthetic',
    // NeRF-synthetic objects sit in [-1.3, 1.3]^3 (the 3DGS random initialization box)
    ...(dataset.format === 'nerf-synthetic' ? { initBox: [-1.3, -1.3, -1.3, 1.3, 1.3, 1.3] as [number, number, number, number, number, number] } : {}),
    loadImage: async (index) => (await loadViewImage(views[index], { downscale, background, cacheDir, alpha, warn: options.warn })).rgb,
    loadImageRgb8: async (index) => (await loadViewImageRgb8OffThread(views[index], { downscale, background, cacheDir, alpha, warn: options.warn })).data,
    dispose: () => undefined,
  };
}
