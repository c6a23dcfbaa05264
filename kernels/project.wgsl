// project: per splat, 3D Gaussian -> screen-space splat (forward), and the chain rule back from
// screen-space gradients to the 3D parameters (backward).
//
// project_forward (one thread per splat s < n; the workgroup shares the tile counting of splats
//   over more than BIG tiles):
//   in:  means, log_scales, quats (w,x,y,z, unnormalized), opacity_logits, sh [s][k][c], camera
//   out: xy[s] (mean2d), conic_opacity[s] (conic a, b, c; effective opacity), color_depth[s]
//        (rgb after SH + 0.5 clamped at 0; camera z), out_normal[s] (OUT_NORMALS: the camera-space
//        axis of the smallest scale, facing the camera), tile_count[s] (tiles the splat reaches; 0
//        when culled), tile_rect[s] (packed x0|y0<<16, x1|y1<<16), visible[s] (0/1)
// project_backward (one thread per splat s < n; k = rank_of_splat[s] when visible, else every
//   gradient of s is written as zero, so no separate clear is needed):
//   in:  the same parameters and camera, v2d[4k..4k+3] (screen-space gradients summed over the
//        splat's tiles: (v_x, v_y, v_a, v_b), (v_c, v_opacity, v_z, |v_x|), (v_rgb, |v_y|),
//        (v_normal, 0) with OUT_NORMALS)
//   out: grads of every parameter of s, and mean2d_grad[s] = (v_x, v_y, |v_x|, |v_y|) for densification
//        (not with MEAN2D_GRADS false: training after ADC's refine stop, mean2d_grad a placeholder);
//        with CAMERA_GRADS also the splat's share of dL/d(camera) in camera_grad_partials[3s..3s+2]
//        (see below; camera-grads.wgsl sums the shares in a fixed order)
// Workgroup: WG threads (override), 1D, dispatched over the splat capacity (threads past the
//   count exit).
// Invariant: forward and backward recompute the same intermediates with the same functions
//   (splat-common.wgsl), so the backward differentiates exactly what the forward computed.

#include "splat-common"
#include "sh"
#include "dispatch"
#include "big-splats"

override WG: u32 = 256u;

@group(0) @binding(0) var<uniform> cam: Camera;
@group(0) @binding(1) var<storage, read> counts: array<u32>;
@group(0) @binding(2) var<storage, read> means: array<f32>; // arena splat_params.means
@group(0) @binding(3) var<storage, read> log_scales: array<f32>; // arena splat_params.logScales
@group(0) @binding(4) var<storage, read> quats: array<f32>; // arena splat_params.quats
@group(0) @binding(5) var<storage, read> opacity_logits: array<f32>; // arena splat_params.opacityLogits
@group(0) @binding(6) var<storage, read> sh: array<f32>; // arena splat_params.sh
// forward outputs
@group(0) @binding(7) var<storage, read_write> out_xy: array<vec2u>; // arena projected_xy_rect.xy
@group(0) @binding(8) var<storage, read_write> out_conic_opacity: array<vec4f>; // arena projected.conicOpacity
@group(0) @binding(9) var<storage, read_write> out_color_depth: array<vec4f>; // arena projected.colorDepth
@group(0) @binding(10) var<storage, read_write> out_tile_count: array<u32>;
@group(0) @binding(11) var<storage, read_write> out_tile_rect: array<vec2u>; // arena projected_xy_rect.rect
@group(0) @binding(12) var<storage, read_write> out_visible: array<u32>;
// backward
@group(0) @binding(13) var<storage, read> rank_of_splat: array<u32>; // arena rank_counts.rankOfSplat
@group(0) @binding(14) var<storage, read> v2d: array<vec4f>;
@group(0) @binding(15) var<storage, read_write> grad_means: array<f32>; // arena splat_grads.means
@group(0) @binding(16) var<storage, read_write> grad_log_scales: array<f32>; // arena splat_grads.logScales
@group(0) @binding(17) var<storage, read_write> grad_quats: array<f32>; // arena splat_grads.quats
@group(0) @binding(18) var<storage, read_write> grad_opacity_logits: array<f32>; // arena splat_grads.opacityLogits
@group(0) @binding(19) var<storage, read_write> grad_sh: array<f32>; // arena splat_grads.sh
@group(0) @binding(20) var<storage, read_write> mean2d_grad: array<vec4f>;
@group(0) @binding(21) var<storage, read> visible_in: array<u32>;
// the splat's camera-space normal (OUT_NORMALS): the axis of its smallest scale, facing the camera
@group(0) @binding(22) var<storage, read_write> out_normal: array<vec4f>; // arena projected.normal

