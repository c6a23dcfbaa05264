// mcmc: 3DGS-MCMC densification on the GPU (gsplat MCMCStrategy semantics).
//   mark (per splat s < n):      dead[s] = opacity <= min_opacity; weight[s] = opacity quantized
//                                (0 for dead ones) for sampling in proportion to opacity
//   (scans: dead -> dead_offset (total: dead count), weight -> cdf (total: weight sum))
//   list_dead (per s):           dead_list[dead_offset[s]] = s
//   targets (1 thread):          samples this round: the dead count (relocation) or
//                                min(cap, floor(1.05 n)) - n (growth); indirect dispatch args
//   sample (per sample t):       src = the splat whose cdf interval holds u * total (binary
//                                search; u from a counter hash of (seed, step, round, t));
//                                samples[t] = src; picks[src] += 1
//   relocate_sources (per s):    for sampled s with ratio = picks + 1: opacity 1 - (1-o)^(1/ratio),
//                                scales x o / sum_{i<=ratio} sum_{k<i} C(i-1,k) (-1)^k o'^(k+1) / sqrt(k+1)
//                                (the MCMC relocation that keeps the rendered mass), moments zeroed
//   copy_group (per sample t, per parameter group): destination (dead_list[t], or n + t when
//                                growing) <- the sampled source's (updated) values, moments zeroed
//   finish_growth (1 thread):    n += grown samples
//   inject_noise (per s, every step): means += Sigma (lr * noise_lr * sigmoid(100 (1 - o - 0.995)) z)
//   regularize (per s, every step, before Adam): opacity and scale L1 regularizer gradients
// Workgroup: WG threads, one splat or sample each, 2D dispatch; threads past the count exit.

#include "splat-common"
#include "dispatch"
#include "random"
#include "moments"

override WG: u32 = 256u;
const N_MAX: u32 = 51u;

struct McmcParams {
  count_index: u32, // n in counts
  cap: u32,
  min_opacity: f32,
  seed: u32,
  step: u32,
  round: u32, // 0: relocation, 1: growth
  quant: f32, // weight quantization: weight = u32(opacity * quant)
  noise_scale: f32, // lr * noise_lr
  stride: u32, // copy_group: floats per splat
  plane: u32, // copy_group: planar layout plane length (0: interleaved)
  opacity_reg: f32,
  scale_reg: f32,
  capacity: u32,
  moment_shift: u32, // relocate_sources (scales), zero_source_moments, copy_group: 0 f32 moments; 1 bf16 pairs (moments.wgsl)
  moment_plane: u32, // the same: 0 moments where the values are; else planar words of this length (moments.wgsl)
  _pad2: u32,
}

// counts: [0] n, [1] dead count, [2] weight total, [3] samples this round, [4..6] sample
// dispatch args, [7] unused
@group(0) @binding(0) var<uniform> mp: McmcParams;
@group(0) @binding(1) var<storage, read_write> counts: array<u32>;
@group(0) @binding(2) var<storage, read_write> opacity_logits: array<f32>; // arena splat_params.opacityLogits
@group(0) @binding(3) var<storage, read_write> log_scales: array<f32>; // arena splat_params.logScales
@group(0) @binding(4) var<storage, read_write> dead: array<u32>;
@group(0) @binding(5) var<storage, read_write> weight: array<u32>;
@group(0) @binding(6) var<storage, read> dead_offset: array<u32>;
@group(0) @binding(7) var<storage, read> cdf: array<u32>;
@group(0) @binding(8) var<storage, read_write> dead_list: array<u32>;
@group(0) @binding(9) var<storage, read_write> samples: array<u32>;
@group(0) @binding(10) var<storage, read_write> picks: array<atomic<u32>>;
@group(0) @binding(11) var<storage, read> binoms: array<f32>;
// moments of opacity and scales for relocate_sources; a group's param/m/v for copy_group
@group(0) @binding(12) var<storage, read_write> group_param: array<f32>;
@group(0) @binding(13) var<storage, read_write> group_m: array<f32>; // arena moments.m group_moments
@group(0) @binding(14) var<storage, read_write> group_v: array<f32>; // arena moments.v group_moments
@group(0) @binding(15) var<storage, read_write> scale_m: array<f32>; // arena moments.m scale_moments
@group(0) @binding(16) var<storage, read_write> scale_v: array<f32>; // arena moments.v scale_moments
// inject_noise / regularize
@group(0) @binding(17) var<storage, read_write> means: array<f32>; // arena splat_params.means
@group(0) @binding(18) var<storage, read> quats: array<f32>; // arena splat_params.quats
@group(0) @binding(19) var<storage, read_write> grad_opacity: array<f32>; // arena splat_grads.opacityLogits
@group(0) @binding(20) var<storage, read_write> grad_log_scales: array<f32>; // arena splat_grads.logScales
@group(0) @binding(21) var<storage, read_write> dispatch_args: array<u32>;

