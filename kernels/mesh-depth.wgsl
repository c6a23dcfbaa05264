// mesh-depth: per-pixel ray depth for mesh extraction, from a rasterizer frame's sorted lists.
//
// The rasterizer's depth composites one depth per splat (its centre's). On a slanted surface the
// nearest of the splats covering a pixel dominates, so depth / alpha sits in front of the surface
// by a fraction of a footprint. Here each splat contributes the depth of its highest density
// along the pixel's ray instead: for a Gaussian with camera-space mean mu and covariance S, ray
// x = t r with r = ((u - cx) / fx, (v - cy) / fy, 1), the maximum is at
//   t* = r.(S^-1 mu) / r.(S^-1 r)      (camera z of that point = t*, since r.z = 1)
// which, for a flat splat, is where the ray meets the splat's plane. t* is clamped to the centre's
// depth +- 3 x the largest scale (grazing rays).
//
// depth_planes: one thread per splat (dispatched over the capacity; the live count from
//   counts[cam.count_index]). Visible splats write planes[3 k .. 3 k + 2] at their depth rank k
//   (rank_of_splat): S^-1 (xx, xy, xz, yy, yz, zz), S^-1 mu, the centre depth, the clamp radius.
// depth_forward: one 16x16 workgroup per tile, one thread per pixel, the same front-to-back loop,
//   alpha and early stops as rasterize.wgsl's rasterize_forward (so its weights are the image's);
//   out: ray_depth[pixel] = sum(w t*) / sum(w) (0 where nothing is composited), stride = width.
// Inputs: the frame's camera uniform, counts, the splats' means, log scales and quaternions,
//   visible, rank_of_splat, tile_ranges, sorted_rank, rank_xy, rank_conic_opacity.
// Override constants: WG (depth_planes); CENTRE_DEPTH (depth_forward: use the centre depths, the
//   rasterizer's own; tests only); ENTRY (depth_forward: where a splat's alpha at the pixel exceeds
//   1/2, use the depth where the ray enters its alpha-1/2 level set instead of t*: along the ray
//   the Mahalanobis distance is m2(t) = m2_min + a (t - t*)^2 with a = r.(S^-1 r), and the splat's
//   alpha o exp(-m2 / 2) falls to 1/2 at m2 = 2 ln(2 o), so the entry is
//   t* - sqrt(2 ln(2 alpha) / a) with alpha = o exp(-m2_min / 2) its alpha at this pixel. A fat,
//   opaque splat shows its surface about 1.2 sigma in front of its centre (that is where the
//   silhouettes of the other views put it); a flat one is unchanged.)
// Invariant: the loop is rasterize_forward's (composite-forward.wgsl, splat_power of
//   splat-common.wgsl); with CENTRE_DEPTH the output is the rasterizer's depth / alpha
//   (tests/parity/mesh-depth.parity.ts), so the weights are the image's.

#include "composite-forward"
#include "dispatch"

override WG: u32 = 256u;
override CENTRE_DEPTH: bool = false;
override ENTRY: bool = true;

@group(0) @binding(0) var<uniform> cam: Camera;
@group(0) @binding(1) var<storage, read> counts: array<u32>;
@group(0) @binding(2) var<storage, read> means: array<f32>; // arena splat_params.means
@group(0) @binding(3) var<storage, read> log_scales: array<f32>; // arena splat_params.logScales
@group(0) @binding(4) var<storage, read> quats: array<f32>; // arena splat_params.quats
@group(0) @binding(5) var<storage, read> visible: array<u32>;
@group(0) @binding(6) var<storage, read> rank_of_splat: array<u32>; // arena rank_counts.rankOfSplat
@group(0) @binding(7) var<storage, read_write> planes: array<vec4f>;
@group(0) @binding(8) var<storage, read> tile_ranges: array<vec2u>;
@group(0) @binding(9) var<storage, read> sorted_rank: array<u32>; // arena tile_order.rank
@group(0) @binding(10) var<storage, read> rank_xy: array<vec2u>; // arena ranked_xy_rect.xy
@group(0) @binding(11) var<storage, read> rank_conic_opacity: array<vec4f>; // arena ranked.conicOpacity
@group(0) @binding(12) var<storage, read> planes_in: array<vec4f>;
@group(0) @binding(13) var<storage, read_write> ray_depth: array<f32>;