override OUT_NORMALS: bool = false;

// Camera refinement: each splat's share of dL/d(the view's camera), three vec4 per splat:
//   (d omega, d fx), (d tau, d fy), (d cx, d cy, 0, 0)
// for a local perturbation of the world-to-camera matrix [R | t] -> Exp(omega, tau) [R | t]
// (rotation omega about the camera centre in camera axes, then translation tau in camera axes)
// and of the intrinsics. Off (the default) the block below is dead code: the other outputs are
// bit-identical and the pipeline does no extra work (the binding is then a 16-byte placeholder).
override CAMERA_GRADS: bool = false;
@group(0) @binding(23) var<storage, read_write> camera_grad_partials: array<vec4f>;

// Index of the smallest scale (the first on ties) and the sign that makes n . p <= 0.
fn normal_axis(log_scale: vec3f) -> u32 {
  var a = 0u;
  if (log_scale.y < log_scale[a]) {
    a = 1u;
  }
  if (log_scale.z < log_scale[a]) {
    a = 2u;
  }
  return a;
}

fn load_vec3(buffer_index: u32, s: u32) -> vec3f {
  // 0: means, 1: log_scales
  if (buffer_index == 0u) {
    return vec3f(means[3u * s], means[3u * s + 1u], means[3u * s + 2u]);
  }
  return vec3f(log_scales[3u * s], log_scales[3u * s + 1u], log_scales[3u * s + 2u]);
}

fn load_quat(s: u32) -> vec4f {
  return vec4f(quats[4u * s], quats[4u * s + 1u], quats[4u * s + 2u], quats[4u * s + 3u]);
}

// 2x2 symmetric matrices are (xx, xy, yy).
fn covariance_2d(j: Jacobian, cov_cam: mat3x3f) -> vec3f {
  let t0 = cov_cam * j.j0; // Sigma_c J0^T (symmetric Sigma_c)
  let t1 = cov_cam * j.j1;
  return vec3f(dot(j.j0, t0), dot(j.j0, t1), dot(j.j1, t1));
}

// One SH coefficient's gradient (sh.wgsl's sink): stored, for Adam's SH group to read, unless
// the SH Adam is fused (SH_GRADS false: sh-adam.wgsl computes it again and applies it at once;
// grad_sh is then a 16-byte placeholder the dead branch never writes).
override SH_GRADS: bool = true;
// Whether the screen-space gradient is stored (densification reads it); false once nothing does
// (ADC after its refine stop): mean2d_grad is then a 16-byte placeholder the dead branches never write.
override MEAN2D_GRADS: bool = true;
fn sh_coeff_grad(s: u32, k: u32, g: vec3f) {
  if (SH_GRADS) {
    let p = cam.sh_plane;
    let i = 3u * k * p + s;
    grad_sh[i] = g.x;
    grad_sh[i + p] = g.y;
    grad_sh[i + 2u * p] = g.z;
  }
}

// Splats whose tile rectangle holds more than BIG tiles are counted by the whole workgroup
// (each thread tests a share of the rectangle) instead of by their own thread: one splat over
// thousands of tiles would otherwise hold its workgroup (and the dispatch's tail) alone.
override BIG: u32 = 32u;
var<workgroup> big_xy_limit: array<vec4f, WG>; // mean2d, power limit
var<workgroup> big_conic: array<vec4f, WG>;
var<workgroup> big_rect: array<vec4u, WG>;
var<workgroup> big_hits: array<atomic<u32>, WG>;

