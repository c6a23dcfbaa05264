/**
 * Training ONE block of a partitioned run, wherever it runs (the in-process runner, a queue
 * worker): runTrainingJob on the block's views and initial splats, checkpoints in the block's own
 * folder (`<data>/runs/<run>/blocks/<block>/checkpoints`), resuming from the newest complete one
 * (the folder is the truth, as for a whole run), the run's own parameters. The block's record goes
 * to its status file (block-status.ts) when it starts, at every checkpoint and at the end, so a
 * kill -9 loses at most the steps since the newest checkpoint; the manifest is the coordinator's.
 * Every write (status, checkpoint, splats) is fenced (block-status.ts): the writer checks it still
 * owns the block first, and stops without writing when a newer attempt took it over.
 */
import path from 'node:path';
import type { TrainEvent, TrainEventOptions } from '../../../shared/contract/train-events.js';
import type { Partition, PartitionBlock } from '../../../shared/project/partition.js';
import type { BlockRun } from '../../../shared/project/partition.js';
import type { SplatSet } from '../../../shared/scene/splats.js';
import { ArgonautError, badInput, toErrorEnvelope } from '../../../shared/rpc/errors.js';
import { removeStaleTemps } from '../formats/atomic-file.js';
import { writePly } from '../formats/ply.js';
import type { GpuContext } from '../gpu/context.js';
import { newestCompleteCheckpoint } from '../project/newest-checkpoint.js';
import type { Project } from '../project/project.js';
import { definedParams } from '../project/train-run.js';
import { runTrainingJob, type TrainJobOptions, type TrainJobResult } from '../train/job.js';
import { trainParamValues } from '../train/trainer-config.js';
import { blockTrainingInput } from './block-input.js';
import { partitionScene, type PartitionScene } from './scene.js';
import { blockDir, blockRecordOf, BlockOwnershipLost, checkBlockOwner, readBlockStatus, writeBlockStatus, type PartitionedProjectRun } from './block-status.js';

/** What a block trains on besides the project's data: its views and its starting splats. */
export interface BlockTrainingStart {
  viewFilter: NonNullable<TrainJobOptions['viewFilter']>;
  initial?: SplatSet;
}

/** A block's input for a run (block-input.ts's blockTrainingInput with the run's parameters by default; tests watch it). */
export type BlockInputOf = (project: Project, partition: Partition, blockId: string, run: PartitionedProjectRun) => Promise<BlockTrainingStart> | BlockTrainingStart;

/** blockTrainingInput with the run's own parameters (its initialisation follows them), the scene read once per project. */
export function defaultBlockInput(): BlockInputOf {
  const scenes = new Map<string, Promise<PartitionScene>>();
  return (project, partition, blockId, run) => {
    let scene = scenes.get(project.file);
    if (!scene) scenes.set(project.file, (scene = partitionScene(project)));
    return scene.then((loaded) => blockTrainingInput(project, partition, blockId, { params: definedParams(run.params), scene: loaded }));
  };
}

export interface BlockTrainOptions extends TrainEventOptions {
  /** Default: defaultBlockInput(). */
  blockInput?: BlockInputOf;
  /** Who trains it: `host:pid`, or 'in-process'. */
  worker: string;
  /** Checkpoints kept per block (oldest removed first). Default 3. */
  keep?: number;
  /** Awaited before every step (the worker renews its queue lock here during long runs). */
  between?: TrainJobOptions['between'];
  /** The queue's attempt of the job (BullMQ attemptsStarted): the block's attempt is at least this. */
  attempt?: number;
  /** Throws BlockOwnershipLost when this process no longer holds the block (the worker: its job's lock); awaited before every write. */
  fence?: () => Promise<void>;
}

/** How often a training block re-reads its status file for a newer owner between checkpoints (ms). */
const OWNER_CHECK_MS = 1000;

export interface BlockTrainResult {
  record: BlockRun;
  result: TrainJobResult;
  /** The step it started from (0 for a fresh block). */
  resumedFrom: number;
}

/** The partition and block a partitioned run trains, or a bad-input error naming what is missing. */
export function blockOfRun(project: Project, run: PartitionedProjectRun, blockId?: string): { partition: Partition; block?: PartitionBlock } {
  const partition = project.manifest.partitions.find((p) => p.id === run.partition.partition);
  if (!partition) throw badInput(project.file, `${run.id} trains ${run.partition.partition}, which the project no longer has`, { run: run.id });
  if (blockId === undefined) return { partition };
  const block = partition.blocks.find((b) => b.id === blockId);
  if (!block) throw badInput(project.file, `${partition.id} has no block ${blockId}`, { block: blockId });
  return { partition, block };
}

/** The block's `block` event (the GUI's per-block state). */
export function blockEvent(project: Project, record: BlockRun): Extract<TrainEvent, { type: 'block' }> {
  return {
    type: 'block', block: record.block, status: record.status, step: record.step, total: record.total,
    ...(record.worker ? { worker: record.worker } : {}),
    ...(record.status === 'finished' && record.splats ? { splats: project.resolve(record.splats) } : {}),
  };
}

