// bundle-update: the LM step's candidate and what the host needs to judge it, in one read-back.
//   apply_step:    a thread per image, camera and point (in that order): the candidate model
//                  (same layout as `model`): R <- Exp(dw) R, t <- t + dt for a free image (a
//                  fixed one copied), the refined intrinsics + their step, X <- X + dp
//   step_partials: a thread per observation, point and reduced variable (in that order), a
//                  workgroup's sums into one vec4 of `partials`: [0] the linear model's
//                  decrease sum_o w_o (-r_o.q_o - |q_o|^2 / 2), q_o = Jc_o dc + Jp_o dp (the
//                  predicted reduction of the weighted cost, H undamped); [1] sum rho (twice the
//                  float32 cost); [2] |delta|^2; [3] max |g| (camera and point gradient)
//   step_total:    one workgroup: the partials (sums, and the max for [3]) -> scalars[8..11]
// dc is slot VEC_X, dp follows the slots. Workgroup: WG threads (2D dispatch), TOTAL_WG for the
// total. Both capability variants compile this one body.
// Exp(w) by Rodrigues, (1 - cos t) / t^2 as (sin(t/2) / (t/2))^2 / 2 (no cancellation in
//   float32) and sin t / t by its series below 1e-4 rad.

#include "bundle-common"
#include "dispatch"

override WG: u32 = 64u;
const TOTAL_WG: u32 = 256u;

@group(0) @binding(0) var<uniform> bp: BaParams;
@group(0) @binding(1) var<storage, read> topo: array<u32>;
@group(0) @binding(2) var<storage, read> model: array<f32>;
@group(0) @binding(3) var<storage, read_write> candidate: array<f32>;
@group(0) @binding(4) var<storage, read> vectors: array<f32>;
@group(0) @binding(5) var<storage, read> lin: array<f32>;
@group(0) @binding(6) var<storage, read> pblocks: array<f32>;
@group(0) @binding(7) var<storage, read_write> partials: array<vec4f>;
@group(0) @binding(8) var<storage, read_write> scalars: array<f32>;

var<workgroup> s_part: array<vec4f, TOTAL_WG>;

fn exp_so3(w: vec3f) -> mat3x3f {
  let t2 = dot(w, w);
  let t = sqrt(t2);
  var a = 1.0 - t2 / 6.0;
  if (t >= 1e-4) {
    a = sin(t) / t;
  }
  var h = 1.0 - t2 / 24.0; // sin(t/2) / (t/2)
  if (t >= 1e-4) {
    h = sin(0.5 * t) / (0.5 * t);
  }
  let b = 0.5 * h * h;
  // columns of I + a [w]x + b [w]x^2
  let k = mat3x3f(vec3f(0.0, w.z, -w.y), vec3f(-w.z, 0.0, w.x), vec3f(w.y, -w.x, 0.0));
  return mat3x3f(vec3f(1.0, 0.0, 0.0), vec3f(0.0, 1.0, 0.0), vec3f(0.0, 0.0, 1.0)) + a * k + b * (k * k);
}

fn dc(i: u32) -> f32 {
  return vectors[VEC_X * bp.variables + i];
}

fn dp(j: u32) -> vec3f {
  let at = VEC_SLOTS * bp.variables + 3u * j;
  return vec3f(vectors[at], vectors[at + 1u], vectors[at + 2u]);
}

@compute @workgroup_size(WG, 1, 1)
fn apply_step(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = thread_id(gid, nwg);
  if (i < bp.images) {
    let at = 12u * i;
    let pose_var = topo[bp.image_info_at + 2u * i + 1u];
    if (pose_var == NONE) {
      for (var k = 0u; k < 12u; k++) {
        candidate[at + k] = model[at + k];
      }
      return;
    }
    // rows of R as the columns of R^T, so Exp(w) R is (R^T Exp(w)^T)^T
    let rt = mat3x3f(vec3f(model[at], model[at + 1u], model[at + 2u]), vec3f(model[at + 3u], model[at + 4u], model[at + 5u]), vec3f(model[at + 6u], model[at + 7u], model[at + 8u]));
    let updated = rt * transpose(exp_so3(vec3f(dc(pose_var), dc(pose_var + 1u), dc(pose_var + 2u))));
    for (var row = 0u; row < 3u; row++) {
      candidate[at + 3u * row] = updated[row].x;
      candidate[at + 3u * row + 1u] = updated[row].y;
      candidate[at + 3u * row + 2u] = updated[row].z;
      candidate[at + 9u + row] = model[at + 9u + row] + dc(pose_var + 3u + row);
    }
    return;
  }
  if (i < bp.images + bp.cameras) {
    let c = i - bp.images;
    let at = bp.intrinsics_at + 8u * c;
    for (var k = 0u; k < 8u; k++) {
      candidate[at + k] = model[at + k];
    }
    let info = bp.camera_info_at + CAMERA_WORDS * c;
    let variable = topo[info + 2u];
    for (var a = 0u; a < topo[info + 1u]; a++) {
      let index = at + topo[info + 4u + a];
      candidate[index] = model[index] + dc(variable + a);
    }
    return;
  }
  let j = i - bp.images - bp.cameras;
  if (j < bp.points) {
    let at = bp.points_at + 4u * j;
    let step = dp(j);
    candidate[at] = model[at] + step.x;
    candidate[at + 1u] = model[at + 1u] + step.y;
    candidate[at + 2u] = model[at + 2u] + step.z;
    candidate[at + 3u] = 0.0;
  }
}

