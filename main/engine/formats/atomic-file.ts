import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, open, readdir, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ArgonautError } from '../../../shared/rpc/errors.js';

const REASONS: Record<string, string> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is exceeded',
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOENT: 'the folder does not exist',
  ENOTDIR: 'a parent is not a folder',
  EISDIR: 'it is a folder',
};

/**
 * Writes a file so that readers see either the old content or the whole new one, never a part,
 * even across a crash or power cut: a temporary file in the same folder, fsync, rename over the
 * target, fsync of the folder. The old file is untouched if anything fails. Chunks are written
 * one by one (checkpoints can be gigabytes). Failures are `bad_input` naming the file and why.
 *
 * Test hook: ARGONAUT_TEST_SLOW_WRITE_MS=N pauses N ms once half of the bytes are in the
 * temporary file (before fsync and rename), so crash tests can kill a process mid-save for sure;
 * ARGONAUT_TEST_SLOW_WRITE_MATCH=<regex> limits it to matching file names. Unset: no effect.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array | readonly Uint8Array[]): Promise<void> {
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  let handle;
  try {
    handle = await open(temp, 'wx');
  } catch (error) {
    throw writeError(path, error);
  }
  try {
    const chunks = typeof data === 'string' ? [Buffer.from(data)] : data instanceof Uint8Array ? [data] : data;
    const slow = slowWriteMs(path);
    const total = chunks.reduce((sum, c) => sum + c.length, 0);
    let written = 0;
    for (const chunk of chunks) {
      let offset = 0;
      while (offset < chunk.length) {
        const half = slow > 0 && written < total / 2 ? Math.ceil(total / 2) - written : Infinity;
        const { bytesWritten } = await handle.write(chunk, offset, Math.min(chunk.length - offset, 1 << 30, Math.max(1, half)));
        offset += bytesWritten;
        written += bytesWritten;
        if (slow > 0 && written >= total / 2 && written - bytesWritten < total / 2) await new Promise((resolve) => setTimeout(resolve, slow));
      }
    }
    await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(temp, path);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw writeError(path, error);
  }
  if (process.platform !== 'win32') {
    try {
      const folder = await open(dir, 'r');
      try {
        await folder.sync();
      } finally {
        await folder.close();
      }
    } catch {
      // some file systems refuse fsync on folders; the rename is done
    }
  }
}

function slowWriteMs(path: string): number {
  const ms = Number(process.env.ARGONAUT_TEST_SLOW_WRITE_MS ?? 0);
  if (!(ms > 0)) return 0;
  const match = process.env.ARGONAUT_TEST_SLOW_WRITE_MATCH;
  return !match || new RegExp(match).test(basename(path)) ? ms : 0;
}

/**
 * `mkdir -p` whose failure says why: Node's recursive mkdir reports ENOENT on a read-only file
 * system, so a failure is retried without recursion to get the real reason (EROFS, EACCES, ENOSPC).
 */
export async function makeFolder(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    let real = error;
    try {
      await mkdir(dir);
    } catch (again) {
      if ((again as NodeJS.ErrnoException).code !== 'ENOENT') real = again;
    }
    throw writeError(dir, real, 'cannot create the folder');
  }
}

export function writeError(path: string, error: unknown, what = 'cannot write'): ArgonautError {
  if (error instanceof ArgonautError) return error;
  const code = (error as NodeJS.ErrnoException)?.code ?? '';
  return new ArgonautError('bad_input', `${path}: ${what} (${REASONS[code] ?? (code || (error as Error)?.message)})`, { file: path, errno: code || undefined });
}

/**
 * Removes temporary files that writeFileAtomic left behind in `dir` when its process was killed
 * mid-write (`.<name>.<pid>.<random>.tmp` of a process that no longer runs). Never touches the
 * targets themselves. Returns the names removed.
 */
export async function removeStaleTemps(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = /^\..+\.(\d+)\.[0-9a-f]{12}\.tmp$/.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid === process.pid || processAlive(pid)) continue;
    try {
      await unlink(join(dir, name));
      removed.push(name);
    } catch {
      // someone else cleaned it
    }
  }
  return removed;
}

/** Whether a process of this machine still runs (EPERM: it does, as another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Copies a file so that `dest` is either absent/old or the whole copy (temporary file, then rename). */
export async function copyFileAtomic(source: string, dest: string): Promise<void> {
  const temp = join(dirname(dest), `.${basename(dest)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await copyFile(source, temp);
    await rename(temp, dest);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw writeError(dest, error);
  }
}
