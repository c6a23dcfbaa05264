/**
 * A project's scene as the partition sees it: its dataset's posed views (by split) and SfM
 * points, loaded without images. The views' names and split are the ones training sees
 * (trainingDataFromPath loads the same dataset with the same split), so a block's camera names
 * select its training views.
 */
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import { badInput } from '../../../shared/rpc/errors.js';
import { loadDataset } from '../dataset/dataset.js';
import type { Project } from '../project/project.js';
import type { SplitCamera } from './split.js';

export interface PartitionScene {
  /** The project file: what errors name. */
  source: string;
  train: SplitCamera[];
  test: SplitCamera[];
  /** xyz triples. */
  points: Float32Array;
  colors: Uint8Array;
}

export async function partitionScene(project: Project): Promise<PartitionScene> {
  const training = await project.trainingSource();
  if (training.kind !== 'dataset') throw badInput(project.file, 'the sample scene has no SfM points to split; partition a project made from a dataset or a capture');
  const dataset = await loadDataset(training.path);
  if (!dataset.points || dataset.points.positions.length < 3) throw badInput(project.file, `its dataset ${training.path} has no SfM points to split the scene by (partitioning needs points: a COLMAP model or a capture)`);
  const views = (split: 'train' | 'test') => dataset.views.filter((v) => v.split === split).map((v) => ({ name: v.name, camera: v.camera as PinholeCamera }));
  return { source: project.file, train: views('train'), test: views('test'), points: dataset.points.positions, colors: dataset.points.colors };
}
