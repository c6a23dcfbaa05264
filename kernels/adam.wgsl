// adam: the optimizer step for one parameter group (a flat f32 buffer), fused: bias-corrected
// moments and the update in one pass, no intermediate buffers.
//   in/out: param, m, v (first and second moments); in: grad
//   value `lane` of splat s uses lr_head when lane < head, else lr_tail (SH: the DC
//   coefficients learn at lr_head, the rest at lr_tail). Element i is (s, lane) = (i / stride,
//   i % stride), or for planar groups (SH) (i % plane, i / plane). Only splats s < count (read on the GPU) are touched. A non-finite
//   gradient element is skipped (parameter and moments unchanged) and counted in flags[0].
// Workgroup: WG threads, one element each, 2D dispatch over the capacity.

#include "dispatch"

override WG: u32 = 256u;

struct AdamParams {
  lr_head: f32,
  lr_tail: f32,
  beta1: f32,
  beta2: f32,
  epsilon: f32,
  bias1: f32, // 1 - beta1^t
  bias2: f32, // 1 - beta2^t
  stride: u32,
  head: u32,
  count_index: u32,
  group_index: u32, // which flags slot counts this group's non-finite gradients
  plane: u32, // 0: element i is value i % stride of splat i / stride; else planar (SH): value i / plane of splat i % plane
}

@group(0) @binding(0) var<uniform> ap: AdamParams;
@group(0) @binding(1) var<storage, read> counts: array<u32>;
@group(0) @binding(2) var<storage, read_write> param: array<f32>;
@group(0) @binding(3) var<storage, read> grad: array<f32>;
@group(0) @binding(4) var<storage, read_write> m: array<f32>;
@group(0) @binding(5) var<storage, read_write> v: array<f32>;
// [0]: gradients found non-finite (NaN/Inf) and skipped, counted for the host's report;
// [1 + group_index]: the same per parameter group
@group(0) @binding(6) var<storage, read_write> flags: array<atomic<u32>>;

fn is_finite(x: f32) -> bool {
  return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u;
}

@compute @workgroup_size(WG)
fn adam_step(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = thread_id(gid, nwg);
  var splat = i / ap.stride;
  var lane = i % ap.stride;
  if (ap.plane != 0u) {
    splat = i % ap.plane;
    lane = i / ap.plane;
  }
  if (splat >= counts[ap.count_index] || lane >= ap.stride) {
    return;
  }
  let g = grad[i];
  if (!is_finite(g)) {
    atomicAdd(&flags[0], 1u); // never let a NaN or Inf reach the parameters or the moments
    atomicAdd(&flags[1u + ap.group_index], 1u);
    return;
  }
  let m1 = ap.beta1 * m[i] + (1.0 - ap.beta1) * g;
  let v1 = ap.beta2 * v[i] + (1.0 - ap.beta2) * g * g;
  m[i] = m1;
  v[i] = v1;
  let lr = select(ap.lr_tail, ap.lr_head, lane < ap.head);
  param[i] -= lr * (m1 / ap.bias1) / (sqrt(v1 / ap.bias2) + ap.epsilon);
}
