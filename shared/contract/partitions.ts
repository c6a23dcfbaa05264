import { z } from 'zod';
import { paramsForCommand, paramsSchema } from '../params/index.js';
import { RunStatusSchema } from '../project/manifest.js';
import { PARTITION_ID_PATTERN, PartitionedRunSchema, PartitionSchema } from '../project/partition.js';

/**
 * A project's partitions into blocks (docs/scale.md): `projects.partition` splits its scene and
 * keeps the partition (as the CLI's `partition`), `projects.partitions` lists them with the runs
 * trained as blocks (each block's state, step and worker; the merge), for the Partition panel;
 * `train.partitioned` trains one partition's blocks as a training job (as the CLI's
 * `train p.argo --partition ID [--queue URL] [--merge-fine-tune N]`).
 */
const path = z.string().min(1).max(4096).refine((s) => !s.includes('\0'), 'a path cannot contain NUL');

export const PartitionMakeArgs = z
  .object({
    project: path,
    blocks: z.number().int().min(1).max(4096).optional(),
    blockSize: z.number().positive().finite().optional(),
    method: z.enum(['grid', 'kd']),
    overlap: z.number().min(0).max(1),
  })
  .strict()
  .refine((a) => (a.blocks === undefined) !== (a.blockSize === undefined), 'give either blocks or blockSize');

export const PartitionsArgs = z.object({ project: path }).strict();

export const PartitionsResult = z.object({
  partitions: z.array(PartitionSchema),
  /** Runs trained as blocks, oldest first. */
  runs: z.array(z.object({ run: z.string(), status: RunStatusSchema, partition: PartitionedRunSchema })),
});
export type PartitionsResultValue = z.infer<typeof PartitionsResult>;

export const TrainPartitionedArgs = z
  .object({
    project: path,
    partition: z.string().regex(PARTITION_ID_PATTERN, 'expected partition-NNN'),
    /**
     * redis://[user:password@]host:port[/db] or rediss:// (TLS): the blocks become jobs for
     * `worker` processes. Absent: they train in the engine, one after another. The engine checks
     * it (and that Redis answers and takes the password) before the job starts.
     */
    queue: z.string().min(1).max(2048).optional(),
    /** Steps of the joint fine-tune over all cameras after the merge (default 0: none). */
    mergeFineTune: z.number().int().min(0).max(1_000_000).optional(),
    /** The train command's parameters for a new run (a continued run keeps its own); system.* are ignored. */
    params: paramsSchema(paramsForCommand('train')).default({}),
  })
  .strict();

/** A partitioned job's partition, queue (its password replaced by ***; absent: in the engine) and merge fine-tune. */
export const PartitionedJobSchema = z.object({
  partition: z.string(),
  queue: z.string().optional(),
  mergeFineTune: z.number().int().optional(),
});
export type PartitionedJob = z.infer<typeof PartitionedJobSchema>;