fn logit(p: f32) -> f32 {
  return log(p / (1.0 - p));
}

@compute @workgroup_size(WG)
fn mark(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let s = thread_id(gid, nwg);
  if (s >= counts[mp.count_index]) {
    return;
  }
  let o = sigmoid(opacity_logits[s]);
  let is_dead = o <= mp.min_opacity;
  dead[s] = select(0u, 1u, is_dead);
  weight[s] = select(u32(o * mp.quant), 0u, is_dead);
  atomicStore(&picks[s], 0u);
}

@compute @workgroup_size(WG)
fn list_dead(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let s = thread_id(gid, nwg);
  if (s >= counts[mp.count_index] || dead[s] == 0u) {
    return;
  }
  dead_list[dead_offset[s]] = s;
}

@compute @workgroup_size(1)
fn targets() {
  let n = counts[mp.count_index];
  var m = 0u;
  if (counts[2] > 0u) { // something alive to sample from
    if (mp.round == 0u) {
      m = counts[1];
    } else {
      let target_count = min(mp.cap, u32(floor(1.05 * f32(n))));
      m = select(0u, target_count - n, target_count > n);
    }
  }
  counts[3] = m;
  let groups = (m + WG - 1u) / WG;
  let x = min(groups, 65535u);
  dispatch_args[0] = x;
  dispatch_args[1] = select(0u, (groups + x - 1u) / max(x, 1u), groups > 0u);
  dispatch_args[2] = 1u;
}

