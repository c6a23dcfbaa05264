/**
 * A training job of the engine host that trains a project as the blocks of one of its partitions
 * (`train.partitioned`): run-blocks.ts's trainPartitioned, the one function the CLI's
 * `train p.argo --partition ID [--queue URL] [--merge-fine-tune N]` calls too. The job manager
 * (manager.ts) runs it like any job: state, progress, log, block and merge events, stop, resume.
 *
 * What differs from a whole-project job:
 * - Checked before the job exists, so the call itself fails by name: an unknown partition, a queue
 *   URL that is malformed, unreachable or refuses the password (checkPartitionedStart).
 * - The queue URL with its password lives in this process's memory only: the journal, the
 *   manifest and `train.status` hold it redacted (`redis://:***@host:port`). A job whose queue
 *   needs a password so cannot continue by itself after the engine restarts; starting it again
 *   with the URL continues the same run (usableQueueUrl says so by name).
 * - No pause: the blocks are trained by workers (or block after block here) and a pause of the
 *   coordinator would not pause them. Stop saves a checkpoint of a block trained here; with a
 *   queue the workers go on and a continued job re-attaches to their jobs.
 */
import type { PartitionedJob } from '../../../shared/contract/partitions.js';
import type { TrainEventOptions } from '../../../shared/contract/train-events.js';
import type { ParamValue } from '../../../shared/params/index.js';
import { redactQueueUrl } from '../../../shared/project/partition.js';
import { ArgonautError, toErrorEnvelope } from '../../../shared/rpc/errors.js';
import type { GpuContext } from '../gpu/context.js';
import { projectPartition } from '../partition/partitions.js';
import { checkQueueReachable } from '../partition/queue-connection.js';
import { trainPartitioned } from '../partition/run-blocks.js';
import type { Project } from '../project/project.js';

/** What `train.partitioned` asks for: the queue URL as given (with its password). */
export interface PartitionedJobRequest {
  partition: string;
  queue?: string;
  mergeFineTune?: number;
}

/** Refuses a request that cannot start (by name, before any job exists); its record, the queue redacted. */
export async function checkPartitionedStart(project: Project, request: PartitionedJobRequest): Promise<PartitionedJob> {
  projectPartition(project, request.partition);
  if (request.queue !== undefined) await checkQueueReachable(request.queue);
  return {
    partition: request.partition,
    ...(request.queue !== undefined ? { queue: redactQueueUrl(request.queue) } : {}),
    ...(request.mergeFineTune !== undefined ? { mergeFineTune: request.mergeFineTune } : {}),
  };
}

/**
 * The queue URL a job (started, resumed or continued after a restart) trains with: the one given
 * at its start while this process has it, else the recorded one when it carries no password.
 * Undefined: no queue, the blocks train here.
 */
export function usableQueueUrl(project: string, recorded: PartitionedJob, given: string | undefined): string | undefined {
  if (recorded.queue === undefined) return undefined;
  if (given !== undefined) return given;
  if (continuesByItself(recorded)) return recorded.queue;
  throw new ArgonautError('invalid_argument', `${project}: the queue ${recorded.queue} needs a password, which the engine does not keep: train the blocks again (the Partition panel's Train blocks, with the queue URL) to continue the run`, { queue: recorded.queue });
}

/** Whether a job recorded in the journal can continue after an engine restart without its queue URL given again. */
export function continuesByItself(recorded: PartitionedJob): boolean {
  return recorded.queue === undefined || !recorded.queue.includes('***@');
}

/** Trains the blocks and merges them; cancelled when the signal stopped it first (the run then is interrupted, resumable). */
export async function runPartitionedJob(
  ctx: GpuContext,
  project: Project,
  job: { partition: PartitionedJob; queue: string | undefined; params: Readonly<Record<string, ParamValue>> },
  options: Required<Pick<TrainEventOptions, 'signal' | 'onEvent'>>,
): Promise<{ cancelled: boolean }> {
  try {
    const { run } = await trainPartitioned(ctx, project, {
      partition: job.partition.partition,
      queue: job.queue,
      mergeFineTune: job.partition.mergeFineTune,
      overrides: job.params,
      signal: options.signal,
      onEvent: options.onEvent,
    });
    return { cancelled: run.status !== 'finished' };
  } catch (error) {
    // A merge stopped part-way throws 'cancelled': that is a stop, not a failure.
    if (options.signal?.aborted && toErrorEnvelope(error).code === 'cancelled') return { cancelled: true };
    throw error;
  }
}