/** Trains one block to its end (or until cancelled), recording it in its status file. */
export async function trainBlock(ctx: GpuContext, project: Project, run: PartitionedProjectRun, blockId: string, options: BlockTrainOptions): Promise<BlockTrainResult> {
  const emit = async (event: TrainEvent) => options.onEvent?.(event);
  const warn = (message: string) => void emit({ type: 'log', level: 'warn', message });
  const { partition } = blockOfRun(project, run, blockId);
  const record: BlockRun = structuredClone((await readBlockStatus(project, run.id, blockId, warn)) ?? blockRecordOf(project, run, blockId));
  if (record.status === 'finished' && record.splats) throw new ArgonautError('invalid_argument', `${project.file}: ${run.id} ${blockId} is already finished (${record.splats})`);
  const checkpointsDir = project.resolve(record.checkpointsDir);
  for (const name of await removeStaleTemps(checkpointsDir)) await emit({ type: 'log', level: 'info', message: `removed ${path.join(checkpointsDir, name)} (a write interrupted by a crash)` });
  const from = await newestCompleteCheckpoint(checkpointsDir, warn);
  const input = await (options.blockInput ?? defaultBlockInput())(project, partition, blockId, run);
  const values = trainParamValues(run.params);
  let lastOwnerCheck = performance.now();
  const owned = async () => {
    lastOwnerCheck = performance.now();
    await options.fence?.();
    await checkBlockOwner(project, run.id, record);
  };
  const save = async (status: BlockRun['status']) => {
    await owned();
    record.status = status;
    await writeBlockStatus(project, run.id, record);
    await emit(blockEvent(project, record));
  };
  // Above every earlier attempt's (the file's) and the queue's: a zombie of an earlier attempt is always older.
  record.attempts = Math.max(record.attempts + 1, options.attempt ?? 0);
  record.worker = options.worker;
  record.step = from?.step ?? 0;
  record.total = values['train.iterations'];
  delete record.error;
  await save('running');
  if (from) await emit({ type: 'log', level: 'info', message: `${run.id} ${blockId} continues from step ${from.step} (${from.file})` });
  // A cancel writes a checkpoint (runTrainingJob): fenced too. The trainer sees the cancel once the
  // block is found still ours; a block found lost stops at the next step, writing nothing.
  const cancel = new AbortController();
  let lostOnCancel: unknown;
  const onCancel = () => void owned().then(() => cancel.abort(), (error: unknown) => (lostOnCancel = error));
  if (options.signal?.aborted) onCancel();
  else options.signal?.addEventListener('abort', onCancel, { once: true });
  let lastBlockEvent = 0;
  let result: TrainJobResult;
  try {
    result = await runTrainingJob(ctx, {
      source: await project.trainingSource(),
      params: definedParams(run.params),
      viewFilter: input.viewFilter,
      ...(from || !input.initial ? {} : { initial: input.initial }),
      checkpoints: { dir: checkpointsDir, every: values['train.checkpointEvery'], keep: options.keep, from: from?.file },
      signal: cancel.signal,
      between: async (control) => {
        if (lostOnCancel !== undefined) throw lostOnCancel;
        await options.between?.(control);
        // runTrainingJob writes a due checkpoint right after this hook: the owner is checked just before
        const checkpointDue = values['train.checkpointEvery'] > 0 && control.step > (from?.step ?? 0) && control.step % values['train.checkpointEvery'] === 0;
        if (checkpointDue || performance.now() - lastOwnerCheck > OWNER_CHECK_MS) await owned();
      },
      onEvent: async (event) => {
        if (event.type === 'checkpoint') {
          record.latestCheckpoint = { file: project.relative(event.file), step: event.step, savedAt: new Date().toISOString() };
          record.step = event.step;
          await save('running');
        } else if (event.type === 'progress' && event.stage === 'train') {
          record.step = event.step;
          // The GUI's per-block bar: a few updates a second, not one per step.
          if (performance.now() - lastBlockEvent > 250) {
            lastBlockEvent = performance.now();
            await emit(blockEvent(project, record));
          }
        }
        await emit(event);
      },
    });
  } catch (error) {
    if (error instanceof BlockOwnershipLost) throw error; // the block is another's: not a word more
    options.signal?.removeEventListener('abort', onCancel);
    if (lostOnCancel !== undefined) throw lostOnCancel; // the check failed otherwise (storage): nothing written either
    const envelope = toErrorEnvelope(error);
    record.error = { code: envelope.code, message: envelope.message };
    await save('failed').catch(() => undefined);
    throw error;
  }
  options.signal?.removeEventListener('abort', onCancel);
  if (result.cancelled) {
    // Resumable by anyone: back in the queue's hands, from its newest checkpoint.
    record.step = result.steps;
    await save('queued');
    return { record, result, resumedFrom: from?.step ?? 0 };
  }
  const splatsFile = path.join(blockDir(project, run.id, blockId), 'splats.ply');
  await owned();
  await writePly(splatsFile, result.splats);
  record.splats = project.relative(splatsFile);
  record.splatCount = result.splatCount;
  record.step = result.steps;
  await save('finished');
  return { record, result, resumedFrom: from?.step ?? 0 };
}
