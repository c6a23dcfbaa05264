/**
 * bf16 Adam moments on the host (kernels/adam.wgsl's layout): a planar group of `lanes` values a
 * splat keeps lanes 2w and 2w + 1 of splat s in word w * plane + s, the even lane in the low
 * half. Checkpoints store moments as f32 in the host's order whatever the GPU keeps, so these
 * convert at the checkpoint's edge (and are the tests' reference of the layout).
 */

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** bf16 bits of a finite number, rounded to the nearest f32 first, then to the nearest bf16 (ties to even). */
export function bf16Bits(x: number): number {
  f32[0] = x;
  const b = u32[0];
  return ((b + 0x7fff + ((b >>> 16) & 1)) >>> 16) & 0xffff;
}

export function bf16Value(bits: number): number {
  u32[0] = (bits & 0xffff) << 16;
  return f32[0];
}

/** f32 planar values (`lanes` planes of `plane`) -> bf16 words (ceil(lanes / 2) planes of `plane`). */
export function packBf16Planar(planar: Float32Array, lanes: number, plane: number): Uint32Array {
  const words = new Uint32Array(Math.ceil(lanes / 2) * plane);
  for (let j = 0; j < lanes; j++) {
    const shift = 16 * (j & 1);
    for (let s = 0; s < plane; s++) words[(j >> 1) * plane + s] |= bf16Bits(planar[j * plane + s]) << shift;
  }
  return words;
}

/** The inverse: bf16 words -> f32 planar values, exactly. */
export function unpackBf16Planar(words: Uint32Array, lanes: number, plane: number): Float32Array {
  const planar = new Float32Array(lanes * plane);
  for (let j = 0; j < lanes; j++) {
    const shift = 16 * (j & 1);
    for (let s = 0; s < plane; s++) planar[j * plane + s] = bf16Value(words[(j >> 1) * plane + s] >>> shift);
  }
  return planar;
}
