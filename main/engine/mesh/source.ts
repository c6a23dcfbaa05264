/**
 * Where extraction's input comes from outside a project: trained splats (a PLY, or a `train --out`
 * folder holding splats.ply and metrics.json) and the dataset whose training cameras the views are
 * rendered from. A project's input is project/mesh-input.ts's (mesh sits below project). Everything
 * ends as a MeshInput (splats + cameras), so extraction knows nothing of where they came from.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { ArgonautError, badInput } from '../../../shared/rpc/errors.js';
import { loadDataset } from '../dataset/dataset.js';
import { readPly } from '../formats/ply.js';
import type { MeshInput } from './extract.js';
import { loadImageAlpha } from './view-alpha.js';

export interface MeshSourceFiles {
  splatsFile: string;
  datasetDir: string;
}

async function kindOf(p: string): Promise<'file' | 'dir' | undefined> {
  try {
    const s = await stat(p);
    return s.isDirectory() ? 'dir' : s.isFile() ? 'file' : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Resolves `input` (a splats PLY, or a training output folder) and the dataset folder: `data`
 * when given, else the `dataset` a training run recorded in the folder's metrics.json.
 */
export async function resolveMeshSource(input: string, data?: string): Promise<MeshSourceFiles> {
  const kind = await kindOf(input);
  if (!kind) throw badInput(input, 'not found (expected a splats .ply or a training output folder)');
  const splatsFile = kind === 'dir' ? path.join(input, 'splats.ply') : input;
  if ((await kindOf(splatsFile)) !== 'file') throw badInput(splatsFile, 'not found: the folder has no splats.ply (is it a `train --out` folder?)');
  let datasetDir = data;
  if (!datasetDir && kind === 'dir') {
    try {
      const metrics = JSON.parse(await readFile(path.join(input, 'metrics.json'), 'utf8')) as { dataset?: unknown };
      if (typeof metrics.dataset === 'string') datasetDir = metrics.dataset;
    } catch {
      // no record: --data is required below
    }
  }
  if (!datasetDir) throw new ArgonautError('invalid_argument', `mesh needs --data <dataset folder> (the cameras to render from): ${input} does not record its dataset`);
  if ((await kindOf(datasetDir)) !== 'dir') throw badInput(datasetDir, 'dataset folder not found');
  return { splatsFile, datasetDir };
}

/**
 * Reads the splats and the dataset's training cameras; with `imageAlpha` also the training
 * images' alpha for free-space carving (view-alpha.ts; else no image is decoded).
 */
export async function loadMeshInput(source: MeshSourceFiles, options: { imageAlpha?: boolean; warn?: (message: string) => void } = {}): Promise<MeshInput & { datasetName: string }> {
  const [splats, dataset] = await Promise.all([readPly(source.splatsFile), loadDataset(source.datasetDir)]);
  const train = dataset.views.filter((v) => v.split === 'train');
  const views = train.length ? train : dataset.views;
  const imageAlpha = options.imageAlpha ? await loadImageAlpha(dataset, views, 1, options.warn) : undefined;
  return { splats, cameras: views.map((v) => v.camera), imageAlpha, datasetName: path.basename(path.resolve(source.datasetDir)) };
}
