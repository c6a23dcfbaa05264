/**
 * What one block trains on, for runTrainingJob (main/engine/train/job.ts): a view filter (its
 * training views are the block's cameras; its test views the held-out views that see its bounds,
 * by the same visibility test) and its initial splats, made from the SfM points inside its bounds
 * exactly as the trainer initialises from a dataset's points (init.ts: the same seed, strategy
 * start and SH degree), so a one-block partition starts where a whole-scene run starts.
 */
import { resolveParams, type ParamValue } from '../../../shared/params/index.js';
import { projectParamDefs } from '../../../shared/project/manifest.js';
import type { Partition, PartitionBlock } from '../../../shared/project/partition.js';
import { Random } from '../../../shared/random.js';
import { badInput } from '../../../shared/rpc/errors.js';
import type { SplatSet } from '../../../shared/scene/splats.js';
import type { Project } from '../project/project.js';
import { definedParams } from '../project/train-run.js';
import { MCMC_INITIAL_SPLATS } from '../train/densify-mcmc.js';
import { initialSplats } from '../train/init.js';
import type { TrainJobOptions } from '../train/job.js';
import { trainerConfigFromParams, trainParamValues } from '../train/trainer-config.js';
import { sceneScaleOf } from '../train/data.js';
import { partitionScene, type PartitionScene } from './scene.js';
import { camerasSeeingBlocks, pointsInRect } from './visibility.js';

export interface BlockTrainingInput {
  block: PartitionBlock;
  viewFilter: NonNullable<TrainJobOptions['viewFilter']>;
  initial: SplatSet;
  /** The views the filter keeps, by name. */
  trainViews: string[];
  testViews: string[];
}

export interface BlockInputOptions {
  /** The run's `train.*` parameters (default: the project's, resolved as a new run would). */
  params?: Readonly<Record<string, ParamValue>>;
  /** The scene already loaded (the sequential runner loads it once for all blocks). */
  scene?: PartitionScene;
}

/** The block of a partition, refused by name when it has none of that id. */
export function partitionBlock(partition: Partition, blockId: string, source: string): PartitionBlock {
  const block = partition.blocks.find((b) => b.id === blockId);
  if (!block) throw badInput(source, `${partition.id} has no block ${blockId} (it has ${partition.blocks.map((b) => b.id).join(', ')})`);
  return block;
}

export async function blockTrainingInput(project: Project, partition: Partition, blockId: string, options: BlockInputOptions = {}): Promise<BlockTrainingInput> {
  const block = partitionBlock(partition, blockId, project.file);
  const scene = options.scene ?? (await partitionScene(project));
  const params = options.params ?? resolveParams(projectParamDefs(), definedParams(project.manifest.params));
  const config = trainerConfigFromParams(trainParamValues(params));
  const known = new Set(scene.train.map((c) => c.name));
  const missing = block.cameras.filter((name) => !known.has(name));
  if (missing.length) throw badInput(project.file, `${partition.id} ${block.id} names cameras the dataset's training views do not have (${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', ...' : ''}): the dataset changed since it was split; split it again`);
  const inside = pointsInRect(partition.ground, block.bounds, scene.points);
  if (!inside.indices.length) throw badInput(project.file, `${partition.id} ${block.id} holds no SfM points in its bounds (the dataset changed since it was split?); split it again`);
  const trainViews = [...block.cameras];
  // the held-out views that see the block, by the test that chose its cameras (split.ts)
  const [seeing] = camerasSeeingBlocks(partition.ground, [block], scene.points, scene.test.map((c) => c.camera));
  const testViews = seeing!.map((c) => scene.test[c]!.name);
  const keepTrain = new Set(trainViews);
  const keepTest = new Set(testViews);
  const viewFilter = (view: { name: string; split: string }) => (view.split === 'train' ? keepTrain.has(view.name) : keepTest.has(view.name));
  const positions = new Float32Array(inside.indices.length * 3);
  const colors = new Uint8Array(inside.indices.length * 3);
  inside.indices.forEach((p, i) => {
    positions.set(scene.points.subarray(3 * p, 3 * p + 3), 3 * i);
    colors.set(scene.colors.subarray(3 * p, 3 * p + 3), 3 * i);
  });
  // the trainer's own initialisation (trainer.ts: Random(seed ^ 0x5eed), the strategy's start)
  const start = config.strategy === 'mcmc' ? MCMC_INITIAL_SPLATS : undefined;
  const initial = initialSplats({ points: { positions, colors }, sceneScale: sceneScaleOf(scene.train.map((c) => c.camera)) }, config.shDegree, config.initPoints, new Random(config.seed ^ 0x5eed), start);
  return { block, viewFilter, initial, trainViews, testViews };
}
