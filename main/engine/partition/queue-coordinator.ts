/**
 * The coordinator's side of the queue (`train p.argo --partition ID --queue URL`): one BullMQ job
 * per unfinished block (job id = project + run + block, so a block is never queued twice), then
 * waiting for them while workers train, with the blocks' progress as `block` events and their
 * status files merged into the manifest. Run again after a restart, it finds the run's jobs and
 * waits on them (re-attaches); a job that failed for good is retried, since asking again is
 * asking for it.
 *
 * Waiting polls the jobs' states (twice a second) rather than trusting one event per job: a poll
 * rides out a Redis restart (commands wait for the reconnect) and sees jobs that finished while
 * nobody listened. Progress comes from QueueEvents as it happens.
 */
import { Queue, QueueEvents, type Job } from 'bullmq';
import type { TrainEvent } from '../../../shared/contract/train-events.js';
import { PROJECT_VERSION } from '../../../shared/project/manifest.js';
import { redactQueueUrl } from '../../../shared/project/partition.js';
import { ArgonautError } from '../../../shared/rpc/errors.js';
import type { Project } from '../project/project.js';
import { BLOCK_JOB_ATTEMPTS, BLOCK_QUEUE_NAME, BlockJobProgressSchema, blockJobId, type BlockJob } from './block-jobs.js';
import { mergeBlockStatuses, type PartitionedProjectRun } from './block-status.js';
import { blockEvent } from './block-train.js';
import { checkQueueReachable, redisOptionsFromUrl } from './queue-connection.js';

const POLL_MS = 500;

/** Enqueues (or finds) the run's block jobs and waits until each is finished or failed for good. */
export async function coordinateBlocks(project: Project, run: PartitionedProjectRun, url: string, emit: (event: TrainEvent) => Promise<void>, signal?: AbortSignal): Promise<void> {
  await checkQueueReachable(url);
  const warn = (message: string) => void emit({ type: 'log', level: 'warn', message });
  const connection = redisOptionsFromUrl(url);
  const queue = new Queue(BLOCK_QUEUE_NAME, { connection });
  const events = new QueueEvents(BLOCK_QUEUE_NAME, { connection });
  queue.on('error', (error) => warn(`queue ${redactQueueUrl(url)}: ${error.message}`));
  events.on('error', (error) => warn(`queue events ${redactQueueUrl(url)}: ${error.message}`));
  try {
    await events.waitUntilReady();
    const pending = new Map<string, string>(); // job id -> block
    for (const record of run.partition.blocks) {
      if (record.status === 'finished') continue;
      const payload: BlockJob = { version: PROJECT_VERSION, project: project.file, projectId: project.manifest.id, run: run.id, block: record.block };
      const jobId = blockJobId(payload);
      pending.set(jobId, record.block);
      const existing = (await queue.getJob(jobId)) as Job | undefined;
      const state = existing ? await existing.getState() : undefined;
      if (existing && state === 'failed') {
        await existing.retry('failed');
        await emit({ type: 'log', level: 'info', message: `${run.id} ${record.block}: job ${jobId} had failed (${existing.failedReason}); retried` });
      } else if (existing && state === 'completed') {
        // Completed, yet its status file says unfinished (removed by hand?): train it again.
        await existing.remove();
        await queue.add('block', payload, jobOptions(jobId));
      } else if (existing) {
        await emit({ type: 'log', level: 'info', message: `${run.id} ${record.block}: re-attached to job ${jobId} (${state})` });
      } else {
        await queue.add('block', payload, jobOptions(jobId));
        record.status = 'queued';
        await emit(blockEvent(project, record));
      }
    }
    await project.save();

    let lastSave = 0;
    const follow = async () => {
      if (await mergeBlockStatuses(project, run, warn)) {
        if (performance.now() - lastSave > 1000) {
          lastSave = performance.now();
          await project.save();
        }
      }
    };
    events.on('progress', ({ jobId, data }) => {
      const block = pending.get(jobId);
      const progress = BlockJobProgressSchema.safeParse(data);
      if (!block || !progress.success) return;
      void emit({ type: 'block', block, status: 'running', ...progress.data });
      void follow().catch((error: unknown) => warn(`could not save ${project.file}: ${(error as Error).message}`));
    });

    while (pending.size > 0 && !signal?.aborted) {
      for (const [jobId, block] of [...pending]) {
        const job = (await queue.getJob(jobId)) as Job | undefined;
        if (!job) throw new ArgonautError('internal', `${redactQueueUrl(url)}: job ${jobId} (${run.id} ${block}) is gone from the queue (removed by hand, or Redis lost its data: is persistence on? docs/scale.md)`);
        const state = await job.getState();
        if (state === 'completed' || state === 'failed') {
          pending.delete(jobId);
          await mergeBlockStatuses(project, run, warn);
          const record = run.partition.blocks.find((b) => b.block === block)!;
          if (state === 'failed' && record.status !== 'failed') {
            // Refused before training began (a version it does not know): the status file never saw it.
            record.status = 'failed';
            record.error = { code: 'job_failed', message: job.failedReason ?? 'failed' };
          }
          await project.save();
          await emit(blockEvent(project, record));
        }
      }
      if (pending.size) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } finally {
    await events.close().catch(() => undefined);
    await queue.close().catch(() => undefined);
  }
}

function jobOptions(jobId: string) {
  // Kept after they end: a restarted coordinator finds them by id (and never queues one twice).
  return { jobId, attempts: BLOCK_JOB_ATTEMPTS, backoff: { type: 'fixed', delay: 1000 }, removeOnComplete: false, removeOnFail: false };
}