@compute @workgroup_size(WG)
fn sample(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let t = thread_id(gid, nwg);
  if (t >= counts[3]) {
    return;
  }
  let n = counts[mp.count_index];
  let total = counts[2];
  let u = u32(uniform01(mp.seed, mp.step, mp.round, t) * f32(total)) % total;
  // largest s with cdf[s] <= u (cdf is exclusive: cdf[s] = sum of weights before s)
  var lo = 0u;
  var hi = n; // invariant: cdf[lo] <= u < cdf[hi] (cdf[n] = total)
  while (hi - lo > 1u) {
    let mid = (lo + hi) / 2u;
    if (cdf[mid] <= u) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  samples[t] = lo;
  atomicAdd(&picks[lo], 1u);
}

@compute @workgroup_size(WG)
fn relocate_sources(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let s = thread_id(gid, nwg);
  if (s >= counts[mp.count_index]) {
    return;
  }
  let picked = atomicLoad(&picks[s]);
  if (picked == 0u) {
    return;
  }
  let ratio = min(picked + 1u, N_MAX);
  let o = sigmoid(opacity_logits[s]);
  let o_new = clamp(1.0 - pow(1.0 - o, 1.0 / f32(ratio)), mp.min_opacity, 1.0 - 1.1920929e-7);
  var denom = 0.0;
  for (var i = 1u; i <= ratio; i++) {
    for (var k = 0u; k < i; k++) {
      let sign = select(1.0, -1.0, (k & 1u) == 1u);
      denom += binoms[(i - 1u) * N_MAX + k] * sign / sqrt(f32(k + 1u)) * pow(o_new, f32(k + 1u));
    }
  }
  let coeff = o / denom;
  opacity_logits[s] = logit(o_new);
  group_m[s] = 0.0; // opacity moments (one lane: word s in every layout, moments.wgsl)
  group_v[s] = 0.0;
  for (var a = 0u; a < 3u; a++) {
    log_scales[3u * s + a] += log(coeff);
    let at = moment_word(s, a, 3u, mp.moment_plane, mp.moment_shift); // zero bits: both bf16 halves of a pair
    scale_m[at] = 0.0;
    scale_v[at] = 0.0;
  }
}

// Zeroes the moments of sampled sources of one group (scales and opacity are done above).
@compute @workgroup_size(WG)
fn zero_source_moments(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let s = thread_id(gid, nwg);
  if (s >= counts[mp.count_index] || atomicLoad(&picks[s]) == 0u) {
    return;
  }
  for (var i = 0u; i < mp.stride; i++) {
    let at = moment_word(s, i, mp.stride, mp.moment_plane, mp.moment_shift); // zero bits: both bf16 halves of a pair
    group_m[at] = 0.0;
    group_v[at] = 0.0;
  }
}

@compute @workgroup_size(WG)
fn copy_group(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let t = thread_id(gid, nwg);
  if (t >= counts[3]) {
    return;
  }
  let src = samples[t];
  var dst = counts[mp.count_index] + t;
  if (mp.round == 0u) {
    dst = dead_list[t];
  }
  if (dst >= mp.capacity) {
    return;
  }
  for (var i = 0u; i < mp.stride; i++) {
    var src_at = src * mp.stride + i;
    var to = dst * mp.stride + i;
    if (mp.plane != 0u) {
      src_at = i * mp.plane + src;
      to = i * mp.plane + dst;
    }
    group_param[to] = group_param[src_at];
    let moment_to = moment_word(dst, i, mp.stride, mp.moment_plane, mp.moment_shift);
    group_m[moment_to] = 0.0;
    group_v[moment_to] = 0.0;
  }
}

@compute @workgroup_size(1)
fn finish_growth() {
  if (mp.round == 1u) {
    counts[mp.count_index] = min(counts[mp.count_index] + counts[3], mp.capacity);
  }
}

@compute @workgroup_size(WG)
fn inject_noise(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let s = thread_id(gid, nwg);
  if (s >= counts[mp.count_index]) {
    return;
  }
  let o = sigmoid(opacity_logits[s]);
  let gate = sigmoid(100.0 * ((1.0 - o) - 0.995));
  let r = quat_to_rotmat(normalize(vec4f(quats[4u * s], quats[4u * s + 1u], quats[4u * s + 2u], quats[4u * s + 3u])));
  let sc = exp(vec3f(log_scales[3u * s], log_scales[3u * s + 1u], log_scales[3u * s + 2u]));
  let m = mat3x3f(r[0] * sc.x, r[1] * sc.y, r[2] * sc.z);
  let cov = m * transpose(m);
  let z = gaussian3(mp.seed, mp.step, s, 101u);
  let noise = cov * (z * gate * mp.noise_scale);
  for (var a = 0u; a < 3u; a++) {
    means[3u * s + a] += noise[a];
  }
}

@compute @workgroup_size(WG)
fn regularize(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let s = thread_id(gid, nwg);
  let n = counts[mp.count_index];
  if (s >= n) {
    return;
  }
  let o = sigmoid(opacity_logits[s]);
  grad_opacity[s] += mp.opacity_reg * o * (1.0 - o) / f32(n);
  for (var a = 0u; a < 3u; a++) {
    grad_log_scales[3u * s + a] += mp.scale_reg * exp(log_scales[3u * s + a]) / f32(3u * n);
  }
}
