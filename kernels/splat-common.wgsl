// splat-common: the math shared by the projection forward and backward kernels and by tile
// binning, written once (one source of truth for forward and backward).
//
// Conventions (docs/rasterizer.md): camera = row-major world-to-camera R|t in OpenCV axes; pixel
// (u, v) is sampled at (u + 0.5, v + 0.5); mean2d = (fx x/z + cx, fy y/z + cy); a splat reaches
// a pixel when alpha = min(0.99, o exp(-power)) >= 1/255 with power = 0.5 d^T conic d, i.e. when
// power <= ln(255 o): the tile test below uses exactly that ellipse (opacity-aware, tight).

struct Camera {
  r0: vec4f, // world -> camera, rows of [R | t]
  r1: vec4f,
  r2: vec4f,
  position: vec4f, // camera centre in world space (xyz)
  background: vec4f, // rgb
  focal: vec2f, // fx, fy
  principal: vec2f, // cx, cy
  size: vec2u, // width, height
  tiles: vec2u, // tiles_x, tiles_y
  near: f32,
  eps2d: f32,
  sh_degree: u32, // active degree (0..3)
  sh_coeffs: u32, // coefficients stored per splat (K = (stored degree + 1)^2)
  antialiased: u32,
  count_index: u32, // where the splat count lives in `counts`
  sh_plane: u32, // planar SH: value j of splat s at j * sh_plane + s (the capacity)
  _pad1: u32,
}

const TILE: u32 = 16u;
const ALPHA_MIN: f32 = 0.00392156862745098; // 1/255
const ALPHA_MAX: f32 = 0.99;
const T_MIN: f32 = 1e-4;
const SH_C0: f32 = 0.28209479177387814;
const SH_C1: f32 = 0.4886025119029199;

fn quat_to_rotmat(q: vec4f) -> mat3x3f {
  // q = (w, x, y, z), normalized by the caller
  let w = q.x; let x = q.y; let y = q.z; let z = q.w;
  // columns
  return mat3x3f(
    vec3f(1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + w * z), 2.0 * (x * z - w * y)),
    vec3f(2.0 * (x * y - w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z + w * x)),
    vec3f(2.0 * (x * z + w * y), 2.0 * (y * z - w * x), 1.0 - 2.0 * (x * x + y * y)),
  );
}

fn camera_rotation(cam: Camera) -> mat3x3f {
  // columns of R from its rows
  return mat3x3f(
    vec3f(cam.r0.x, cam.r1.x, cam.r2.x),
    vec3f(cam.r0.y, cam.r1.y, cam.r2.y),
    vec3f(cam.r0.z, cam.r1.z, cam.r2.z),
  );
}

fn to_camera(cam: Camera, p: vec3f) -> vec3f {
  return vec3f(dot(cam.r0.xyz, p) + cam.r0.w, dot(cam.r1.xyz, p) + cam.r1.w, dot(cam.r2.xyz, p) + cam.r2.w);
}

// The clamped perspective Jacobian (gsplat's persp_proj): rows (fx/z, 0, -fx tx/z^2), (0, fy/z, -fy ty/z^2).
struct Jacobian {
  j0: vec3f,
  j1: vec3f,
  clip_x: bool, // tx was clamped
  clip_y: bool,
}

fn projection_jacobian(cam: Camera, p: vec3f) -> Jacobian {
  let w = f32(cam.size.x);
  let h = f32(cam.size.y);
  let tan_x = 0.5 * w / cam.focal.x;
  let tan_y = 0.5 * h / cam.focal.y;
  let lim_x_pos = (w - cam.principal.x) / cam.focal.x + 0.3 * tan_x;
  let lim_x_neg = cam.principal.x / cam.focal.x + 0.3 * tan_x;
  let lim_y_pos = (h - cam.principal.y) / cam.focal.y + 0.3 * tan_y;
  let lim_y_neg = cam.principal.y / cam.focal.y + 0.3 * tan_y;
  let rz = 1.0 / p.z;
  let rz2 = rz * rz;
  let ux = p.x * rz;
  let uy = p.y * rz;
  let tx = p.z * clamp(ux, -lim_x_neg, lim_x_pos);
  let ty = p.z * clamp(uy, -lim_y_neg, lim_y_pos);
  var j: Jacobian;
  j.j0 = vec3f(cam.focal.x * rz, 0.0, -cam.focal.x * tx * rz2);
  j.j1 = vec3f(0.0, cam.focal.y * rz, -cam.focal.y * ty * rz2);
  j.clip_x = ux < -lim_x_neg || ux > lim_x_pos;
  j.clip_y = uy < -lim_y_neg || uy > lim_y_pos;
  return j;
}

