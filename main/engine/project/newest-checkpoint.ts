/**
 * A run's newest usable checkpoint: the folder is the truth, not the manifest (a crash during the
 * manifest's save leaves a checkpoint the manifest does not list yet). Its own module because
 * both training (train-run.ts) and the splats a project shows (splats.ts) need it.
 */
import { checkpointProblem } from '../train/checkpoint.js';
import { checkpointFiles } from '../train/job.js';

/** The newest checkpoint in `dir` whose file is whole (skipping, with a warning, any that is not). */
export async function newestCompleteCheckpoint(dir: string, warn?: (m: string) => void): Promise<{ file: string; step: number } | undefined> {
  for (const c of await checkpointFiles(dir)) {
    const problem = await checkpointProblem(c.file);
    if (!problem) return c;
    warn?.(`${c.file}: skipped (${problem}); trying an older checkpoint`);
  }
  return undefined;
}
