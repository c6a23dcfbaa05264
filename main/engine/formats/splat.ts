/**
 * `.splat` files (antimatter15/splat's layout, read by most web viewers): the 32-byte records of
 * shared/scene/splat-layout.ts back to back, no header, sorted by importance (volume x opacity,
 * largest first) as antimatter15's convert.py sorts them. Colour keeps only the SH DC term.
 * Difference from convert.py: bytes are rounded, not truncated (the shared encoder's rounding).
 */
import { badInput } from '../../../shared/rpc/errors.js';
import { encodeSplatSet, readSplat, SPLAT_STRIDE_BYTES, viewSplatBuffer } from '../../../shared/scene/splat-layout.js';
import { emptySplats, SH_C0, type SplatSet } from '../../../shared/scene/splats.js';
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

/**
 * A checked `.splat` file back to splats of SH degree 0: log of the scales, the DC term from the
 * colour ((rgb / 255 - 0.5) / SH_C0) and the logit of alpha (kept inside (0, 1): a byte of 0 or
 * 255 would be an infinite logit).
 */
export function parseSplat(bytes: Uint8Array, file: string): SplatSet {
  const count = checkSplatFile(bytes, file);
  const copy = new Uint8Array(bytes); // aligned for the float view
  const views = viewSplatBuffer(copy.buffer, count);
  const s = emptySplats(count, 0);
  for (let i = 0; i < count; i++) {
    const r = readSplat(views, i);
    s.means.set(r.position, 3 * i);
    for (let a = 0; a < 3; a++) {
      if (!(r.scale[a] > 0)) throw badInput(file, `splat ${i}: scale ${r.scale[a]} is not positive`);
      s.logScales[3 * i + a] = Math.log(r.scale[a]);
    }
    for (let c = 0; c < 3; c++) s.sh[3 * i + c] = (r.rgba[c] / 255 - 0.5) / SH_C0;
    const alpha = Math.min(511 / 512, Math.max(1 / 512, r.rgba[3] / 255));
    s.opacityLogits[i] = Math.log(alpha / (1 - alpha));
    s.quats.set(r.quaternion, 4 * i);
  }
  return s;
}