// Opacity from its logit (the parameter the optimizer sees).
fn sigmoid(x: f32) -> f32 {
  return 1.0 / (1.0 + exp(-x));
}

// power = 0.5 d^T conic d with d = mean2d - pixel centre, and d: (power, d.x, d.y). The one
// definition of a splat's footprint at a pixel: compositing forward and backward (rasterize.wgsl,
// composite-forward.wgsl) and the ray depth (mesh-depth.wgsl) all evaluate it.
fn splat_power(xy: vec2f, conic: vec3f, center: vec2f) -> vec3f {
  let d = xy - center;
  return vec3f(0.5 * (conic.x * d.x * d.x + conic.z * d.y * d.y) + conic.y * d.x * d.y, d);
}

// Largest power (0.5 d^T conic d) at which the splat still reaches alpha >= 1/255.
fn power_limit(opacity: f32) -> f32 {
  return log(opacity * 255.0);
}

// Min over the rectangle [lo, hi] (pixel centres) of 0.5 d^T conic d, d = p - mean.
// Convex: 0 inside; otherwise on an edge, where the 1D minimum is clamped to the edge.
fn min_power_over_rect(mean: vec2f, conic: vec3f, lo: vec2f, hi: vec2f) -> f32 {
  if (all(mean >= lo) && all(mean <= hi)) {
    return 0.0;
  }
  let a = conic.x;
  let b = conic.y;
  let c = conic.z;
  var best = 3.4e38;
  // vertical edges x = lo.x, hi.x
  for (var e = 0u; e < 2u; e++) {
    let dx = select(lo.x, hi.x, e == 1u) - mean.x;
    let dy = clamp(-b * dx / c, lo.y - mean.y, hi.y - mean.y);
    best = min(best, 0.5 * (a * dx * dx + c * dy * dy) + b * dx * dy);
  }
  for (var e = 0u; e < 2u; e++) {
    let dy = select(lo.y, hi.y, e == 1u) - mean.y;
    let dx = clamp(-b * dy / a, lo.x - mean.x, hi.x - mean.x);
    best = min(best, 0.5 * (a * dx * dx + c * dy * dy) + b * dx * dy);
  }
  return best;
}

// Whether a splat (mean2d, conic, power limit) reaches any pixel centre of tile (tx, ty).
fn tile_hit(cam: Camera, mean: vec2f, conic: vec3f, limit: f32, tx: u32, ty: u32) -> bool {
  let lo = vec2f(f32(tx * TILE) + 0.5, f32(ty * TILE) + 0.5);
  let hi = vec2f(f32(min(tx * TILE + TILE, cam.size.x) - 1u) + 0.5, f32(min(ty * TILE + TILE, cam.size.y) - 1u) + 0.5);
  // Slack so float rounding never drops a tile the per-pixel test would keep.
  return min_power_over_rect(mean, conic, lo, hi) <= limit * 1.0001 + 1e-4;
}

// Tile rectangle [x0, x1) x [y0, y1) that can hold the ellipse power <= limit (cov = conic^-1).
fn tile_bounds(cam: Camera, mean: vec2f, cov: vec3f, limit: f32) -> vec4u {
  let extent = sqrt(2.0 * max(limit, 0.0) * vec2f(cov.x, cov.z)) + vec2f(1.0);
  let lo = max(floor((mean - extent) / f32(TILE)), vec2f(0.0));
  let hi = min(ceil((mean + extent) / f32(TILE)), vec2f(cam.tiles));
  if (any(hi <= lo)) {
    return vec4u(0u);
  }
  return vec4u(u32(lo.x), u32(lo.y), u32(hi.x), u32(hi.y));
}
