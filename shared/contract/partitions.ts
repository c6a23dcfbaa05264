import { z } from 'zod';
import { RunStatusSchema } from '../project/manifest.js';
import { PartitionedRunSchema, PartitionSchema } from '../project/partition.js';

/**
 * A project's partitions into blocks (docs/scale.md): `projects.partition` splits its scene and
 * keeps the partition (as the CLI's `partition`), `projects.partitions` lists them with the runs
 * trained as blocks (each block's state, step and worker; the merge), for the Partition panel.
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
