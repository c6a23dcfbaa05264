/**
 * A block's training input from what the partition records alone: its cameras (chosen by
 * visibility when the partition was made) as training views, every test view kept for its
 * evaluation, and no initial splats (the trainer initialises from the dataset's SfM points).
 * The runtime's fallback until the partition's own blockTrainingInput (block-input.ts, with each
 * block's SfM points as its start) takes its place at merge.
 */
import type { Partition } from '../../../shared/project/partition.js';
import { badInput } from '../../../shared/rpc/errors.js';
import type { Project } from '../project/project.js';
import type { BlockTrainingInput } from './block-train.js';

export function blockViewsInput(project: Project, partition: Partition, blockId: string): BlockTrainingInput {
  const block = partition.blocks.find((b) => b.id === blockId);
  if (!block) throw badInput(project.file, `${partition.id} has no block ${blockId}`);
  const cameras = new Set(block.cameras);
  return { viewFilter: (view) => view.split === 'test' || cameras.has(view.name) };
}
