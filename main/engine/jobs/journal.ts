/**
 * The job journal: `<state>/jobs.json`, every training job the engine host knows and its state,
 * written atomically on each change. After the supervisor restarts a crashed host (a GPU device
 * loss, a kill), the new host reads it and continues the jobs that were running.
 */
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { PartitionedJobSchema } from '../../../shared/contract/partitions.js';
import { isActiveJobState, JobStateSchema, TrainSourceSchema } from '../../../shared/contract/projects.js';
import { writeFileAtomic } from '../formats/atomic-file.js';

export const JobRecordSchema = z.object({
  job: z.string(),
  source: TrainSourceSchema,
  /** The project trained (the user's, or a scratch project for sample and dataset sources). */
  project: z.string(),
  run: z.string().optional(),
  state: JobStateSchema,
  step: z.number().int(),
  total: z.number().int(),
  params: z.record(z.string(), z.union([z.number(), z.string(), z.boolean()])),
  newRun: z.boolean(),
  /** Automatic continuations after host crashes since the last checkpoint (a job that keeps crashing the host stops). */
  recoveries: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  /** A job training a partition's blocks; its queue URL without the password (which is never written). */
  partition: PartitionedJobSchema.optional(),
});
export type JobRecord = z.infer<typeof JobRecordSchema>;

const JournalFile = z.object({ version: z.literal(1), jobs: z.array(JobRecordSchema) });
/** Finished jobs kept in the journal (active ones are always kept). */
const KEEP_DONE = 50;

export class JobJournal {
  private saving: Promise<void> = Promise.resolve();

  constructor(readonly dir: string) {}

  get file(): string {
    return path.join(this.dir, 'jobs.json');
  }

  /** The journal's jobs; an unreadable journal is empty (and said so through `warn`). */
  async read(warn?: (m: string) => void): Promise<JobRecord[]> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch {
      return [];
    }
    try {
      const parsed = JournalFile.safeParse(JSON.parse(text));
      if (parsed.success) return parsed.data.jobs;
      warn?.(`${this.file}: unreadable job journal (${parsed.error.issues[0]?.message}); starting with no jobs`);
    } catch (error) {
      warn?.(`${this.file}: unreadable job journal (${(error as Error).message}); starting with no jobs`);
    }
    return [];
  }

  /** Writes `jobs` (newest last); writes queue so the last call's state lands last. */
  write(jobs: readonly JobRecord[]): Promise<void> {
    const done = jobs.filter((j) => !isActiveJobState(j.state));
    const drop = new Set(done.slice(0, Math.max(0, done.length - KEEP_DONE)));
    const snapshot = JSON.stringify({ version: 1, jobs: jobs.filter((j) => !drop.has(j)) }, null, 2);
    const next = this.saving.then(async () => {
      await mkdir(this.dir, { recursive: true });
      await writeFileAtomic(this.file, `${snapshot}\n`);
    });
    this.saving = next.catch(() => undefined);
    return next;
  }
}
