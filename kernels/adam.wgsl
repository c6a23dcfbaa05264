// adam: the optimizer step for one parameter group (a flat f32 buffer), fused: bias-corrected
// moments and the update in one pass, no intermediate buffers.
//   in/out: param, m, v (first and second moments); in: grad
//   value `lane` of splat s uses lr_head when lane < head, else lr_tail (SH: the DC
//   coefficients learn at lr_head, the rest at lr_tail). Element i is (s, lane) = (i / stride,
//   i % stride), or for planar groups (SH) (i % plane, i / plane). Only splats s < count (read on the GPU) are touched. A non-finite
//   gradient element is skipped (parameter and moments unchanged) and counted in flags[0].
//   Sparse (sparse != 0): splats whose visible[s] is 0 in this step's view are skipped whole
//   (parameters and moments as they were: Adam only on the visible splats). Only lanes below
//   lane_end are updated (the SH bands above the DC updated less often: lane_end 3 between).
//   Moments are f32 (moment_shift 0: one a value), or bf16 (moment_shift 1, any group: word
//   w * moment_plane + s holds lanes 2w (low half) and 2w + 1 (high half) of splat s, moments.wgsl;
//   one thread a word). bf16 keeps f32's exponent, so v never underflows where f16 would; m is rounded to the
//   nearest even, v stochastically (a counter hash of step, splat, lane): 0.999 v differs from v
//   by less than half a bf16 step, so nearest rounding would never let v decay.
// Workgroup: WG threads, one element (or word) each, 2D dispatch over the capacity.

#include "dispatch"
#include "random"
#include "moments"
#include "adam-common"

override WG: u32 = 256u;

@group(0) @binding(0) var<uniform> ap: AdamParams;
@group(0) @binding(1) var<storage, read> counts: array<u32>;
@group(0) @binding(2) var<storage, read_write> param: array<f32>;
@group(0) @binding(3) var<storage, read> grad: array<f32>;
// the moments' bits: f32 values, or bf16 pairs (moment_shift 1)
@group(0) @binding(4) var<storage, read_write> m: array<u32>;
@group(0) @binding(5) var<storage, read_write> v: array<u32>;
// [0]: gradients found non-finite (NaN/Inf) and skipped, counted for the host's report;
// [1 + group_index]: the same per parameter group
@group(0) @binding(6) var<storage, read_write> flags: array<atomic<u32>>;
// per splat, nonzero where the splat was visible in this step's view (read only when sparse)
@group(0) @binding(7) var<storage, read> visible: array<u32>;

fn skipped(s: u32) -> bool {
  return s >= counts[ap.count_index] || (ap.sparse != 0u && visible[s] == 0u);
}

// Thread = word w * moment_plane + s (moments.wgsl): lanes 2w and 2w + 1 of splat s, their moments
// in one u32 each; the values where the group keeps them (planar or interleaved).
fn step_bf16_pair(i: u32) {
  let s = i % ap.moment_plane;
  let word = i / ap.moment_plane;
  if (2u * word >= ap.lane_end || skipped(s)) {
    return;
  }
  var m_bits = m[i];
  var v_bits = v[i];
  for (var half = 0u; half < 2u; half++) {
    let lane = 2u * word + half;
    if (lane >= ap.lane_end) {
      break;
    }
    var at = s * ap.stride + lane;
    if (ap.plane != 0u) {
      at = lane * ap.plane + s;
    }
    let g = grad[at];
    if (!is_finite(g)) {
      count_non_finite();
      continue;
    }
    let e = adam_element(param[at], s, lane, g, m_bits, v_bits, half);
    param[at] = e.p;
    m_bits = e.m;
    v_bits = e.v;
  }
  m[i] = m_bits;
  v[i] = v_bits;
}

@compute @workgroup_size(WG)
fn adam_step(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = thread_id(gid, nwg);
  if (ap.moment_shift != 0u) {
    step_bf16_pair(i);
    return;
  }
  var splat = i / ap.stride;
  var lane = i % ap.stride;
  if (ap.plane != 0u) {
    splat = i % ap.plane;
    lane = i / ap.plane;
  }
  if (lane >= ap.lane_end || skipped(splat)) {
    return;
  }
  let g = grad[i];
  if (!is_finite(g)) {
    count_non_finite();
    return;
  }
  let e = adam_element(param[i], splat, lane, g, m[i], v[i], 0u);
  param[i] = e.p;
  m[i] = e.m;
  v[i] = e.v;
}
