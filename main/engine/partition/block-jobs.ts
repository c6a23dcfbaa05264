/**
 * What coordinator and workers agree on (docs/scale.md, "Queue and workers"): the BullMQ queue's
 * name, a block job's payload and id, and the lock and stalled-check timings. A job names the
 * project by the coordinator's path on storage every worker reaches (NFS/SMB; a worker mounting it
 * elsewhere maps it, path-map.ts), never by content: the block's data, checkpoints and status file
 * are in the project's data folder.
 */
import { z } from 'zod';
import { BLOCK_ID_PATTERN } from '../../../shared/project/partition.js';

export const BLOCK_QUEUE_NAME = 'argonaut-blocks';

/** The job's payload; `version` is the project manifest version (PROJECT_VERSION) of the coordinator's build. */
export const BlockJobSchema = z.object({
  version: z.number().int().min(1),
  /** Absolute path of the .argo file on the shared storage, as the coordinator sees it. */
  project: z.string().min(1),
  /** The manifest's id: a job id is unique across the projects one Redis serves. */
  projectId: z.string().min(1),
  run: z.string().regex(/^run-\d{3,}$/),
  block: z.string().regex(BLOCK_ID_PATTERN),
}).strict();
export type BlockJob = z.infer<typeof BlockJobSchema>;

/** What a worker reports through job.updateProgress (and the coordinator turns into `block` events). */
export const BlockJobProgressSchema = z.object({ step: z.number().int().min(0), total: z.number().int().min(0), worker: z.string() }).strict();
export type BlockJobProgress = z.infer<typeof BlockJobProgressSchema>;

/** One job per block of a run: adding it again (a restarted coordinator) finds the same job. BullMQ ids may not contain ':'. */
export function blockJobId(job: Pick<BlockJob, 'projectId' | 'run' | 'block'>): string {
  return `${job.projectId}.${job.run}.${job.block}`;
}

/**
 * Production timings (ms): a worker's lock on its job lasts 30 s and is renewed every 15 s (and
 * between steps, should a step outlast the timer); every 30 s workers look for jobs whose lock
 * expired (their worker died) and hand them out again, at most twice per job before it fails.
 * A killed worker's block so waits 30-60 s before another continues it from its checkpoint.
 */
export const QUEUE_TIMINGS = { lockDurationMs: 30_000, stalledIntervalMs: 30_000, maxStalledCount: 2 } as const;

/** Attempts per block job: a failure (not a stall) is retried from the block's newest checkpoint. */
export const BLOCK_JOB_ATTEMPTS = 3;
