/**
 * A block worker (`argonaut --no-gui worker --queue redis://...`): takes block jobs from the
 * queue and trains each (block-train.ts) with the run's own parameters, on the GPU it was given
 * (several workers may share one GPU or use one each: `--adapter`). Progress goes back through
 * the queue (job.updateProgress); the block's record goes to its status file.
 *
 * Two workers never train one block at once: BullMQ gives a job to one worker under a lock that
 * worker renews (on BullMQ's timer and between steps); a worker that dies (kill -9) stops
 * renewing, another's stalled-job check hands the job out again, and the next worker continues
 * from the block's newest checkpoint. A job this worker cannot train correctly (a manifest version
 * it does not know, a project or block that is not there) fails at once, by name, unretried.
 */
import { stat } from 'node:fs/promises';
import os from 'node:os';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { TrainEvent } from '../../../shared/contract/train-events.js';
import { PROJECT_VERSION } from '../../../shared/project/manifest.js';
import { ArgonautError, toErrorEnvelope } from '../../../shared/rpc/errors.js';
import type { GpuContext } from '../gpu/context.js';
import { Project } from '../project/project.js';
import { BlockOwnershipLost, readBlockStatus } from './block-status.js';
import { BLOCK_QUEUE_NAME, BlockJobSchema, QUEUE_TIMINGS, type BlockJob, type BlockJobProgress } from './block-jobs.js';
import { defaultBlockInput, trainBlock, type BlockInputOf } from './block-train.js';
import { mapPath, type PathMapping } from './path-map.js';
import { checkQueueReachable, redisOptionsFromUrl } from './queue-connection.js';
import { isPartitioned } from './run-blocks.js';

export interface BlockWorkerOptions {
  queue: string;
  /** Jobs trained at once by this process (each opens its own GPU device). Default 1. */
  concurrency?: number;
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  openGpu: () => Promise<GpuContext>;
  /** The coordinator's folders as this worker sees them (path-map.ts); default: the same paths. */
  pathMap?: readonly PathMapping[];
  /** Default: blockTrainingInput with the run's parameters. */
  blockInput?: BlockInputOf;
  /** Every event of every job, with the job's id (the CLI prints them). */
  onEvent?: (event: TrainEvent, job: string) => void;
  /** A block trained to its end by this worker: what benchmarks and the CLI's `job` line report. */
  onBlockDone?: (summary: BlockJobSummary) => void;
}

export interface BlockJobSummary {
  job: string;
  project: string;
  run: string;
  block: string;
  worker: string;
  resumedFrom: number;
  steps: number;
  trainS: number;
  peakGpuBytes: number;
  splatCount: number;
}

export interface BlockWorker {
  /** `host:pid`: what block records and progress name. */
  readonly id: string;
  /** Stops taking jobs; running ones are cancelled (a checkpoint saved) and handed back. */
  close(): Promise<void>;
}

/** The payload, checked: a version this build does not know is refused by name, never retried. */
export function checkBlockJob(job: Pick<Job, 'id' | 'data'>): BlockJob {
  const parsed = BlockJobSchema.safeParse(job.data);
  const version = (job.data as { version?: unknown } | undefined)?.version;
  if (typeof version === 'number' && version !== PROJECT_VERSION) {
    throw new UnrecoverableError(`job ${job.id}: its project manifest version ${version} is not one this worker knows (it reads version ${PROJECT_VERSION}); run workers of the coordinator's Argonaut version`);
  }
  if (!parsed.success) throw new UnrecoverableError(`job ${job.id}: not a block job (${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message})`);
  return parsed.data;
}

