// bundle-schur: the reduced system's products without forming S (implicit Schur complement).
// With e_o = Jc_o x (the observation's camera-variable Jacobian times x: its image's pose block,
// when free, and its camera's intrinsic block):
//   S x = sum_o Jc_o^T w_o (e_o - Jp_o y_j) + lambda D x,  y_j = V_j^-1 sum_{o of j} w_o Jp_o^T e_o
// which is (U + lambda D_c) x - W V^-1 W^T x term by term. The right-hand side
//   b = -g_c + W V^-1 g_p = -sum_o Jc_o^T w_o (r_o - Jp_o V_j^-1 g_p,j)
// is the same two passes with e_o = r_o (mode 1). Mode 2 is mode 0 inside PCG: once PCG has
// converged (bundle-pcg scalars[2]) the remaining steps' products return at once, so the fixed
// count of steps the host records costs only their dispatches.
//   schur_points:   a thread per point (its observations contiguous): y_j, then per observation
//                   f_o = w_o (e_o - Jp_o y_j) -> obs_f (2 per observation)
//   schur_chunks:   a workgroup per chunk (a run of at most CHUNK_OBS of a segment's
//                   observations): the sum of Js_o^T f_o (a fixed tree) -> the chunk's sums
//   schur_segments: a thread per segment: its chunks' sums in order, + lambda D x (mode 0) or
//                   negated (mode 1) -> slot vec_out
// x is slot vec_in of `vectors`. Workgroup: WG (2D dispatch) and SEG_WG threads.
// Both capability variants compile this one body.

#include "bundle-common"
#include "dispatch"

override WG: u32 = 64u;
const SEG_WG: u32 = 32u;

@group(0) @binding(0) var<uniform> bp: BaParams;
@group(0) @binding(1) var<storage, read> topo: array<u32>;
@group(0) @binding(2) var<storage, read> lin: array<f32>;
@group(0) @binding(3) var<storage, read> pblocks: array<f32>;
@group(0) @binding(4) var<storage, read> blocks: array<f32>;
@group(0) @binding(5) var<storage, read_write> vectors: array<f32>;
@group(0) @binding(6) var<storage, read_write> obs_f: array<vec2f>;
@group(0) @binding(7) var<storage, read> scalars: array<f32>; // bundle-pcg's: [2] converged

var<workgroup> s_skip: u32;

var<workgroup> s_acc: array<f32, 8u * SEG_WG>;

// Jc_o x: the pose block (when the image is free) and the intrinsic block (k > 0).
fn camera_product(o: u32, slot: u32) -> vec2f {
  let base = LIN_STRIDE * o;
  let image = topo[bp.obs_image_at + o];
  let pose_var = topo[bp.image_info_at + 2u * image + 1u];
  let at = slot * bp.variables;
  var e = vec2f(0.0);
  if (pose_var != NONE) {
    for (var a = 0u; a < 6u; a++) {
      let xa = vectors[at + pose_var + a];
      e += xa * vec2f(lin[base + LIN_POSE + a], lin[base + LIN_POSE + 6u + a]);
    }
  }
  let info = bp.camera_info_at + CAMERA_WORDS * topo[bp.image_info_at + 2u * image];
  let k = topo[info + 1u];
  let intr_var = topo[info + 2u];
  for (var a = 0u; a < k; a++) {
    let xa = vectors[at + intr_var + a];
    e += xa * vec2f(lin[base + LIN_INTR + a], lin[base + LIN_INTR + 8u + a]);
  }
  return e;
}

fn point_row(o: u32, row: u32) -> vec3f {
  let at = LIN_STRIDE * o + LIN_POINT + 3u * row;
  return vec3f(lin[at], lin[at + 1u], lin[at + 2u]);
}

fn point_inverse(j: u32) -> mat3x3f {
  let at = POINT_STRIDE * j + 6u;
  return sym3(pblocks[at], pblocks[at + 1u], pblocks[at + 2u], pblocks[at + 3u], pblocks[at + 4u], pblocks[at + 5u]);
}

// Inside PCG (mode 2), after convergence: nothing left to multiply.
fn pcg_done() -> bool {
  return bp.mode == 2u && scalars[2] != 0.0;
}

fn observation_vector(o: u32) -> vec2f {
  if (bp.mode == 1u) {
    let base = LIN_STRIDE * o;
    return vec2f(lin[base + LIN_R], lin[base + LIN_R + 1u]);
  }
  return camera_product(o, bp.vec_in);
}