@compute @workgroup_size(WG)
fn project_forward(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) li: u32) {
  let s = thread_id(gid, nwg);
  big_list_begin(li);
  // Culls set `ok` to false; no thread returns before the workgroup's shared counting below.
  var ok = s < counts[cam.count_index];
  if (ok) {
    out_tile_count[s] = 0u;
    out_visible[s] = 0u;
    out_tile_rect[s] = vec2u(0u);
  }
  var p = vec3f(0.0);
  var mean = vec3f(0.0);
  var rot = mat3x3f();
  var w = mat3x3f();
  var conic = vec3f(0.0);
  var xy = vec2f(0.0);
  var opacity = 0.0;
  var rect = vec4u(0u);
  var hits = 0u;
  var slot = 0xffffffffu;
  if (ok) {
    mean = load_vec3(0u, s);
    p = to_camera(cam, mean);
    ok = p.z >= cam.near;
  }
  if (ok) {
    let q = normalize(load_quat(s));
    rot = quat_to_rotmat(q);
    let scale = exp(load_vec3(1u, s));
    let m = mat3x3f(rot[0] * scale.x, rot[1] * scale.y, rot[2] * scale.z);
    w = camera_rotation(cam);
    let cov_cam = w * (m * transpose(m)) * transpose(w);
    let j = projection_jacobian(cam, p);
    let cov_raw = covariance_2d(j, cov_cam);
    let cov = cov_raw + vec3f(cam.eps2d, 0.0, cam.eps2d);
    let det = cov.x * cov.z - cov.y * cov.y;
    ok = det > 0.0;
    if (ok) {
      opacity = sigmoid(opacity_logits[s]);
      if (cam.antialiased != 0u) {
        let det_raw = cov_raw.x * cov_raw.z - cov_raw.y * cov_raw.y;
        opacity *= sqrt(max(0.0, det_raw / det));
      }
      ok = opacity * 255.0 >= 1.0; // else it never reaches alpha 1/255 anywhere
    }
    if (ok) {
      conic = vec3f(cov.z, -cov.y, cov.x) / det;
      xy = vec2f(cam.focal.x * p.x / p.z + cam.principal.x, cam.focal.y * p.y / p.z + cam.principal.y);
      let limit = power_limit(opacity);
      rect = tile_bounds(cam, xy, cov, limit);
      let area = (rect.z - rect.x) * (rect.w - rect.y);
      if (area > BIG) {
        slot = big_list_push();
        big_xy_limit[slot] = vec4f(xy, limit, 0.0);
        big_conic[slot] = vec4f(conic, 0.0);
        big_rect[slot] = rect;
        atomicStore(&big_hits[slot], 0u);
      } else {
        for (var ty = rect.y; ty < rect.w; ty++) {
          for (var tx = rect.x; tx < rect.z; tx++) {
            if (tile_hit(cam, xy, conic, limit, tx, ty)) {
              hits += 1u;
            }
          }
        }
      }
    }
  }
  let n_big = big_list_end(li);
  for (var b = 0u; b < n_big; b++) {
    let r = big_rect[b];
    let width = r.z - r.x;
    let area = width * (r.w - r.y);
    let g = big_xy_limit[b];
    let c = big_conic[b].xyz;
    var mine = 0u;
    for (var t = li; t < area; t += WG) {
      if (tile_hit(cam, g.xy, c, g.z, r.x + t % width, r.y + t / width)) {
        mine += 1u;
      }
    }
    if (mine > 0u) {
      atomicAdd(&big_hits[b], mine);
    }
  }
  workgroupBarrier();
  if (slot != 0xffffffffu) {
    hits = atomicLoad(&big_hits[slot]);
  }
  if (!ok || hits == 0u) {
    return;
  }
  let dir = normalize(mean - cam.position.xyz);
  let color = max(sh_color(s, dir), vec3f(0.0));
  if (OUT_NORMALS) {
    let n = w * rot[normal_axis(load_vec3(1u, s))];
    out_normal[s] = vec4f(select(n, -n, dot(n, p) > 0.0), 0.0);
  }
  out_xy[s] = bitcast<vec2u>(xy);
  out_conic_opacity[s] = vec4f(conic, opacity);
  out_color_depth[s] = vec4f(color, p.z);
  out_tile_count[s] = hits;
  out_tile_rect[s] = vec2u(rect.x | (rect.y << 16u), rect.z | (rect.w << 16u));
  out_visible[s] = 1u;
}

