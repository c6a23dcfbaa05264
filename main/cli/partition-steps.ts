/**
 * The partition's own steps the block runtime calls (main/engine/partition/): a block's training
 * input and the merge. One place, so the coordinator (`train --partition`) and the worker
 * (`worker`) train a block on the same input.
 */
import { ArgonautError } from '../../shared/rpc/errors.js';
import { blockViewsInput } from '../engine/partition/block-views.js';
import type { BlockInputOf } from '../engine/partition/block-train.js';
import type { MergeBlocksOf } from '../engine/partition/run-blocks.js';

export const blockInput: BlockInputOf = blockViewsInput;

export const mergeBlocks: MergeBlocksOf = async (_ctx, project, run) => {
  throw new ArgonautError('internal', `${project.file}: ${run.id}: every block is trained (${run.partition.blocks.map((b) => b.splats).join(', ')}); merging them needs the partition branch's mergeBlocks (main/engine/partition/merge.ts)`);
};
