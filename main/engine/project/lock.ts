/**
 * One trainer per project: `<data>/train.lock` names the process training it. A lock whose process
 * is gone (killed, crashed, another machine's reboot) is stale and taken over; a live one is
 * refused with `busy`, naming the process. Same-process jobs are the job manager's to serialize.
 */
import { readFile, unlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { ArgonautError } from '../../../shared/rpc/errors.js';
import { makeFolder, processAlive, writeFileAtomic } from '../formats/atomic-file.js';

const LockFile = z.object({ pid: z.number().int(), host: z.string(), startedAt: z.string() });
type Lock = z.infer<typeof LockFile>;

function lockPath(dataDir: string): string {
  return path.join(dataDir, 'train.lock');
}

/** The process holding the lock, if it is alive (on this host; a lock from another host counts as held). */
export async function liveLockHolder(dataDir: string): Promise<Lock | undefined> {
  let lock: Lock;
  try {
    const parsed = LockFile.safeParse(JSON.parse(await readFile(lockPath(dataDir), 'utf8')));
    if (!parsed.success) return undefined;
    lock = parsed.data;
  } catch {
    return undefined;
  }
  if (lock.host !== os.hostname()) return lock;
  return processAlive(lock.pid) ? lock : undefined;
}

/**
 * Takes the project's training lock; returns its release. Takes the two paths it needs, not a
 * `Project`: project.ts reads the lock when it opens a project, so the lock knows nothing of it.
 */
export async function acquireTrainingLock(project: { readonly file: string; readonly dataDir: string }): Promise<() => Promise<void>> {
  const holder = await liveLockHolder(project.dataDir);
  if (holder && holder.pid !== process.pid) {
    throw new ArgonautError('busy', `${project.file}: already being trained by process ${holder.pid} on ${holder.host} (since ${holder.startedAt}); stop it first`, { file: project.file, pid: holder.pid });
  }
  const file = lockPath(project.dataDir);
  await makeFolder(project.dataDir);
  await writeFileAtomic(file, JSON.stringify({ pid: process.pid, host: os.hostname(), startedAt: new Date().toISOString() } satisfies Lock));
  return async () => {
    try {
      const current = LockFile.safeParse(JSON.parse(await readFile(file, 'utf8')));
      if (current.success && current.data.pid === process.pid && current.data.host === os.hostname()) await unlink(file);
    } catch {
      // already gone
    }
  };
}
