/**
 * The scene as far as a partitioned run has trained it: the finished blocks' splats, each cropped
 * to its core and joined (crop.ts, as the merge does before its fine-tune), for the live viewer
 * while the other blocks still train.
 */
import type { ProjectRun } from '../../../shared/project/manifest.js';
import { badInput } from '../../../shared/rpc/errors.js';
import type { SplatSet } from '../../../shared/scene/splats.js';
import { readPly } from '../formats/ply.js';
import type { Project } from '../project/project.js';
import { cropToCore, joinSplats } from './crop.js';
import { partitionOfRun } from './merge.js';

export async function finishedBlockSplats(project: Project): Promise<{ splats: SplatSet; run: ProjectRun; step: number; blocks: string[] }> {
  const run = [...project.manifest.runs].reverse().find((r) => r.partition);
  if (!run) throw badInput(project.file, 'the project has no run trained as blocks');
  const { partition, record } = partitionOfRun(project, run);
  const sets: SplatSet[] = [];
  const blocks: string[] = [];
  let step = 0;
  for (const [index, block] of partition.blocks.entries()) {
    const blockRun = record.blocks.find((b) => b.block === block.id);
    if (blockRun?.status !== 'finished' || !blockRun.splats) continue;
    sets.push(cropToCore(await readPly(project.resolve(blockRun.splats)), partition, index));
    blocks.push(block.id);
    step = Math.max(step, blockRun.step);
  }
  if (!sets.length) throw badInput(project.file, `${run.id}: no block has finished yet`);
  return { splats: joinSplats(sets), run, step, blocks };
}
