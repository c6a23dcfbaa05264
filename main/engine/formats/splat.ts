/**
 * `.splat` files (antimatter15/splat's layout, read by most web viewers): the 32-byte records of
 * shared/scene/splat-layout.ts back to back, no header, sorted by importance (volume x opacity,
 * largest first) as antimatter15's convert.py sorts them. Colour keeps only the SH DC term.
 * Difference from convert.py: bytes are rounded, not truncated (the shared encoder's rounding).
 */
import { badInput } from '../../../shared/rpc/errors.js';
import { encodeSplatSet, SPLAT_STRIDE_BYTES } from '../../../shared/scene/splat-layout.js';
import type { SplatSet } from '../../../shared/scene/splats.js';
import { writeFileAtomic } from './atomic-file.js';

export function serializeSplat(splats: SplatSet): Uint8Array {
  return new Uint8Array(encodeSplatSet(splats, { sort: true }));
}

export async function writeSplatFile(path: string, splats: SplatSet): Promise<number> {
  const bytes = serializeSplat(splats);
  await writeFileAtomic(path, bytes);
  return bytes.byteLength;
}

/** Checks a `.splat` file: whole records, finite positions and scales. Returns the record count. */
export function checkSplatFile(bytes: Uint8Array, file: string): number {
  if (bytes.byteLength % SPLAT_STRIDE_BYTES !== 0) throw badInput(file, `${bytes.byteLength} bytes is not a whole number of 32-byte splats (truncated?)`);
  const count = bytes.byteLength / SPLAT_STRIDE_BYTES;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < count; i++) {
    for (let k = 0; k < 6; k++) {
      const v = view.getFloat32(i * SPLAT_STRIDE_BYTES + 4 * k, true);
      if (!Number.isFinite(v)) throw badInput(file, `splat ${i}: ${k < 3 ? 'position' : 'scale'} is ${v}`);
    }
  }
  return count;
}
