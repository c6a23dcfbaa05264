/**
 * A stored selection (`edits/<operation id>.sel` in the project's data folder): sorted, distinct
 * indices into an edit list's base splats. Binary, because a selection of 10M splats does not
 * belong in a JSON manifest:
 *
 *   bytes 0-3    magic "ASEL"
 *   bytes 4-7    version (u32, little-endian): 1
 *   bytes 8-11   base splat count (u32): every index is below it
 *   bytes 12-15  index count N (u32)
 *   bytes 16-    N indices (u32, little-endian), strictly increasing
 *
 * Written atomically (writeFileAtomic); read back with every field checked, so a damaged or
 * foreign file is a bad input naming the file, never a wrong edit.
 */
import { readFile } from 'node:fs/promises';
import { badInput } from '../../../shared/rpc/errors.js';
import { writeFileAtomic } from '../formats/atomic-file.js';

export const SELECTION_MAGIC = 'ASEL';
export const SELECTION_VERSION = 1;
export const SELECTION_HEADER_BYTES = 16;

/** The problem with `indices` as a selection of `baseCount` splats, or undefined when it is one. */
export function selectionProblem(indices: ArrayLike<number>, baseCount: number): string | undefined {
  let previous = -1;
  for (let i = 0; i < indices.length; i++) {
    const index = indices[i];
    if (!Number.isInteger(index) || index < 0) return `index ${i} is ${index}, not a non-negative integer`;
    if (index >= baseCount) return `index ${i} is ${index}, not below the base's ${baseCount} splats`;
    if (index <= previous) return `index ${i} (${index}) does not follow index ${i - 1} (${previous}): indices must be sorted and distinct`;
    previous = index;
  }
  return undefined;
}

/** The file's bytes: header and indices (which the caller has checked with selectionProblem). */
export function encodeSelection(indices: Uint32Array, baseCount: number): Uint8Array {
  const bytes = new Uint8Array(SELECTION_HEADER_BYTES + indices.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < 4; i++) bytes[i] = SELECTION_MAGIC.charCodeAt(i);
  view.setUint32(4, SELECTION_VERSION, true);
  view.setUint32(8, baseCount, true);
  view.setUint32(12, indices.length, true);
  for (let i = 0; i < indices.length; i++) view.setUint32(SELECTION_HEADER_BYTES + 4 * i, indices[i], true);
  return bytes;
}

/** Parses a selection file's bytes; `file` names it in every error. */
export function decodeSelection(bytes: Uint8Array, file: string): { baseCount: number; indices: Uint32Array } {
  if (bytes.length < SELECTION_HEADER_BYTES) throw badInput(file, `not a selection file: ${bytes.length} bytes, shorter than its ${SELECTION_HEADER_BYTES}-byte header (truncated?)`);
  const magic = String.fromCharCode(bytes[0], bytes[1], bytes[2], bytes[3]);
  if (magic !== SELECTION_MAGIC) throw badInput(file, `not a selection file: starts with ${JSON.stringify(magic)}, expected "${SELECTION_MAGIC}"`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(4, true);
  if (version !== SELECTION_VERSION) throw badInput(file, `selection file version ${version}; this build reads version ${SELECTION_VERSION}`);
  const baseCount = view.getUint32(8, true);
  const count = view.getUint32(12, true);
  const expected = SELECTION_HEADER_BYTES + count * 4;
  if (bytes.length !== expected) throw badInput(file, `the header says ${count} indices (${expected} bytes) but the file has ${bytes.length} bytes (${bytes.length < expected ? 'truncated' : 'trailing bytes'})`);
  const indices = new Uint32Array(count);
  for (let i = 0; i < count; i++) indices[i] = view.getUint32(SELECTION_HEADER_BYTES + 4 * i, true);
  const problem = selectionProblem(indices, baseCount);
  if (problem) throw badInput(file, `damaged selection: ${problem}`);
  return { baseCount, indices };
}

export async function writeSelectionFile(file: string, indices: Uint32Array, baseCount: number): Promise<void> {
  const problem = selectionProblem(indices, baseCount);
  if (problem) throw badInput(file, `refusing to write the selection: ${problem}`);
  await writeFileAtomic(file, encodeSelection(indices, baseCount));
}

/**
 * Reads a selection and checks it against what the manifest says of it: the base's splat count
 * and, when given, the number of indices the operation recorded.
 */
export async function readSelectionFile(file: string, expect: { baseCount: number; count?: number }): Promise<Uint32Array> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw badInput(file, code === 'ENOENT' ? 'the selection file is missing (the project is incomplete: restore the data folder, or clear the edits)' : `cannot read the selection file (${code ?? (error as Error).message})`);
  }
  const { baseCount, indices } = decodeSelection(bytes, file);
  if (baseCount !== expect.baseCount) throw badInput(file, `the selection is of ${baseCount} splats but the edit list's base has ${expect.baseCount}`);
  if (expect.count !== undefined && indices.length !== expect.count) throw badInput(file, `the selection holds ${indices.length} indices but the manifest records ${expect.count}`);
  return indices;
}