@compute @workgroup_size(WG)
fn depth_planes(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let s = thread_id(gid, nwg);
  if (s >= counts[cam.count_index] || visible[s] == 0u) {
    return;
  }
  let mu = to_camera(cam, vec3f(means[3u * s], means[3u * s + 1u], means[3u * s + 2u]));
  let q = normalize(vec4f(quats[4u * s], quats[4u * s + 1u], quats[4u * s + 2u], quats[4u * s + 3u]));
  let axes = camera_rotation(cam) * quat_to_rotmat(q); // columns: the splat's axes in camera space
  let log_s = vec3f(log_scales[3u * s], log_scales[3u * s + 1u], log_scales[3u * s + 2u]);
  let inv2 = exp(-2.0 * log_s);
  var a = mat3x3f(vec3f(0.0), vec3f(0.0), vec3f(0.0));
  for (var i = 0u; i < 3u; i++) {
    let c = axes[i];
    a += mat3x3f(c * c.x, c * c.y, c * c.z) * inv2[i];
  }
  let b = a * mu;
  let k = rank_of_splat[s];
  planes[3u * k] = vec4f(a[0].x, a[1].x, a[2].x, a[1].y);
  planes[3u * k + 1u] = vec4f(a[2].y, a[2].z, b.x, b.y);
  planes[3u * k + 2u] = vec4f(b.z, mu.z, 3.0 * exp(max(log_s.x, max(log_s.y, log_s.z))), 0.0);
}

var<workgroup> s_plane0: array<vec4f, COMPOSITE_BATCH>;
var<workgroup> s_plane1: array<vec4f, COMPOSITE_BATCH>;
var<workgroup> s_plane2: array<vec4f, COMPOSITE_BATCH>;

fn ray_depth_of(slot: u32, r: vec3f, alpha: f32) -> f32 {
  let p0 = s_plane0[slot];
  let p1 = s_plane1[slot];
  let p2 = s_plane2[slot];
  // r^T A r with A = (xx, xy, xz; xy, yy, yz; xz, yz, zz)
  let ar = vec3f(p0.x * r.x + p0.y * r.y + p0.z * r.z, p0.y * r.x + p0.w * r.y + p1.x * r.z, p0.z * r.x + p1.x * r.y + p1.y * r.z);
  let den = dot(r, ar);
  let num = dot(r, vec3f(p1.z, p1.w, p2.x));
  if (CENTRE_DEPTH || !(den > 0.0)) {
    return p2.y;
  }
  var t = num / den;
  if (ENTRY && alpha > 0.5) {
    t -= sqrt(2.0 * log(2.0 * alpha) / den);
  }
  return clamp(t, p2.y - p2.z, p2.y + p2.z);
}

// ---- the loop of composite-forward.wgsl, with these hooks ------------------------------------

struct ForwardPixel {
  ray: vec3f, // r = ((u - cx) / fx, (v - cy) / fy, 1)
  depth: f32, // sum of w t*
}

fn begin_batch(li: u32, start: u32, end: u32) {
  if (li < COMPOSITE_BATCH && start + li < end) {
    let k = sorted_rank[start + li];
    s_xy[li] = bitcast<vec2f>(rank_xy[k]);
    s_conic_opacity[li] = rank_conic_opacity[k];
    s_plane0[li] = planes_in[3u * k];
    s_plane1[li] = planes_in[3u * k + 1u];
    s_plane2[li] = planes_in[3u * k + 2u];
  }
}

fn composite_splat(pixel: ptr<function, ForwardPixel>, j: u32, index: u32, alpha: f32, t: f32, next_t: f32) {
  (*pixel).depth += alpha * t * ray_depth_of(j, (*pixel).ray, alpha);
}

fn end_batch(li: u32, start: u32, batch: u32) {}

@compute @workgroup_size(TILE, TILE, 1)
fn depth_forward(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_id) lid: vec3u, @builtin(local_invocation_index) li: u32) {
  let tile = wid.y * cam.tiles.x + wid.x;
  let px = wid.xy * TILE + lid.xy;
  let inside = px.x < cam.size.x && px.y < cam.size.y;
  let center = vec2f(px) + vec2f(0.5);
  var sums = ForwardPixel(vec3f((center - cam.principal) / cam.focal, 1.0), 0.0);
  let end = composite_front_to_back(li, inside, center, tile_ranges[tile], &sums);
  if (inside) {
    let pixel = px.y * cam.size.x + px.x;
    let weight = 1.0 - end.t;
    ray_depth[pixel] = select(0.0, sums.depth / weight, weight > 0.0);
  }
}
