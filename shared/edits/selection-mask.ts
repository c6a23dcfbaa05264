/**
 * Selections two ways (the engine and the renderer alike): a bitmask (u32 words, bit i & 31 of word i >> 5 for base splat i: what the
 * GPU selection reads and writes, 1.25 MB for 10M splats) and a sorted list of distinct base
 * indices (what an edit operation stores, shared/edits/edit-list.ts).
 */

/** Words of a bitmask over `count` splats. */
export function maskWords(count: number): number {
  return Math.ceil(count / 32);
}

/** An empty bitmask over `count` splats. */
export function emptyMask(count: number): Uint32Array<ArrayBuffer> {
  return new Uint32Array(maskWords(count));
}

/** Bit count of a 32-bit word (SWAR popcount). */
function popcount(word: number): number {
  let v = word - ((word >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}

/** Selected splats in a mask. */
export function maskCount(mask: Uint32Array): number {
  let n = 0;
  for (let w = 0; w < mask.length; w++) if (mask[w]) n += popcount(mask[w]);
  return n;
}

/** The mask of `indices` (any order, repeats allowed) over `count` splats; an index >= count is refused. */
export function maskFromIndices(indices: ArrayLike<number>, count: number): Uint32Array {
  const mask = emptyMask(count);
  for (let k = 0; k < indices.length; k++) {
    const i = indices[k];
    if (!(Number.isInteger(i) && i >= 0 && i < count)) throw new RangeError(`selection: index ${i} (entry ${k}) is outside the ${count} splats`);
    mask[i >>> 5] |= 1 << (i & 31);
  }
  return mask;
}

/** The sorted indices of a mask's set bits. */
export function indicesFromMask(mask: Uint32Array): Uint32Array {
  const out = new Uint32Array(maskCount(mask));
  let k = 0;
  for (let w = 0; w < mask.length; w++) {
    let bits = mask[w];
    while (bits) {
      const low = bits & -bits;
      out[k++] = w * 32 + (31 - Math.clz32(low));
      bits ^= low;
    }
  }
  return out;
}

/** Whether splat i is in the mask. */
export function maskHas(mask: Uint32Array, i: number): boolean {
  return ((mask[i >>> 5] >>> (i & 31)) & 1) === 1;
}

/**
 * Checks that a mask given from outside (the UI, a file) fits `count` splats: the right number of
 * words and no bit past the last splat. `what` names it in the error.
 */
export function checkMask(mask: Uint32Array, count: number, what: string): void {
  if (mask.length !== maskWords(count)) throw new RangeError(`${what}: ${mask.length} words, expected ${maskWords(count)} for ${count} splats`);
  const tail = count & 31;
  if (tail && mask.length && mask[mask.length - 1] >>> tail) throw new RangeError(`${what}: bits set past splat ${count - 1}`);
}
