// densify: 3DGS adaptive density control on the GPU (gsplat DefaultStrategy semantics).
//   accumulate_stats (per splat s < n, every step): for splats visible in this step's view,
//       grad_acc[s] += |d L / d mean2d| in NDC units (pixel gradient x (W/2, H/2); with ABSGRAD
//       the summed absolute per-pixel gradients), hits[s] += 1
//   classify (per s, at a refine step): average gradient above grow_grad2d -> duplicate (small
//       splat, max scale <= grow_scale3d * scene scale) or split (large); then prune: opacity <
//       prune_opacity, or (after the first opacity reset) max scale > prune_scale3d * scene scale
//       (split children tested with their reduced scale). out_count[s] in {0, 1, 2}; growth is
//       disabled when grow == 0 (at the splat cap).
//   (scan of out_count: offset[s] and the new count; scan of grow_flag: grow_offset[s], the growers)
//   fit_growth (per s, at a refine step, only when more splats would grow than the room: at most
//       growth_fraction x n, and never past the capacity): the growers past the room
//       (grow_offset[s] >= room) keep their splat ungrown, so the splats that grow are the first
//       ones by index; the room depends on n alone where the host keeps the capacity above
//       (1 + growth_fraction) n, so a run's result does not depend on its capacity's history
//       (a resumed run's); clipped[0] counts them over the run (then out_count is scanned again)
//   scatter_group (per s, once per parameter group and chunk of SCRATCH_LANES values): moves
//       param, m, v of the lanes [lane_first, lane_first + SCRATCH_LANES) to offset[s] in the
//       refine's scratch (SCRATCH_LANES values a splat, planar groups plane by plane from lane 0),
//       which the host copies back before the next chunk; a duplicate copy and split children
//       start with zero moments; split children: means = mean + R (S z),
//       z ~ N(0, I) from a counter-based hash of (seed, step, s, child), log scales - log(1.6)
//   reset_opacity: opacity logits clamped to logit(2 * prune_opacity), their moments zeroed
//   Budget mode (grow == 2, train.densifyBudget; Taming 3DGS's score-ranked growth): instead of
//   the fixed grow_grad2d threshold, the budget_want highest-scoring splats grow.
//   budget_histogram (per s): histogram[budget_key(s)] += 1 for every splat with a score > 0
//   budget_threshold (one workgroup): the smallest key k such that the splats with key >= k are
//       as close to budget_want as whole bins allow (a bin is added when that brings the total
//       nearer); threshold[0] = k (0xffffffff: none grows). classify grows key >= threshold[0].
//   The score and key are integer-exact functions of the statistics, and the histogram counts
//   with integer atomics: the selection is deterministic.
// Workgroup: WG threads, one splat each; 2D dispatch over the capacity; threads past n exit.
// budget_threshold: one workgroup of WG threads (WG must divide HIST_BINS).

#include "dispatch"
#include "random"
#include "moments"

override WG: u32 = 256u;
override ABSGRAD: bool = false;

// Values a splat the refine scratch holds per part: the widest interleaved group (quats) in one
// chunk; the SH planes four at a time (densify-adc.ts sizes the scratch by the same number).
const SCRATCH_LANES: u32 = 4u;

const ACTION_KEEP: u32 = 0u;
const ACTION_DUPLICATE: u32 = 1u;
const ACTION_SPLIT: u32 = 2u;

struct DensifyParams {
  count_index: u32, // n
  width: f32,
  height: f32,
  grow_grad2d: f32,
  grow_scale3d: f32, // already multiplied by the scene scale
  prune_opacity: f32,
  prune_scale3d: f32, // already multiplied by the scene scale; <= 0 disables the scale prune
  grow: u32,
  stride: u32, // scatter_group: floats per splat
  mode: u32, // scatter_group: 0 copy, 1 means (split offsets), 2 log scales (split shrink)
  seed: u32,
  step: u32,
  capacity: u32,
  opacity_logit_max: f32, // reset_opacity
  plane: u32, // scatter_group: 0 interleaved (value i of splat s at s * stride + i); else planar at i * plane + s
  lane_first: u32, // scatter_group: the chunk's first value (0 for interleaved groups, whose stride <= SCRATCH_LANES)
  moment_shift: u32, // scatter_group: 0 f32 moments; 1 bf16 pairs (moments.wgsl)
  growth_fraction: f32, // fit_growth: at most this fraction of n grows in one refine
  budget_want: u32, // budget_threshold: how many splats to grow
  moment_plane: u32, // scatter_group: 0 moments where the values are; else planar words of this length (moments.wgsl; the scratch's the same)
}

