/**
 * Float64 reference of the fused Adam kernel (kernels/adam.wgsl): PyTorch's update, bias-corrected
 * moments (beta1 0.9, beta2 0.999), eps 1e-15 outside the square root. Each splat's parameter row
 * has `stride` values; the first `head` use `lrHead`, the rest `lrTail` (SH DC vs rest). Rows past
 * `count` are untouched. Tests only.
 */
export function adamReference(p: readonly number[], grads: readonly (readonly number[])[], lrHead: number, lrTail: number, stride: number, head: number, count: number): number[] {
  const m = p.map(() => 0);
  const v = p.map(() => 0);
  const out = [...p];
  grads.forEach((g, step) => {
    const t = step + 1;
    for (let i = 0; i < count * stride; i++) {
      m[i] = 0.9 * m[i] + 0.1 * g[i];
      v[i] = 0.999 * v[i] + 0.001 * g[i] * g[i];
      const lr = i % stride < head ? lrHead : lrTail;
      out[i] -= (lr * (m[i] / (1 - 0.9 ** t))) / (Math.sqrt(v[i] / (1 - 0.999 ** t)) + 1e-15);
    }
  });
  return out;
}

/** kernels/random.wgsl's hash_u32 (PCG-RXS-M-XS), in u32 arithmetic. */
export function hashU32(x: number): number {
  const h = (Math.imul(x >>> 0, 747796405) + 2891336453) >>> 0;
  const r = Math.imul(((h >>> ((h >>> 28) + 4)) ^ h) >>> 0, 277803737) >>> 0;
  return ((r >>> 22) ^ r) >>> 0;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
const bits = (x: number) => ((f32[0] = x), u32[0]);
const value = (b: number) => ((u32[0] = b << 16), f32[0]);
/** bf16 of x's f32, to the nearest (ties to even). */
export const bf16Nearest = (x: number): number => value(((bits(x) + 0x7fff + ((bits(x) >>> 16) & 1)) >>> 16) & 0xffff);
/** bf16 of x's f32 (>= 0), rounded up with probability of the dropped bits, `r` in [0, 2^16). */
export const bf16Stochastic = (x: number, r: number): number => value(Math.min((bits(x) + r) >>> 16, 0x7f7f));

/** Whether (0-based) step `step` updates value `lane` of splat `s` (sparse steps, SH bands less often). */
export type Updates = (step: number, lane: number, s: number) => boolean;

/**
 * The same update with the SH group's bf16 moments (or with `bf16` false, f32 ones, planar) (kernels/adam.wgsl, moment_shift 1): planar
 * values (lane j of splat s at j * plane + s), the moments rounded to bf16 after every step, m to
 * the nearest, v stochastically by the kernel's counter hash of (step, splat, lane). Float64
 * arithmetic between the roundings. Values `updates` leaves out keep their parameter and moments.
 */
export function adamBf16Reference(p: readonly number[], grads: readonly (readonly number[])[], lrHead: number, lrTail: number, stride: number, head: number, count: number, plane: number, updates: Updates = () => true, bf16 = true): { param: number[]; m: number[]; v: number[] } {
  const m = p.map(() => 0);
  const v = p.map(() => 0);
  const out = [...p];
  grads.forEach((g, step) => {
    const t = step + 1;
    for (let lane = 0; lane < stride; lane++) {
      for (let s = 0; s < count; s++) {
        if (!updates(step, lane, s)) continue; // parameter and moments as they were
        const i = lane * plane + s;
        const m1 = 0.9 * m[i] + 0.1 * g[i];
        const v1 = 0.999 * v[i] + 0.001 * g[i] * g[i];
        const lr = lane < head ? lrHead : lrTail;
        out[i] -= (lr * (m1 / (1 - 0.9 ** t))) / (Math.sqrt(v1 / (1 - 0.999 ** t)) + 1e-15);
        m[i] = bf16 ? bf16Nearest(m1) : m1;
        v[i] = bf16 ? bf16Stochastic(v1, hashU32((t ^ hashU32((s ^ hashU32((lane ^ 0x9e3779b9) >>> 0)) >>> 0)) >>> 0) & 0xffff) : v1;
      }
    }
  });
  return { param: out, m, v };
}
