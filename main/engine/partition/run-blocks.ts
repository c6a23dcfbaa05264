/**
 * A run trained as blocks of a partition (`train p.argo --partition ID [--queue URL]`): the run
 * record (one ProjectRun with `partition`: its blocks' records, the merge), then either the blocks
 * one after another in this process (no queue: the embedded default) or as jobs on the queue
 * (queue-coordinator.ts), then the merge (merge.ts's mergeBlocks).
 *
 * The newest run continues when it trains the same partition and has not finished: a restarted
 * coordinator re-attaches to its jobs, a restarted in-process run resumes each block from its
 * newest checkpoint. This process holds the project's training lock (project/lock.ts) the whole
 * time and is the manifest's only writer; blocks report through their status files.
 */
import path from 'node:path';
import { resolveParams, type ParamValue, type PresetName } from '../../../shared/params/index.js';
import { projectParamDefs, type ProjectRun } from '../../../shared/project/manifest.js';
import { redactQueueUrl, type BlockRun } from '../../../shared/project/partition.js';
import type { TrainEvent, TrainEventOptions } from '../../../shared/contract/train-events.js';
import { ArgonautError, toErrorEnvelope } from '../../../shared/rpc/errors.js';
import type { GpuContext } from '../gpu/context.js';
import { acquireTrainingLock } from '../project/lock.js';
import type { Project } from '../project/project.js';
import { definedParams } from '../project/train-run.js';
import { trainParamValues } from '../train/trainer-config.js';
import { blockDir, mergeBlockStatuses, type PartitionedProjectRun } from './block-status.js';
import { defaultBlockInput, trainBlock, type BlockInputOf } from './block-train.js';
import { mergeBlocks } from './merge.js';
import { projectPartition } from './partitions.js';
import { coordinateBlocks } from './queue-coordinator.js';

export const IN_PROCESS = 'in-process';

/** What merges the blocks (merge.ts's mergeBlocks: crop, join, fine-tune, write the run's splats); tests watch it. */
export type MergeBlocksOf = (ctx: GpuContext, project: Project, run: PartitionedProjectRun, options: { fineTuneSteps: number } & TrainEventOptions) => Promise<unknown>;

export interface PartitionedTrainOptions extends TrainEventOptions {
  partition: string;
  /** A redis:// or rediss:// URL; absent: the blocks run here, in sequence. */
  queue?: string;
  /** Steps of the joint fine-tune over all cameras after the merge (0: none). */
  mergeFineTune?: number;
  overrides?: Readonly<Record<string, ParamValue>>;
  preset?: PresetName;
  env?: NodeJS.ProcessEnv;
  /** Default: blockTrainingInput with the run's parameters (block-train.ts's defaultBlockInput). */
  blockInput?: BlockInputOf;
  /** Default: the partition's mergeBlocks (merge.ts). */
  mergeBlocks?: MergeBlocksOf;
}

export interface PartitionedTrainResult {
  run: PartitionedProjectRun;
  /** Blocks that were finished before this call (a continued run). */
  alreadyFinished: string[];
  merged: unknown;
}

export function isPartitioned(run: ProjectRun | undefined): run is PartitionedProjectRun {
  return Boolean(run?.partition);
}

/** The run to train: the newest if it trains this partition and has not finished, else a new one (saved). */
export async function partitionedRun(project: Project, options: Pick<PartitionedTrainOptions, 'partition' | 'queue' | 'mergeFineTune' | 'overrides' | 'preset' | 'env'>): Promise<{ run: PartitionedProjectRun; continued: boolean }> {
  const partition = projectPartition(project, options.partition);
  const queue = options.queue ? redactQueueUrl(options.queue) : IN_PROCESS;
  const latest = project.latestRun();
  if (isPartitioned(latest) && latest.partition.partition === partition.id && latest.status !== 'finished') {
    latest.partition.queue = queue;
    if (options.mergeFineTune !== undefined) latest.partition.merge.fineTuneSteps = options.mergeFineTune;
    return { run: latest, continued: true };
  }
  const overrides = Object.fromEntries(Object.entries(options.overrides ?? {}).filter(([k]) => k.startsWith('train.')));
  const params = resolveParams(projectParamDefs(), definedParams({ ...project.manifest.params, ...overrides }), { env: options.env ?? process.env, preset: options.preset });
  const id = project.nextRunId();
  const now = new Date().toISOString();
  const perBlock = trainParamValues(params)['train.iterations'];
  const blocks: BlockRun[] = partition.blocks.map((b) => ({
    block: b.id, status: 'queued', step: 0, total: perBlock, attempts: 0,
    checkpointsDir: project.relative(path.join(blockDir(project, id, b.id), 'checkpoints')),
  }));
  const run: PartitionedProjectRun = {
    id, createdAt: now, updatedAt: now, params, status: 'running', step: 0, total: perBlock * blocks.length, resumes: [],
    checkpointsDir: project.relative(path.join(project.runDir(id), 'checkpoints')), metrics: [], evaluations: [], outputs: {},
    partition: { partition: partition.id, queue, blocks, merge: { status: 'pending', fineTuneSteps: options.mergeFineTune ?? 0 } },
  };
  project.manifest.runs.push(run);
  await project.save();
  return { run, continued: false };
}

