import { readFile } from 'node:fs/promises';
import { ArgonautError, badInput } from '../../../shared/rpc/errors.js';

/** A user's input file, whole: missing is `not_found`, unreadable a `bad_input`, both naming it. */
export async function readInputFile(file: string): Promise<Uint8Array> {
  try {
    return await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new ArgonautError('not_found', `${file}: no such file`, { file });
    throw badInput(file, `cannot read the file (${(error as Error).message})`);
  }
}