// d(R)/d(q) for R = quat_to_rotmat(q), q = (w, x, y, z); v_r[c][r] = dL/dR[r][c].
fn quat_to_rotmat_vjp(q: vec4f, v_r: mat3x3f) -> vec4f {
  let w = q.x; let x = q.y; let y = q.z; let z = q.w;
  // V(r, c) = v_r[c][r]
  let v00 = v_r[0][0]; let v10 = v_r[0][1]; let v20 = v_r[0][2];
  let v01 = v_r[1][0]; let v11 = v_r[1][1]; let v21 = v_r[1][2];
  let v02 = v_r[2][0]; let v12 = v_r[2][1]; let v22 = v_r[2][2];
  return vec4f(
    2.0 * (-z * v01 + y * v02 + z * v10 - x * v12 - y * v20 + x * v21),
    2.0 * (y * v01 + z * v02 + y * v10 - 2.0 * x * v11 - w * v12 + z * v20 + w * v21 - 2.0 * x * v22),
    2.0 * (-2.0 * y * v00 + x * v01 + w * v02 + x * v10 + z * v12 - w * v20 + z * v21 - 2.0 * y * v22),
    2.0 * (-2.0 * z * v00 - w * v01 + x * v02 + w * v10 - 2.0 * z * v11 + y * v12 + x * v20 + y * v21),
  );
}

fn write_zero_grads(s: u32) {
  for (var i = 0u; i < 3u; i++) {
    grad_means[3u * s + i] = 0.0;
    grad_log_scales[3u * s + i] = 0.0;
  }
  for (var i = 0u; i < 4u; i++) {
    grad_quats[4u * s + i] = 0.0;
  }
  grad_opacity_logits[s] = 0.0;
  for (var k = 0u; k < cam.sh_coeffs; k++) {
    sh_coeff_grad(s, k, vec3f(0.0));
  }
  if (MEAN2D_GRADS) {
    mean2d_grad[s] = vec4f(0.0);
  }
  if (CAMERA_GRADS) {
    for (var i = 0u; i < 3u; i++) {
      camera_grad_partials[3u * s + i] = vec4f(0.0);
    }
  }
}

// The camera share of splat s (CAMERA_GRADS). p = W x + t and Sigma_c = W Sigma W^T move with the
// pose: under omega, dp = omega x p and dSigma_c = [omega]x Sigma_c + Sigma_c [omega]x^T, so
// dL/domega = p x v_p + vee(A - A^T) with A = 2 v_Sigma_c Sigma_c; under tau, dp = tau and the
// camera centre (the SH view direction's origin) moves by -W^T tau, hence dL/dtau = v_p + W v_u
// (v_u = dL/d(mean - centre) through the direction). The intrinsics enter mean2d and J; where J's
// x/z is clamped, fx times the clamp limit is (1.15 w - cx) or (cx + 0.15 w): no fx, slope 1 in cx.
fn write_camera_grads(s: u32, p: vec3f, v_p: vec3f, cov_cam: mat3x3f, v_cov_cam: mat3x3f, w: mat3x3f, v_u: vec3f, v_xy: vec2f, j: Jacobian, v_j: mat3x2f, v_omega_normal: vec3f) {
  let a = 2.0 * (v_cov_cam * cov_cam); // a[c][r] = A(r, c)
  let v_omega = cross(p, v_p) + vec3f(a[1][2] - a[2][1], a[2][0] - a[0][2], a[0][1] - a[1][0]) + v_omega_normal;
  let v_tau = v_p + w * v_u;
  let rz = 1.0 / p.z;
  let v_fx = v_xy.x * p.x * rz + v_j[0][0] * rz + select(-v_j[2][0] * p.x * rz * rz, 0.0, j.clip_x);
  let v_fy = v_xy.y * p.y * rz + v_j[1][1] * rz + select(-v_j[2][1] * p.y * rz * rz, 0.0, j.clip_y);
  let v_cx = v_xy.x + select(0.0, v_j[2][0] * rz, j.clip_x);
  let v_cy = v_xy.y + select(0.0, v_j[2][1] * rz, j.clip_y);
  camera_grad_partials[3u * s] = vec4f(v_omega, v_fx);
  camera_grad_partials[3u * s + 1u] = vec4f(v_tau, v_fy);
  camera_grad_partials[3u * s + 2u] = vec4f(v_cx, v_cy, 0.0, 0.0);
}