/** Trains a project as blocks (here or on the queue), then merges them. */
export async function trainPartitioned(ctx: GpuContext, project: Project, options: PartitionedTrainOptions): Promise<PartitionedTrainResult> {
  const emit = async (event: TrainEvent) => options.onEvent?.(event);
  const warn = (message: string) => void emit({ type: 'log', level: 'warn', message });
  const release = await acquireTrainingLock(project);
  try {
    const { run, continued } = await partitionedRun(project, options);
    await mergeBlockStatuses(project, run, warn);
    const alreadyFinished = run.partition.blocks.filter((b) => b.status === 'finished').map((b) => b.block);
    if (continued) run.resumes.push(run.step);
    run.status = 'running';
    delete run.error;
    await project.save();
    await emit({ type: 'state', state: 'running', step: run.step, total: run.total, run: run.id, ...(continued ? { reason: `continues ${run.id} (${alreadyFinished.length} of ${run.partition.blocks.length} blocks finished)` } : {}) });
    try {
      if (options.queue) {
        await coordinateBlocks(project, run, options.queue, emit, options.signal);
      } else {
        await trainBlocksInProcess(ctx, project, run, options, emit);
      }
      await mergeBlockStatuses(project, run, warn);
      if (options.signal?.aborted) {
        run.status = 'interrupted';
        await project.save();
        return { run, alreadyFinished, merged: undefined };
      }
      const unfinished = run.partition.blocks.filter((b) => b.status !== 'finished');
      if (unfinished.length) {
        throw new ArgonautError('internal', `${project.file}: ${run.id}: blocks not finished: ${unfinished.map((b) => `${b.block} (${b.status}${b.error ? `: ${b.error.message}` : ''})`).join(', ')}`);
      }
      // The merge records its own state (run.partition.merge) and the run's splats.
      const merged = await (options.mergeBlocks ?? mergeBlocks)(ctx, project, run, { fineTuneSteps: run.partition.merge.fineTuneSteps, signal: options.signal, onEvent: emit });
      if (options.signal?.aborted) {
        run.status = 'interrupted';
        await project.save();
        return { run, alreadyFinished, merged: undefined };
      }
      run.status = 'finished';
      run.updatedAt = new Date().toISOString();
      await project.save();
      return { run, alreadyFinished, merged };
    } catch (error) {
      const envelope = toErrorEnvelope(error);
      run.status = envelope.code === 'cancelled' ? 'interrupted' : 'failed';
      if (run.status === 'failed') run.error = { code: envelope.code, message: envelope.message };
      await project.save().catch(() => undefined);
      throw error;
    }
  } finally {
    await release();
  }
}

/** The embedded default: every unfinished block in turn, in this process, the manifest saved after each checkpoint. */
async function trainBlocksInProcess(ctx: GpuContext, project: Project, run: PartitionedProjectRun, options: PartitionedTrainOptions, emit: (event: TrainEvent) => Promise<void>): Promise<void> {
  const warn = (message: string) => void emit({ type: 'log', level: 'warn', message });
  const blockInput = options.blockInput ?? defaultBlockInput();
  for (const { block } of run.partition.blocks.filter((b) => b.status !== 'finished')) {
    if (options.signal?.aborted) return;
    await trainBlock(ctx, project, run, block, {
      blockInput,
      worker: IN_PROCESS,
      signal: options.signal,
      onEvent: async (event) => {
        // The block wrote its status file; the manifest follows at its state changes.
        if (event.type === 'block' && event.status !== 'running') {
          await mergeBlockStatuses(project, run, warn);
          await project.save();
        } else if (event.type === 'checkpoint') {
          await mergeBlockStatuses(project, run, warn);
          await project.save();
        }
        await emit(event);
      },
    });
    await mergeBlockStatuses(project, run, warn);
    await project.save();
  }
}