@group(0) @binding(0) var<uniform> dp: DensifyParams;
@group(0) @binding(1) var<storage, read> counts: array<u32>;
// accumulate_stats
@group(0) @binding(2) var<storage, read> visible: array<u32>;
@group(0) @binding(3) var<storage, read> mean2d_grad: array<vec4f>;
@group(0) @binding(4) var<storage, read_write> grad_acc: array<f32>;
@group(0) @binding(5) var<storage, read_write> hits: array<u32>;
// classify
@group(0) @binding(6) var<storage, read> grad_acc_in: array<f32>;
@group(0) @binding(7) var<storage, read> hits_in: array<u32>;
@group(0) @binding(8) var<storage, read> log_scales: array<f32>; // arena splat_params.logScales
@group(0) @binding(9) var<storage, read> opacity_logits: array<f32>; // arena splat_params.opacityLogits
@group(0) @binding(10) var<storage, read_write> action: array<u32>;
@group(0) @binding(11) var<storage, read_write> out_count: array<u32>;
// scatter_group
@group(0) @binding(12) var<storage, read> action_in: array<u32>;
@group(0) @binding(13) var<storage, read> offset: array<u32>;
@group(0) @binding(14) var<storage, read> param_in: array<f32>;
@group(0) @binding(15) var<storage, read> m_in: array<f32>; // arena moments.m moments_in
@group(0) @binding(16) var<storage, read> v_in: array<f32>; // arena moments.v moments_in
@group(0) @binding(17) var<storage, read_write> param_out: array<f32>;
@group(0) @binding(18) var<storage, read_write> m_out: array<f32>; // arena moments.m moments_out
@group(0) @binding(19) var<storage, read_write> v_out: array<f32>; // arena moments.v moments_out
@group(0) @binding(20) var<storage, read> split_scales: array<f32>; // arena splat_params.logScales
@group(0) @binding(21) var<storage, read> split_quats: array<f32>; // arena splat_params.quats
// classify (out), fit_growth (in): 1 where the splat grows (out_count 2), and its exclusive scan
@group(0) @binding(25) var<storage, read_write> grow_flag: array<u32>;
@group(0) @binding(26) var<storage, read> grow_offset: array<u32>;
@group(0) @binding(27) var<storage, read_write> clipped: array<u32>;
// reset_opacity
@group(0) @binding(22) var<storage, read_write> opacity_rw: array<f32>;
@group(0) @binding(23) var<storage, read_write> opacity_m: array<f32>;
@group(0) @binding(24) var<storage, read_write> opacity_v: array<f32>;
// budget_histogram
@group(0) @binding(29) var<storage, read_write> histogram: array<atomic<u32>>;
// budget_threshold
@group(0) @binding(30) var<storage, read> histogram_in: array<u32>;
// the refine's counts buffer itself, read-write: [3] the threshold (classify reads it as counts[3];
// a buffer of its own would be classify's ninth storage binding, over WebGPU's 8 a stage)
@group(0) @binding(31) var<storage, read_write> threshold_out: array<u32>;

const GROW_THRESHOLD: u32 = 1u;
const GROW_BUDGET: u32 = 2u;
// 2^12 bins: a positive f32's exponent and the top 4 bits of its mantissa (16 bins per octave)
const HIST_BINS: u32 = 4096u;
const KEY_SHIFT: u32 = 19u;
const NO_THRESHOLD: u32 = 0xffffffffu;