@compute @workgroup_size(WG, 1, 1)
fn schur_points(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let j = thread_id(gid, nwg);
  if (j >= bp.points || pcg_done()) {
    return;
  }
  let first = topo[bp.point_first_at + j];
  let end = topo[bp.point_first_at + j + 1u];
  var s = vec3f(0.0);
  for (var o = first; o < end; o++) {
    let e = observation_vector(o);
    obs_f[o] = e; // kept for the second pass (this thread's own observations)
    s += lin[LIN_STRIDE * o + LIN_W] * (e.x * point_row(o, 0u) + e.y * point_row(o, 1u));
  }
  let y = point_inverse(j) * s;
  for (var o = first; o < end; o++) {
    let e = obs_f[o];
    let jy = vec2f(dot(point_row(o, 0u), y), dot(point_row(o, 1u), y));
    obs_f[o] = lin[LIN_STRIDE * o + LIN_W] * (e - jy);
  }
}

@compute @workgroup_size(SEG_WG, 1, 1)
fn schur_chunks(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let chunk = block_id(wid, nwg);
  if (lid == 0u) {
    s_skip = select(0u, 1u, chunk >= bp.chunks || pcg_done());
  }
  if (workgroupUniformLoad(&s_skip) != 0u) {
    return;
  }
  let ch = bp.chunk_at + CHUNK_WORDS * chunk;
  let seg = bp.segment_at + SEGMENT_WORDS * topo[ch];
  let is_pose = topo[seg] == 0u;
  let n = topo[seg + 1u];
  let first = topo[ch + 1u];
  let count = topo[ch + 2u];
  let js_at = select(LIN_INTR, LIN_POSE, is_pose);
  let js_row = select(8u, 6u, is_pose);
  var acc = array<f32, 8>(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
  for (var i = lid; i < count; i += SEG_WG) {
    let o = topo[bp.seg_obs_at + first + i];
    let base = LIN_STRIDE * o + js_at;
    let f = obs_f[o];
    for (var a = 0u; a < n; a++) {
      acc[a] += lin[base + a] * f.x + lin[base + js_row + a] * f.y;
    }
  }
  for (var a = 0u; a < 8u; a++) {
    s_acc[a * SEG_WG + lid] = acc[a];
  }
  for (var stride = SEG_WG / 2u; stride > 0u; stride >>= 1u) {
    workgroupBarrier();
    if (lid < stride) {
      for (var a = 0u; a < 8u; a++) {
        s_acc[a * SEG_WG + lid] += s_acc[a * SEG_WG + lid + stride];
      }
    }
  }
  if (lid == 0u) {
    let out = chunk_sums_at() + CHUNK_SUMS * chunk;
    for (var a = 0u; a < 8u; a++) {
      vectors[out + a] = s_acc[a * SEG_WG];
    }
  }
}

fn chunk_sums_at() -> u32 {
  return VEC_SLOTS * bp.variables + 3u * bp.points;
}

// A thread per segment: its chunks' sums in order, + lambda D x (mode 0, 2) or negated (mode 1).
@compute @workgroup_size(WG, 1, 1)
fn schur_segments(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let segment = thread_id(gid, nwg);
  if (segment >= bp.segments || pcg_done()) {
    return;
  }
  let seg = bp.segment_at + SEGMENT_WORDS * segment;
  let n = topo[seg + 1u];
  let first_chunk = topo[seg + 6u];
  let chunk_end = first_chunk + topo[seg + 7u];
  let variable = topo[seg + 2u];
  let out = bp.vec_out * bp.variables + variable;
  for (var a = 0u; a < n; a++) {
    var sum = 0.0;
    for (var c = first_chunk; c < chunk_end; c++) {
      sum += vectors[chunk_sums_at() + CHUNK_SUMS * c + a];
    }
    if (bp.mode == 1u) {
      vectors[out + a] = -sum;
    } else {
      let x = vectors[bp.vec_in * bp.variables + variable + a];
      vectors[out + a] = sum + bp.lambda * blocks[SEG_STRIDE * segment + SEG_D + a] * x;
    }
  }
}

// Back-substitution, a thread per point: dp_j = -V_j^-1 (g_p,j + sum_{o of j} w_o Jp_o^T Jc_o dc),
// dc in slot vec_in; dp (3 per point) after the vector slots.
@compute @workgroup_size(WG, 1, 1)
fn back_substitute(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let j = thread_id(gid, nwg);
  if (j >= bp.points) {
    return;
  }
  let at = POINT_STRIDE * j;
  var s = vec3f(pblocks[at + 12u], pblocks[at + 13u], pblocks[at + 14u]);
  let end = topo[bp.point_first_at + j + 1u];
  for (var o = topo[bp.point_first_at + j]; o < end; o++) {
    let e = camera_product(o, bp.vec_in);
    s += lin[LIN_STRIDE * o + LIN_W] * (e.x * point_row(o, 0u) + e.y * point_row(o, 1u));
  }
  let dp = -(point_inverse(j) * s);
  let out = VEC_SLOTS * bp.variables + 3u * j;
  vectors[out] = dp.x;
  vectors[out + 1u] = dp.y;
  vectors[out + 2u] = dp.z;
}
