import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
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
    for (const chunk of chunks) {
      let offset = 0;
      while (offset < chunk.length) {
        const { bytesWritten } = await handle.write(chunk, offset, Math.min(chunk.length - offset, 1 << 30));
        offset += bytesWritten;
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

export function writeError(path: string, error: unknown): ArgonautError {
  if (error instanceof ArgonautError) return error;
  const code = (error as NodeJS.ErrnoException)?.code ?? '';
  return new ArgonautError('bad_input', `${path}: cannot write (${REASONS[code] ?? (code || (error as Error)?.message)})`, { file: path, errno: code || undefined });
}
