/**
 * Where a block's training records its state: a status file per block,
 * `<data>/runs/<run>/blocks/<block>/status.json`, beside its checkpoints, written atomically by
 * the one process training that block. The manifest has one writer, the coordinator (or the
 * in-process runner), which merges the status files into `run.partition.blocks`.
 *
 * Why status files and not the project's lock around a read-modify-write of the manifest: the
 * lock (project/lock.ts) is one trainer per project and knows a holder's liveness only on its own
 * host; a worker killed on another machine would leave it held, blocking every other worker, and
 * N workers rewriting one manifest contend on every checkpoint. A status file has exactly one
 * writer at a time (BullMQ's job lock decides who trains a block), so no update can be lost;
 * the merge is a pure function of the files, so a restarted coordinator just merges again.
 *
 * Fencing: a worker that lost its job's lock (stalled: its event loop or storage hung past the
 * lock, the job handed to another worker) may wake up still training. The record's `attempts`
 * is the owner's number (at least the queue's attempt of the job, and above every earlier
 * record's); a writer re-reads the file before each write and stops (BlockOwnershipLost) when it
 * holds a newer attempt, and the coordinator ignores a file of an older attempt than it knows.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { ProjectRun } from '../../../shared/project/manifest.js';
import { BlockRunSchema, type BlockRun, type PartitionedRun } from '../../../shared/project/partition.js';
import { badInput } from '../../../shared/rpc/errors.js';
import { isoTime } from '../../../shared/schema-values.js';
import { makeFolder, writeFileAtomic } from '../formats/atomic-file.js';
import type { Project } from '../project/project.js';

const BlockStatusFileSchema = z.object({ updatedAt: isoTime, record: BlockRunSchema }).strict();

/** A block's writer that is no longer its owner (a newer attempt took it over, or the queue's lock was lost): it stops and writes nothing more. */
export class BlockOwnershipLost extends Error {
  override readonly name = 'BlockOwnershipLost';
}

/** A run trained as blocks: a project run with its partition record. */
export type PartitionedProjectRun = ProjectRun & { partition: PartitionedRun };

/** `<data>/runs/<run>/blocks/<block>`: the block's checkpoints, status file and splats. */
export function blockDir(project: Project, runId: string, blockId: string): string {
  return path.join(project.runDir(runId), 'blocks', blockId);
}

export function blockStatusFile(project: Project, runId: string, blockId: string): string {
  return path.join(blockDir(project, runId, blockId), 'status.json');
}

/** Writes the block's record (atomically: a reader sees the old file or the new one). */
export async function writeBlockStatus(project: Project, runId: string, record: BlockRun): Promise<void> {
  const file = blockStatusFile(project, runId, record.block);
  await makeFolder(path.dirname(file));
  const checked = BlockRunSchema.parse(record);
  await writeFileAtomic(file, `${JSON.stringify({ updatedAt: new Date().toISOString(), record: checked }, null, 2)}\n`);
}

/** The block's record from its status file; undefined when there is none yet (or, with a warning, when it is damaged). */
export async function readBlockStatus(project: Project, runId: string, blockId: string, warn?: (m: string) => void): Promise<BlockRun | undefined> {
  const file = blockStatusFile(project, runId, blockId);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = BlockStatusFileSchema.safeParse(JSON.parse(text));
    if (parsed.success && parsed.data.record.block === blockId) return parsed.data.record;
    warn?.(`${file}: not a block status of ${blockId}; the manifest's record is kept`);
  } catch (error) {
    warn?.(`${file}: not valid JSON (${(error as Error).message}); the manifest's record is kept`);
  }
  return undefined;
}

/** Throws BlockOwnershipLost when the block's status file holds a newer attempt than `record`: its writer lost the block. */
export async function checkBlockOwner(project: Project, runId: string, record: BlockRun): Promise<void> {
  const current = await readBlockStatus(project, runId, record.block);
  if (current && current.attempts > record.attempts) {
    throw new BlockOwnershipLost(`${runId} ${record.block}: attempt ${current.attempts} (${current.worker ?? 'another worker'}) took the block over from attempt ${record.attempts} (${record.worker ?? 'this worker'}), which stops without writing`);
  }
}

/**
 * The status files merged into the run's block records (in memory; the caller saves), and the
 * run's step (the blocks' steps summed) and status with them. Returns whether anything changed.
 */
export async function mergeBlockStatuses(project: Project, run: PartitionedProjectRun, warn?: (m: string) => void): Promise<boolean> {
  let changed = false;
  const blocks = run.partition.blocks;
  for (let i = 0; i < blocks.length; i++) {
    const fromFile = await readBlockStatus(project, run.id, blocks[i]!.block, warn);
    // An older attempt's write (a zombie worker's, past its lost lock): the newer owner's next write replaces it.
    if (fromFile && fromFile.attempts < blocks[i]!.attempts) continue;
    if (fromFile && JSON.stringify(fromFile) !== JSON.stringify(blocks[i])) {
      blocks[i] = fromFile;
      changed = true;
    }
  }
  const step = blocks.reduce((sum, b) => sum + b.step, 0);
  if (step !== run.step) {
    run.step = step;
    changed = true;
  }
  if (changed) run.updatedAt = new Date().toISOString();
  return changed;
}

/** The run's block record of `blockId`, or a bad-input error naming the run. */
export function blockRecordOf(project: Project, run: PartitionedProjectRun, blockId: string): BlockRun {
  const record = run.partition.blocks.find((b) => b.block === blockId);
  if (!record) throw badInput(project.file, `${run.id} has no block ${blockId} (blocks: ${run.partition.blocks.map((b) => b.block).join(', ')})`, { run: run.id, block: blockId });
  return record;
}