fn observation_terms(o: u32) -> vec2f {
  let base = LIN_STRIDE * o;
  let image = topo[bp.obs_image_at + o];
  let pose_var = topo[bp.image_info_at + 2u * image + 1u];
  var q = vec2f(0.0);
  if (pose_var != NONE) {
    for (var a = 0u; a < 6u; a++) {
      q += dc(pose_var + a) * vec2f(lin[base + LIN_POSE + a], lin[base + LIN_POSE + 6u + a]);
    }
  }
  let info = bp.camera_info_at + CAMERA_WORDS * topo[bp.image_info_at + 2u * image];
  let intr_var = topo[info + 2u];
  for (var a = 0u; a < topo[info + 1u]; a++) {
    q += dc(intr_var + a) * vec2f(lin[base + LIN_INTR + a], lin[base + LIN_INTR + 8u + a]);
  }
  let step = dp(topo[bp.obs_point_at + o]);
  q += vec2f(dot(vec3f(lin[base + LIN_POINT], lin[base + LIN_POINT + 1u], lin[base + LIN_POINT + 2u]), step), dot(vec3f(lin[base + LIN_POINT + 3u], lin[base + LIN_POINT + 4u], lin[base + LIN_POINT + 5u]), step));
  let r = vec2f(lin[base + LIN_R], lin[base + LIN_R + 1u]);
  return vec2f(lin[base + LIN_W] * (-dot(r, q) - 0.5 * dot(q, q)), lin[base + LIN_RHO]);
}

@compute @workgroup_size(TOTAL_WG, 1, 1)
fn step_partials(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = block_id(wid, nwg) * TOTAL_WG + lid;
  var part = vec4f(0.0);
  if (i < bp.observations) {
    let terms = observation_terms(i);
    part = vec4f(terms.x, terms.y, 0.0, 0.0);
  } else if (i < bp.observations + bp.points) {
    let j = i - bp.observations;
    let at = POINT_STRIDE * j + 12u;
    let g = abs(vec3f(pblocks[at], pblocks[at + 1u], pblocks[at + 2u]));
    let step = dp(j);
    part = vec4f(0.0, 0.0, dot(step, step), max(g.x, max(g.y, g.z)));
  } else if (i < bp.observations + bp.points + bp.variables) {
    let v = i - bp.observations - bp.points;
    let step = dc(v);
    part = vec4f(0.0, 0.0, step * step, abs(vectors[VEC_G * bp.variables + v]));
  }
  s_part[lid] = part;
  for (var stride = TOTAL_WG / 2u; stride > 0u; stride >>= 1u) {
    workgroupBarrier();
    if (lid < stride) {
      let a = s_part[lid];
      let b = s_part[lid + stride];
      s_part[lid] = vec4f(a.xyz + b.xyz, max(a.w, b.w));
    }
  }
  if (lid == 0u) {
    partials[block_id(wid, nwg)] = s_part[0];
  }
}

@compute @workgroup_size(TOTAL_WG, 1, 1)
fn step_total(@builtin(local_invocation_index) lid: u32) {
  var part = vec4f(0.0);
  for (var i = lid; i < bp.partials; i += TOTAL_WG) {
    let p = partials[i];
    part = vec4f(part.xyz + p.xyz, max(part.w, p.w));
  }
  s_part[lid] = part;
  for (var stride = TOTAL_WG / 2u; stride > 0u; stride >>= 1u) {
    workgroupBarrier();
    if (lid < stride) {
      let a = s_part[lid];
      let b = s_part[lid + stride];
      s_part[lid] = vec4f(a.xyz + b.xyz, max(a.w, b.w));
    }
  }
  if (lid == 0u) {
    scalars[8] = s_part[0].x;
    scalars[9] = s_part[0].y;
    scalars[10] = s_part[0].z;
    scalars[11] = s_part[0].w;
  }
}