fn sym2(v: vec3f) -> mat2x2f {
  return mat2x2f(vec2f(v.x, v.y), vec2f(v.y, v.z));
}

@compute @workgroup_size(WG)
fn project_backward(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let s = thread_id(gid, nwg);
  if (s >= counts[cam.count_index]) {
    return;
  }
  if (visible_in[s] == 0u) {
    write_zero_grads(s);
    return;
  }
  let k = rank_of_splat[s];
  let g0 = v2d[4u * k];
  let g1 = v2d[4u * k + 1u];
  let g2 = v2d[4u * k + 2u];
  let g3 = v2d[4u * k + 3u];
  let v_xy = g0.xy;
  let v_conic = vec3f(g0.zw, g1.x);
  let v_opacity = g1.y;
  let v_z = g1.z;
  let v_rgb = g2.xyz;
  if (MEAN2D_GRADS) {
    mean2d_grad[s] = vec4f(v_xy, g1.w, g2.w);
  }

  // ---- recompute the forward ----
  let mean = load_vec3(0u, s);
  let p = to_camera(cam, mean);
  let q_raw = load_quat(s);
  let q_len = length(q_raw);
  let q = q_raw / q_len;
  let rot = quat_to_rotmat(q);
  let scale = exp(load_vec3(1u, s));
  let m = mat3x3f(rot[0] * scale.x, rot[1] * scale.y, rot[2] * scale.z);
  let w = camera_rotation(cam);
  let cov_world = m * transpose(m);
  let cov_cam = w * cov_world * transpose(w);
  let j = projection_jacobian(cam, p);
  let cov_raw = covariance_2d(j, cov_cam);
  let cov = cov_raw + vec3f(cam.eps2d, 0.0, cam.eps2d);
  let det = cov.x * cov.z - cov.y * cov.y;
  let conic = vec3f(cov.z, -cov.y, cov.x) / det;
  let sig = sigmoid(opacity_logits[s]);

  // ---- opacity (and the antialiasing compensation) ----
  var v_cov_raw = vec3f(0.0); // scalar gradients w.r.t. (xx, xy, yy)
  var comp = 1.0;
  if (cam.antialiased != 0u) {
    let det_raw = cov_raw.x * cov_raw.z - cov_raw.y * cov_raw.y;
    let ratio = det_raw / det;
    comp = sqrt(max(0.0, ratio));
    if (ratio > 0.0) {
      let v_comp = v_opacity * sig;
      let v_ratio = v_comp * 0.5 / comp;
      // d(det_raw/det)/d(xx, xy, yy), det = det of cov_raw + eps I
      let d_raw = vec3f(cov_raw.z, -2.0 * cov_raw.y, cov_raw.x);
      let d_blur = vec3f(cov.z, -2.0 * cov.y, cov.x);
      v_cov_raw += v_ratio * (d_raw * det - det_raw * d_blur) / (det * det);
    }
  }
  grad_opacity_logits[s] = v_opacity * comp * sig * (1.0 - sig);

  // ---- conic = inverse(cov) ----
  let c_mat = sym2(conic);
  let v_c_mat = mat2x2f(vec2f(v_conic.x, 0.5 * v_conic.y), vec2f(0.5 * v_conic.y, v_conic.z));
  let v_cov_mat = -1.0 * (c_mat * v_c_mat * c_mat);
  v_cov_raw += vec3f(v_cov_mat[0][0], v_cov_mat[0][1] + v_cov_mat[1][0], v_cov_mat[1][1]);

  // ---- cov_raw = J Sigma_c J^T ----
  let vm = mat2x2f(vec2f(v_cov_raw.x, 0.5 * v_cov_raw.y), vec2f(0.5 * v_cov_raw.y, v_cov_raw.z));
  // J as a 2x3 matrix (3 columns of vec2)
  let jm = mat3x2f(vec2f(j.j0.x, j.j1.x), vec2f(j.j0.y, j.j1.y), vec2f(j.j0.z, j.j1.z));
  let v_cov_cam = transpose(jm) * vm * jm; // 3x3
  let v_j = 2.0 * (vm * jm * cov_cam); // 2x3 (mat3x2f)

  // ---- J(p) and mean2d(p), z ----
  let rz = 1.0 / p.z;
  let rz2 = rz * rz;
  let rz3 = rz2 * rz;
  let fx = cam.focal.x;
  let fy = cam.focal.y;
  // tx, ty as used in J (clamped)
  let tx = -j.j0.z * p.z * p.z / fx;
  let ty = -j.j1.z * p.z * p.z / fy;
  var v_p = vec3f(0.0);
  v_p.x += v_xy.x * fx * rz;
  v_p.y += v_xy.y * fy * rz;
  v_p.z += -(v_xy.x * fx * p.x + v_xy.y * fy * p.y) * rz2;
  v_p.z += v_z;
  // v_j[c][r]: row r (0: x row, 1: y row), column c
  v_p.z += -fx * rz2 * v_j[0][0] - fy * rz2 * v_j[1][1] + 2.0 * fx * tx * rz3 * v_j[2][0] + 2.0 * fy * ty * rz3 * v_j[2][1];
  if (!j.clip_x) {
    v_p.x += -fx * rz2 * v_j[2][0];
  } else {
    v_p.z += -fx * rz3 * v_j[2][0] * tx;
  }
  if (!j.clip_y) {
    v_p.y += -fy * rz2 * v_j[2][1];
  } else {
    v_p.z += -fy * rz3 * v_j[2][1] * ty;
  }

  // ---- Sigma_c = W Sigma W^T; p = W mean + t ----
  let v_cov_world = transpose(w) * v_cov_cam * w;
  var v_mean = transpose(w) * v_p;

  // ---- Sigma = M M^T, M = R S ----
  let v_m = 2.0 * v_cov_world * m;
  var v_rot = mat3x3f(v_m[0] * scale.x, v_m[1] * scale.y, v_m[2] * scale.z);
  var v_omega_normal = vec3f(0.0); // CAMERA_GRADS: the normal turns with the camera (dn = omega x n)
  if (OUT_NORMALS) {
    // n = +-W R[:, a]: the axis choice and the sign are discrete (no gradient)
    let a = normal_axis(load_vec3(1u, s));
    let n = w * rot[a];
    let sgn = select(1.0, -1.0, dot(n, p) > 0.0);
    v_rot[a] += sgn * (transpose(w) * g3.xyz);
    v_omega_normal = cross(sgn * n, g3.xyz);
  }
  let v_scale = vec3f(dot(rot[0], v_m[0]), dot(rot[1], v_m[1]), dot(rot[2], v_m[2]));
  let v_log_scale = v_scale * scale;
  let v_qn = quat_to_rotmat_vjp(q, v_rot);
  let v_q = (v_qn - q * dot(q, v_qn)) / q_len;

  // ---- colour: SH coefficients and the view direction ----
  let u = mean - cam.position.xyz;
  let u_len = length(u);
  let dir = u / u_len;
  let raw = sh_color(s, dir);
  let v_raw = select(vec3f(0.0), v_rgb, raw > vec3f(0.0));
  let v_dir = sh_backward(s, dir, v_raw);
  let v_u = (v_dir - dir * dot(dir, v_dir)) / u_len;
  v_mean += v_u;
  if (CAMERA_GRADS) {
    write_camera_grads(s, p, v_p, cov_cam, v_cov_cam, w, v_u, v_xy, j, v_j, v_omega_normal);
  }

  grad_means[3u * s] = v_mean.x;
  grad_means[3u * s + 1u] = v_mean.y;
  grad_means[3u * s + 2u] = v_mean.z;
  grad_log_scales[3u * s] = v_log_scale.x;
  grad_log_scales[3u * s + 1u] = v_log_scale.y;
  grad_log_scales[3u * s + 2u] = v_log_scale.z;
  grad_quats[4u * s] = v_q.x;
  grad_quats[4u * s + 1u] = v_q.y;
  grad_quats[4u * s + 2u] = v_q.z;
  grad_quats[4u * s + 3u] = v_q.w;
}
