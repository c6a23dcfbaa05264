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
//   Moments are f32 (moment_shift 0: one a value), or for planar groups bf16 (moment_shift 1:
//   word w * plane + s holds lanes 2w (low half) and 2w + 1 (high half) of splat s; one thread a
//   word). bf16 keeps f32's exponent, so v never underflows where f16 would; m is rounded to the
//   nearest even, v stochastically (a counter hash of step, word, lane): 0.999 v differs from v
//   by less than half a bf16 step, so nearest rounding would never let v decay.
// Workgroup: WG threads, one element (or word) each, 2D dispatch over the capacity.

#include "dispatch"
#include "random"

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
  moment_shift: u32, // 0: f32 moments; 1: bf16 pairs (planar groups only)
  step: u32, // t: the stochastic rounding's counter
  lane_end: u32, // lanes >= lane_end are left as they are this step
  sparse: u32, // 1: skip the splats not visible in this step's view
}

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

fn is_finite(x: f32) -> bool {
  return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u;
}

// bf16 bits of a finite f32, rounded to the nearest (ties to even).
fn bf16_nearest(x: f32) -> u32 {
  let b = bitcast<u32>(x);
  return (b + 0x7fffu + ((b >> 16u) & 1u)) >> 16u;
}

// bf16 bits of a finite f32 >= 0, rounded up with probability (x - down) / (up - down).
fn bf16_stochastic(x: f32, word: u32, lane: u32) -> u32 {
  let r = hash_u32(ap.step ^ hash_u32(word ^ hash_u32(lane ^ 0x9e3779b9u))) & 0xffffu;
  return min((bitcast<u32>(x) + r) >> 16u, 0x7f7fu); // never rounds up into Inf
}

fn bf16_value(bits: u32) -> f32 {
  return bitcast<f32>(bits << 16u);
}

// One element's update; returns (m, v) after the step. `lane` picks the learning rate.
fn update(at: u32, lane: u32, g: f32, m0: f32, v0: f32) -> vec2f {
  let m1 = ap.beta1 * m0 + (1.0 - ap.beta1) * g;
  let v1 = ap.beta2 * v0 + (1.0 - ap.beta2) * g * g;
  let lr = select(ap.lr_tail, ap.lr_head, lane < ap.head);
  param[at] -= lr * (m1 / ap.bias1) / (sqrt(v1 / ap.bias2) + ap.epsilon);
  return vec2f(m1, v1);
}

fn count_non_finite() {
  atomicAdd(&flags[0], 1u); // never let a NaN or Inf reach the parameters or the moments
  atomicAdd(&flags[1u + ap.group_index], 1u);
}

// Thread = word w * plane + s: lanes 2w and 2w + 1 of splat s, their moments in one u32 each.
fn step_bf16_pair(i: u32) {
  let s = i % ap.plane;
  let word = i / ap.plane;
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
    let at = lane * ap.plane + s;
    let g = grad[at];
    if (!is_finite(g)) {
      count_non_finite();
      continue;
    }
    let shift = 16u * half;
    let mv = update(at, lane, g, bf16_value((m_bits >> shift) & 0xffffu), bf16_value((v_bits >> shift) & 0xffffu));
    let keep = 0xffff0000u >> shift; // the other lane's half
    m_bits = (m_bits & keep) | (bf16_nearest(mv.x) << shift);
    v_bits = (v_bits & keep) | (bf16_stochastic(mv.y, i, lane) << shift);
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
  let mv = update(i, lane, g, bitcast<f32>(m[i]), bitcast<f32>(v[i]));
  m[i] = bitcast<u32>(mv.x);
  v[i] = bitcast<u32>(mv.y);
}