// A candidate's score (Taming 3DGS ranks by a mix of gradient, opacity and coverage): its mean
// screen-space gradient (ADC's statistic), weighted towards opaque splats (what a split or copy of
// a transparent one adds barely shows) and towards splats seen in several views (a mean over one
// hit is noise). 0 for a splat no view saw. Read in classify and in the histogram: one definition.
fn budget_score(s: u32) -> f32 {
  let n_hits = hits_in[s];
  if (n_hits == 0u) {
    return 0.0;
  }
  let hits = f32(n_hits);
  let opacity = 1.0 / (1.0 + exp(-opacity_logits[s]));
  return grad_acc_in[s] / hits * (0.25 + opacity) * (hits / (hits + 4.0));
}

// The score's histogram bin: monotonic in the score (a positive float's bits are), 0 for 0.
fn budget_key(score: f32) -> u32 {
  return bitcast<u32>(max(score, 0.0)) >> KEY_SHIFT;
}

@compute @workgroup_size(WG)
fn accumulate_stats(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let s = thread_id(gid, nwg);
  if (s >= counts[dp.count_index] || visible[s] == 0u) {
    return;
  }
  let g = mean2d_grad[s];
  var v = g.xy;
  if (ABSGRAD) {
    v = g.zw;
  }
  grad_acc[s] += length(v * vec2f(0.5 * dp.width, 0.5 * dp.height));
  hits[s] += 1u;
}

fn max_scale(s: u32) -> f32 {
  return exp(max(log_scales[3u * s], max(log_scales[3u * s + 1u], log_scales[3u * s + 2u])));
}

@compute @workgroup_size(WG)
fn classify(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let s = thread_id(gid, nwg);
  if (s >= counts[dp.count_index]) {
    return;
  }
  let n_hits = hits_in[s];
  let grad = grad_acc_in[s] / f32(max(n_hits, 1u));
  var high = dp.grow == GROW_THRESHOLD && n_hits > 0u && grad > dp.grow_grad2d;
  if (dp.grow == GROW_BUDGET) {
    let key = budget_key(budget_score(s));
    high = key > 0u && key >= counts[3];
  }
  let scale = max_scale(s);
  var a = ACTION_KEEP;
  var result_scale = scale;
  if (high) {
    if (scale <= dp.grow_scale3d) {
      a = ACTION_DUPLICATE;
    } else {
      a = ACTION_SPLIT;
      result_scale = scale / 1.6;
    }
  }
  let opacity = 1.0 / (1.0 + exp(-opacity_logits[s]));
  var pruned = opacity < dp.prune_opacity;
  if (dp.prune_scale3d > 0.0 && result_scale > dp.prune_scale3d) {
    pruned = true;
  }
  action[s] = a;
  let out = select(select(1u, 2u, a != ACTION_KEEP), 0u, pruned);
  out_count[s] = out;
  grow_flag[s] = select(0u, 1u, out == 2u);
}

// counts: [0] n, [1] the new count as classified, [2] the growers.
@compute @workgroup_size(WG)
fn fit_growth(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let s = thread_id(gid, nwg);
  let n = counts[dp.count_index];
  let growers = counts[2];
  let kept = counts[1] - growers; // <= n <= capacity
  let room = min(dp.capacity - kept, u32(floor(f32(n) * dp.growth_fraction)));
  if (s >= n || growers <= room) {
    return;
  }
  if (s == 0u) {
    clipped[0] += growers - room;
  }
  if (grow_flag[s] != 0u && grow_offset[s] >= room) {
    action[s] = ACTION_KEEP;
    out_count[s] = 1u;
  }
}

fn normal3(s: u32, child: u32) -> vec3f {
  return gaussian3(dp.seed, dp.step, s, child * 4u);
}

fn rotate_by_quat(q_raw: vec4f, v: vec3f) -> vec3f {
  let q = normalize(q_raw); // (w, x, y, z)
  let u = q.yzw;
  return v + 2.0 * cross(u, cross(u, v) + q.x * v);
}