export async function startBlockWorker(options: BlockWorkerOptions): Promise<BlockWorker> {
  await checkQueueReachable(options.queue);
  const id = `${os.hostname()}:${process.pid}`;
  const lockDuration = options.lockDurationMs ?? QUEUE_TIMINGS.lockDurationMs;
  const cancels = new Set<AbortController>();
  const blockInput = options.blockInput ?? defaultBlockInput();
  const lostLocks = new Set<string>(); // jobs whose lock BullMQ's timer could not renew

  const processJob = async (job: Job, token?: string): Promise<{ splats: string; splatCount: number }> => {
    const payload = checkBlockJob(job);
    const jobId = String(job.id);
    const emit = (event: TrainEvent) => options.onEvent?.(event, jobId);
    const file = await mappedProjectFile(options.pathMap ?? [], payload.project, jobId);
    let project: Project;
    try {
      project = await Project.open(file);
    } catch (error) {
      // Not there (storage not mounted at this path?) or not readable by this build: no retry helps.
      throw new UnrecoverableError(`job ${jobId}: ${toErrorEnvelope(error).message}`);
    }
    if (project.manifest.id !== payload.projectId) throw new UnrecoverableError(`job ${jobId}: ${file} is another project (id ${project.manifest.id}, the job's is ${payload.projectId})`);
    const run = project.manifest.runs.find((r) => r.id === payload.run);
    if (!isPartitioned(run)) throw new UnrecoverableError(`job ${jobId}: ${file} has no partitioned run ${payload.run}`);
    const done = await readBlockStatus(project, run.id, payload.block);
    if (done?.status === 'finished' && done.splats) return { splats: done.splats, splatCount: done.splatCount ?? 0 };

    const cancel = new AbortController();
    cancels.add(cancel);
    const ctx = await options.openGpu();
    let lastReport = 0;
    let lastExtend = performance.now();
    // Fencing (block-status.ts): the lock must still be ours before every write; once lost, the block is another worker's.
    const fence = async () => {
      lastExtend = performance.now();
      if (lostLocks.has(jobId) || (token !== undefined && (await job.extendLock(token, lockDuration)) !== 1)) {
        throw new BlockOwnershipLost(`job ${jobId}: worker ${id} lost its lock on the job (stalled past ${lockDuration} ms; another worker may train ${payload.block} now)`);
      }
    };
    try {
      const { record, result, resumedFrom } = await trainBlock(ctx, project, run, payload.block, {
        blockInput,
        worker: id,
        attempt: job.attemptsStarted,
        fence,
        signal: cancel.signal,
        onEvent: async (event) => {
          emit(event);
          if (event.type === 'block' || (event.type === 'progress' && event.stage === 'train' && performance.now() - lastReport > 1000)) {
            lastReport = performance.now();
            const progress: BlockJobProgress = { step: event.step, total: event.total, worker: id };
            await job.updateProgress(progress);
          }
        },
        between: async () => {
          // BullMQ renews the lock on a timer; a long stretch of GPU work between two timer
          // ticks must not let it lapse (another worker would take the block). A lock found
          // lost stops the training at once.
          if (lostLocks.has(jobId) || performance.now() - lastExtend > lockDuration / 3) await fence();
        },
      });
      if (result.cancelled) throw new Error(`job ${jobId}: worker ${id} stopped at step ${result.steps}; the block continues from its newest checkpoint`);
      options.onBlockDone?.({ job: jobId, project: project.file, run: run.id, block: payload.block, worker: id, resumedFrom, steps: result.steps, trainS: result.trainS, peakGpuBytes: result.peakGpuBytes, splatCount: result.splatCount });
      return { splats: record.splats!, splatCount: record.splatCount ?? 0 };
    } catch (error) {
      if (error instanceof BlockOwnershipLost) emit({ type: 'log', level: 'warn', message: error.message });
      if (error instanceof ArgonautError && (error.code === 'bad_input' || error.code === 'not_found')) throw new UnrecoverableError(`job ${jobId}: ${error.message}`);
      throw error;
    } finally {
      lostLocks.delete(jobId);
      cancels.delete(cancel);
      ctx.destroy();
    }
  };

  const worker = new Worker(BLOCK_QUEUE_NAME, processJob, {
    connection: redisOptionsFromUrl(options.queue),
    concurrency: options.concurrency ?? 1,
    lockDuration,
    stalledInterval: options.stalledIntervalMs ?? QUEUE_TIMINGS.stalledIntervalMs,
    maxStalledCount: QUEUE_TIMINGS.maxStalledCount,
    // Seconds an idle worker blocks waiting for a job: short, so close() returns promptly.
    drainDelay: 1,
  });
  worker.on('lockRenewalFailed', (jobIds: string[]) => {
    for (const jobId of jobIds) lostLocks.add(jobId);
  });
  worker.on('error', (error) => options.onEvent?.({ type: 'log', level: 'warn', message: `queue: ${error.message}` }, ''));
  worker.on('failed', (job, error) => options.onEvent?.({ type: 'log', level: 'error', message: `job ${job?.id ?? '?'} failed: ${error.message}` }, String(job?.id ?? '')));
  await worker.waitUntilReady();
  return {
    id,
    async close() {
      for (const c of cancels) c.abort();
      await worker.close();
    },
  };
}

/**
 * The job's project file on this worker (the path map applied), refused by name when it is not
 * there: no other worker's retry would find it at a path this one cannot see either, so the job
 * fails for good instead of going round the queue.
 */
async function mappedProjectFile(map: readonly PathMapping[], coordinatorFile: string, jobId: string): Promise<string> {
  let file: string;
  try {
    file = mapPath(map, coordinatorFile);
  } catch (error) {
    throw new UnrecoverableError(`job ${jobId}: ${(error as Error).message}`);
  }
  const found = await stat(file).catch(() => undefined);
  if (found?.isFile()) return file;
  const why = file === coordinatorFile
    ? 'is the shared storage mounted at the same path here? If it is mounted elsewhere, map it: worker --path-map FROM=TO'
    : `the coordinator's ${coordinatorFile}, mapped by --path-map`;
  throw new UnrecoverableError(`job ${jobId}: project file ${file} ${found ? 'is not a file' : 'not found'} on this worker (${why})`);
}
