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
