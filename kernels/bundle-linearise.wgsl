// bundle-linearise: per observation (a thread each, observations sorted by point) the residual
// r = (u, v) - observed, the IRLS weight w = rho'(|r|^2) and rho, and the Jacobians of (u, v)
// with respect to the pose step [dw, dt] (R <- Exp(dw) R, t <- t + dt), the camera's refined
// intrinsics (COLMAP order, the host's per-camera list) and the point: one LIN_STRIDE record.
// All five camera models in one body by the camera's model id (0 SIMPLE_PINHOLE, 1 PINHOLE,
// 2 SIMPLE_RADIAL, 3 RADIAL, 4 OPENCV): each is OPENCV with some terms fixed at zero and, for one
// focal, fx = fy = f whose derivative is the sum of the two.
// Inputs: model, topo, obs_xy. Output: lin. Workgroup: WG threads, 2D dispatch (dispatch.wgsl).
// Invariant: the projection is the spec's (docs/sfm.md): x = X_c.x / X_c.z, distortion
//   xd = x R + 2 p1 x y + p2 (r2 + 2 x^2), yd = y R + p1 (r2 + 2 y^2) + 2 p2 x y, R = 1 + k1 r2 + k2 r2^2.

#include "bundle-common"
#include "dispatch"

override WG: u32 = 64u;

@group(0) @binding(0) var<uniform> bp: BaParams;
@group(0) @binding(1) var<storage, read> model: array<f32>;
@group(0) @binding(2) var<storage, read> topo: array<u32>;
@group(0) @binding(3) var<storage, read> obs_xy: array<vec2f>;
@group(0) @binding(4) var<storage, read_write> lin: array<f32>;

struct Intrinsics {
  f: vec2f,
  c: vec2f,
  k: vec2f,
  p: vec2f,
}

fn intrinsics_of(model_id: u32, at: u32) -> Intrinsics {
  let q0 = model[at];
  let q1 = model[at + 1u];
  let q2 = model[at + 2u];
  let q3 = model[at + 3u];
  switch model_id {
    case 0u: { return Intrinsics(vec2f(q0), vec2f(q1, q2), vec2f(0.0), vec2f(0.0)); }
    case 1u: { return Intrinsics(vec2f(q0, q1), vec2f(q2, q3), vec2f(0.0), vec2f(0.0)); }
    case 2u: { return Intrinsics(vec2f(q0), vec2f(q1, q2), vec2f(q3, 0.0), vec2f(0.0)); }
    case 3u: { return Intrinsics(vec2f(q0), vec2f(q1, q2), vec2f(q3, model[at + 4u]), vec2f(0.0)); }
    default: { return Intrinsics(vec2f(q0, q1), vec2f(q2, q3), vec2f(model[at + 4u], model[at + 5u]), vec2f(model[at + 6u], model[at + 7u])); }
  }
}