@compute @workgroup_size(WG)
fn scatter_group(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let s = thread_id(gid, nwg);
  if (s >= counts[dp.count_index]) {
    return;
  }
  let a = action_in[s];
  let base = offset[s];
  let copies = select(1u, 2u, a != ACTION_KEEP);
  if (base + copies > dp.capacity || offset[s + 1u] == base) {
    return; // pruned (no slots), or past the capacity (the host keeps room for 2n)
  }
  let k = dp.stride;
  for (var c = 0u; c < copies; c++) {
    let d = base + c;
    // the original keeps its moments; a duplicate copy and split children start from zero
    let fresh = (a == ACTION_DUPLICATE && c == 1u) || a == ACTION_SPLIT;
    var offset3 = vec3f(0.0);
    if (dp.mode == 1u && a == ACTION_SPLIT) {
      let sc = exp(vec3f(split_scales[3u * s], split_scales[3u * s + 1u], split_scales[3u * s + 2u]));
      let q = vec4f(split_quats[4u * s], split_quats[4u * s + 1u], split_quats[4u * s + 2u], split_quats[4u * s + 3u]);
      offset3 = rotate_by_quat(q, sc * normal3(s, c));
    }
    for (var i = dp.lane_first; i < min(k, dp.lane_first + SCRATCH_LANES); i++) {
      var src = s * k + i;
      var dst = d * k + i;
      if (dp.plane != 0u) {
        src = i * dp.plane + s;
        dst = (i - dp.lane_first) * dp.plane + d;
      }
      var value = param_in[src];
      if (dp.mode == 1u && i < 3u) {
        value += offset3[i];
      }
      if (dp.mode == 2u && a == ACTION_SPLIT) {
        value -= 0.47000362924573558; // log(1.6)
      }
      param_out[dst] = value;
      // moments move as bits (bf16 pairs are no f32 values): a pair's word is written by both its lanes, alike
      let m_src = moment_word(s, i, k, dp.moment_plane, dp.moment_shift);
      let m_dst = moment_word(d, i - dp.lane_first, k, dp.moment_plane, dp.moment_shift);
      m_out[m_dst] = bitcast<f32>(select(bitcast<u32>(m_in[m_src]), 0u, fresh));
      v_out[m_dst] = bitcast<f32>(select(bitcast<u32>(v_in[m_src]), 0u, fresh));
    }
  }
}

@compute @workgroup_size(WG)
fn reset_opacity(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let s = thread_id(gid, nwg);
  if (s >= counts[dp.count_index]) {
    return;
  }
  opacity_rw[s] = min(opacity_rw[s], dp.opacity_logit_max);
  opacity_m[s] = 0.0;
  opacity_v[s] = 0.0;
}

@compute @workgroup_size(WG)
fn budget_histogram(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let s = thread_id(gid, nwg);
  if (s >= counts[dp.count_index]) {
    return;
  }
  let key = budget_key(budget_score(s));
  if (key > 0u) {
    atomicAdd(&histogram[key], 1u);
  }
}

var<workgroup> chunk_sums: array<u32, WG>;

@compute @workgroup_size(WG)
fn budget_threshold(@builtin(local_invocation_index) lid: u32) {
  let per = HIST_BINS / WG;
  var sum = 0u;
  for (var i = 0u; i < per; i++) {
    sum += histogram_in[lid * per + i];
  }
  chunk_sums[lid] = sum;
  workgroupBarrier();
  if (lid != 0u) {
    return;
  }
  let want = dp.budget_want;
  var threshold = NO_THRESHOLD;
  if (want > 0u) {
    // take whole chunks from the highest scores down while they stay under the budget
    var above = 0u;
    var chunk = WG; // chunks >= chunk are taken
    while (chunk > 0u && above + chunk_sums[chunk - 1u] < want) {
      chunk -= 1u;
      above += chunk_sums[chunk];
    }
    threshold = 1u; // fewer candidates than wanted: every splat with a score
    if (chunk > 0u) {
      // chunk - 1 crosses the budget: its bins from the top, until one crosses it
      var bin = chunk * per; // bins >= bin are taken
      loop {
        let c = histogram_in[bin - 1u];
        if (above + c >= want) {
          // take the crossing bin only if that lands nearer the budget than stopping short
          threshold = select(bin, bin - 1u, above + c - want < want - above);
          break;
        }
        above += c;
        bin -= 1u;
      }
      threshold = max(threshold, 1u);
    }
  }
  threshold_out[3] = threshold;
}