@compute @workgroup_size(WG, 1, 1)
fn linearise(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let o = thread_id(gid, nwg);
  if (o >= bp.observations) {
    return;
  }
  let image = topo[bp.obs_image_at + o];
  let point = topo[bp.obs_point_at + o];
  let camera = topo[bp.image_info_at + 2u * image];
  let info = bp.camera_info_at + CAMERA_WORDS * camera;
  let model_id = topo[info];
  let k = topo[info + 1u];
  let pa = 12u * image;
  let r0 = vec3f(model[pa], model[pa + 1u], model[pa + 2u]);
  let r1 = vec3f(model[pa + 3u], model[pa + 4u], model[pa + 5u]);
  let r2v = vec3f(model[pa + 6u], model[pa + 7u], model[pa + 8u]);
  let t = vec3f(model[pa + 9u], model[pa + 10u], model[pa + 11u]);
  let xa = bp.points_at + 4u * point;
  let X = vec3f(model[xa], model[xa + 1u], model[xa + 2u]);
  let rx = vec3f(dot(r0, X), dot(r1, X), dot(r2v, X)); // R X = X_c - t
  let xc = rx + t;
  let iz = 1.0 / xc.z;
  let x = xc.x * iz;
  let y = xc.y * iz;
  let q = intrinsics_of(model_id, bp.intrinsics_at + 8u * camera);
  let rr = x * x + y * y;
  let radial = 1.0 + q.k.x * rr + q.k.y * rr * rr;
  let xd = x * radial + 2.0 * q.p.x * x * y + q.p.y * (rr + 2.0 * x * x);
  let yd = y * radial + q.p.x * (rr + 2.0 * y * y) + 2.0 * q.p.y * x * y;
  let obs = obs_xy[o];
  // (c - observed) first: two values of similar size subtract exactly, so only f xd rounds
  let res = vec2f(q.f.x * xd + (q.c.x - obs.x), q.f.y * yd + (q.c.y - obs.y));
  let loss = robust(dot(res, res), bp.loss, bp.loss_scale);

  // d(xd, yd) / d(x, y)
  let dradial = 2.0 * (q.k.x + 2.0 * q.k.y * rr); // dR/dx = dradial x, dR/dy = dradial y
  let dxd_dx = radial + x * dradial * x + 2.0 * q.p.x * y + 6.0 * q.p.y * x;
  let dxd_dy = x * dradial * y + 2.0 * q.p.x * x + 2.0 * q.p.y * y;
  let dyd_dx = y * dradial * x + 2.0 * q.p.x * x + 2.0 * q.p.y * y;
  let dyd_dy = radial + y * dradial * y + 6.0 * q.p.x * y + 2.0 * q.p.y * x;
  // d(x, y) / dX_c
  let dx_dc = vec3f(iz, 0.0, -x * iz);
  let dy_dc = vec3f(0.0, iz, -y * iz);
  let du_dc = q.f.x * (dxd_dx * dx_dc + dxd_dy * dy_dc);
  let dv_dc = q.f.y * (dyd_dx * dx_dc + dyd_dy * dy_dc);

  let base = LIN_STRIDE * o;
  lin[base + LIN_R] = res.x;
  lin[base + LIN_R + 1u] = res.y;
  lin[base + LIN_W] = loss.y;
  lin[base + LIN_RHO] = loss.x;
  // pose: dX_c/d(dw) = -[R X]_x, so column a is dX_c . (e_a x R X); dX_c/d(dt) = I
  let e0 = cross(vec3f(1.0, 0.0, 0.0), rx);
  let e1 = cross(vec3f(0.0, 1.0, 0.0), rx);
  let e2 = cross(vec3f(0.0, 0.0, 1.0), rx);
  var pu = array<f32, 6>(dot(du_dc, e0), dot(du_dc, e1), dot(du_dc, e2), du_dc.x, du_dc.y, du_dc.z);
  var pv = array<f32, 6>(dot(dv_dc, e0), dot(dv_dc, e1), dot(dv_dc, e2), dv_dc.x, dv_dc.y, dv_dc.z);
  for (var a = 0u; a < 6u; a++) {
    lin[base + LIN_POSE + a] = pu[a];
    lin[base + LIN_POSE + 6u + a] = pv[a];
  }
  // point: dX_c/dX = R, so d(u)/dX = du_dc^T R
  let ju = du_dc.x * r0 + du_dc.y * r1 + du_dc.z * r2v;
  let jv = dv_dc.x * r0 + dv_dc.y * r1 + dv_dc.z * r2v;
  lin[base + LIN_POINT] = ju.x;
  lin[base + LIN_POINT + 1u] = ju.y;
  lin[base + LIN_POINT + 2u] = ju.z;
  lin[base + LIN_POINT + 3u] = jv.x;
  lin[base + LIN_POINT + 4u] = jv.y;
  lin[base + LIN_POINT + 5u] = jv.z;
  // intrinsics: every parameter's derivative in COLMAP order, then the camera's refined ones
  var du = array<f32, 8>(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
  var dv = array<f32, 8>(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
  let fr = q.f * rr;
  let frr = q.f * rr * rr;
  switch model_id {
    case 0u, 2u, 3u: {
      du[0] = xd; dv[0] = yd;
      du[1] = 1.0; dv[2] = 1.0;
      du[3] = fr.x * x; dv[3] = fr.y * y;
      du[4] = frr.x * x; dv[4] = frr.y * y;
    }
    default: {
      du[0] = xd; dv[1] = yd;
      du[2] = 1.0; dv[3] = 1.0;
      du[4] = fr.x * x; dv[4] = fr.y * y;
      du[5] = frr.x * x; dv[5] = frr.y * y;
      du[6] = q.f.x * 2.0 * x * y; dv[6] = q.f.y * (rr + 2.0 * y * y);
      du[7] = q.f.x * (rr + 2.0 * x * x); dv[7] = q.f.y * 2.0 * x * y;
    }
  }
  for (var a = 0u; a < 8u; a++) {
    var ju_a = 0.0;
    var jv_a = 0.0;
    if (a < k) {
      let index = topo[info + 4u + a];
      ju_a = du[index];
      jv_a = dv[index];
    }
    lin[base + LIN_INTR + a] = ju_a;
    lin[base + LIN_INTR + 8u + a] = jv_a;
  }
  lin[base + 38u] = 0.0;
  lin[base + 39u] = 0.0;
}
