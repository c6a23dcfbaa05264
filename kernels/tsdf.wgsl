// tsdf: fuses one rendered view (depth + colour) into a truncated signed distance volume, counts
// the views that saw each point as empty, and carves (tsdf_carve) what enough views saw empty.
//
// tsdf_integrate: one thread per grid point of a slab of z-layers [slab.z0, slab.z0 + slab.layers)
//   (the host splits the grid into slabs so that no dispatch runs long: a GPU watchdog).
//   Grid point (i, j, k) sits at origin + (i, j, k) * voxel; index i + nx (j + ny k).
// Inputs:  view (world -> camera rows in OpenCV axes, pinhole, image size, thresholds), the view's
//          per-pixel `depth` and `image` (vec4: rgb over a black background, alpha) as the
//          rasterizer writes them (stride = the view's width), and `view_alpha`: the training
//          image's own alpha (or mask) per pixel, read where view.has_alpha is 1.
// Outputs: values (running mean of the truncated SDF in [-1, 1], in truncation units), weights
//          (observations), colors (rgba8: running mean colour, a = colour observations, <= 255),
//          free (views that saw the point as empty space).
// Per point: project the point; outside the image or behind the near plane: untouched. Where
//   alpha >= alpha_min the surface depth d is depth / alpha (DEPTH_MODE 0: the expected depth;
//   1: the buffer holds a depth to use as is: the ray depth of mesh-depth.wgsl, or the median
//   depth of a rasterizer frame's `geometry`, read with DEPTH_STRIDE 4) and sdf = d - z (z = camera
//   depth of the point); points more than `truncation` behind the surface are occluded:
//   untouched. Where alpha < alpha_min the ray sees nothing: with CARVE the point is free space
//   (sdf = +truncation), else untouched. Colour is averaged where |sdf| < truncation.
//   The free-space vote (whatever CARVE says): +1 where the pixel is clearly background (rendered
//   alpha, or the image's own alpha, below carve_alpha: well under alpha_min, so a point just
//   inside a silhouette, on a pixel the surface half covers, casts no vote) or where the surface
//   the view sees lies more than carve_depth (world units) beyond the point.
// tsdf_carve: one thread per point of a slab; a point with at least CARVE_VOTES free votes and a
//   negative value becomes +1 (outside). Positive values stay as they are, so the true surface,
//   whose outside neighbours are positive anyway, does not move; a spurious surface (a floater's
//   inside, a fringe behind a silhouette) loses its negative points and with them its crossings.
// tsdf_visibility (after marching cubes, one view at a time): one thread per mesh vertex; +1 to the
//   vertex's count where this view sees it clear of any occluder: in front of the near plane,
//   inside the image, and at most view.seen_depth (world units) plus one pixel footprint at its
//   depth behind the NEAREST surface the 3x3 pixels around its projection show (pixels with alpha
//   >= alpha_min). The window makes the test conservative: a vertex a pixel beside an occluding
//   edge, on its far side, is not seen by that view (depth at a discontinuity is the least
//   trustworthy); the footprint keeps a surface slanted up to about 45 degrees seen. A vertex no
//   pixel of the window shows a surface for is not seen. Surfaces no view sees that way (a lid the
//   splats painted over a hole, only ever glimpsed past its rim; the far side of a rim the
//   truncation band thickened) are what the host's clean-up drops (docs/mesh.md "Unseen surfaces").
// Workgroup: WG threads, 1D over the slab's points or the vertices (2D dispatch past 65535 workgroups).
// Override constants: WG, DEPTH_MODE, DEPTH_STRIDE (f32 values per pixel of `depth`), CARVE,
//   CARVE_VOTES (tsdf_carve).
// Invariant: a point is written by one thread per dispatch, and dispatches of one submit run in
//   order, so the running means and the votes need no atomics and are deterministic.

override WG: u32 = 64u;
override DEPTH_MODE: u32 = 0u;
override CARVE: bool = true;
override DEPTH_STRIDE: u32 = 1u;
override CARVE_VOTES: u32 = 2u;

struct TsdfView {
  r0: vec4f, // world -> camera, rows of [R | t]
  r1: vec4f,
  r2: vec4f,
  focal: vec2f,
  principal: vec2f,
  size: vec2u, // width, height
  near: f32,
  alpha_min: f32,
  carve_alpha: f32, // free-space vote below this alpha (rendered or the image's)
  carve_depth: f32, // free-space vote where the seen surface lies this far (world units) beyond the point
  has_alpha: u32, // 1: view_alpha holds this view's image alpha
  seen_depth: f32, // tsdf_visibility: a vertex this far (world units) behind the seen surface still counts as seen
}

#include "tsdf-common"
#include "dispatch"

@group(0) @binding(0) var<uniform> view: TsdfView;
@group(0) @binding(1) var<uniform> grid: TsdfGrid;
@group(0) @binding(2) var<uniform> slab: Slab;
@group(0) @binding(3) var<storage, read> depth: array<f32>;
@group(0) @binding(4) var<storage, read> image: array<vec4f>;
@group(0) @binding(5) var<storage, read_write> values: array<f32>;
@group(0) @binding(6) var<storage, read_write> weights: array<f32>;
@group(0) @binding(7) var<storage, read_write> colors: array<u32>;
@group(0) @binding(8) var<storage, read_write> free_votes: array<u32>;
@group(0) @binding(9) var<storage, read> view_alpha: array<f32>;

/** A world point in the view: its camera coordinates, its pixel coordinates, whether it is in front of the near plane and inside the image. */
struct ViewPoint {
  pc: vec3f,
  uv: vec2f,
  inside: bool,
}

fn view_point(p: vec3f) -> ViewPoint {
  var out: ViewPoint;
  out.pc = vec3f(dot(view.r0.xyz, p) + view.r0.w, dot(view.r1.xyz, p) + view.r1.w, dot(view.r2.xyz, p) + view.r2.w);
  out.inside = false;
  if (out.pc.z <= view.near) {
    return out;
  }
  out.uv = vec2f(view.focal.x * out.pc.x / out.pc.z + view.principal.x, view.focal.y * out.pc.y / out.pc.z + view.principal.y);
  out.inside = out.uv.x >= 0.0 && out.uv.y >= 0.0 && out.uv.x < f32(view.size.x) && out.uv.y < f32(view.size.y);
  return out;
}

/** The surface depth a pixel shows (meaningful where its alpha >= alpha_min). */
fn view_surface_depth(pixel: u32, alpha: f32) -> f32 {
  let d = depth[pixel * DEPTH_STRIDE];
  if (DEPTH_MODE == 0u) {
    return d / alpha;
  }
  return d;
}

@compute @workgroup_size(WG)
fn tsdf_integrate(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let local = thread_id(gid, nwg);
  let nx = grid.dims.x;
  let ny = grid.dims.y;
  if (local >= nx * ny * slab.layers) {
    return;
  }
  let i = local % nx;
  let j = (local / nx) % ny;
  let k = slab.z0 + local / (nx * ny);
  let index = i + nx * (j + ny * k);
  let seen = view_point(grid.origin + vec3f(f32(i), f32(j), f32(k)) * grid.voxel);
  if (!seen.inside) {
    return;
  }
  let pc = seen.pc;
  let pixel = u32(seen.uv.y) * view.size.x + u32(seen.uv.x);
  let rgba = image[pixel];
  let seen_surface = rgba.w >= view.alpha_min;
  var d = 0.0;
  if (seen_surface) {
    d = view_surface_depth(pixel, rgba.w);
  }
  let background = rgba.w < view.carve_alpha || (view.has_alpha == 1u && view_alpha[pixel] < view.carve_alpha);
  if (background || (seen_surface && d - pc.z > view.carve_depth)) {
    free_votes[index] = free_votes[index] + 1u;
  }
  var sdf: f32;
  var observed = false;
  if (seen_surface) {
    sdf = d - pc.z;
    if (sdf < -grid.truncation) {
      return;
    }
    observed = true;
  } else {
    if (!CARVE) {
      return;
    }
    sdf = grid.truncation;
  }
  let tsdf = min(1.0, sdf / grid.truncation);
  let w = weights[index];
  values[index] = (values[index] * w + tsdf) / (w + 1.0);
  weights[index] = w + 1.0;
  if (observed && tsdf < 1.0) {
    let old = colors[index];
    let n = f32(old >> 24u);
    let c = clamp(rgba.xyz / rgba.w, vec3f(0.0), vec3f(1.0)) * 255.0;
    let prev = vec3f(f32(old & 255u), f32((old >> 8u) & 255u), f32((old >> 16u) & 255u));
    let mean = round((prev * n + c) / (n + 1.0));
    let count = min(n + 1.0, 255.0);
    colors[index] = u32(mean.x) | (u32(mean.y) << 8u) | (u32(mean.z) << 16u) | (u32(count) << 24u);
  }
}

// Separate bindings (group 0 of its own pipeline): the carve pass reads no view.
@group(0) @binding(0) var<uniform> carve_grid: TsdfGrid;
@group(0) @binding(1) var<uniform> carve_slab: Slab;
@group(0) @binding(2) var<storage, read_write> carve_values: array<f32>;
@group(0) @binding(3) var<storage, read> carve_free: array<u32>;

@compute @workgroup_size(WG)
fn tsdf_carve(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let local = thread_id(gid, nwg);
  let per_layer = carve_grid.dims.x * carve_grid.dims.y;
  if (local >= per_layer * carve_slab.layers) {
    return;
  }
  let index = carve_slab.z0 * per_layer + local;
  if (carve_free[index] >= CARVE_VOTES && carve_values[index] < 0.0) {
    carve_values[index] = 1.0;
  }
}

// Separate bindings (its own pipeline): the view's camera and buffers, the mesh's vertices.
@group(0) @binding(10) var<storage, read> vis_positions: array<f32>; // xyz per vertex
@group(0) @binding(11) var<storage, read_write> vis_seen: array<u32>;

@compute @workgroup_size(WG)
fn tsdf_visibility(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let vertex = thread_id(gid, nwg);
  if (vertex >= arrayLength(&vis_seen)) {
    return;
  }
  let seen = view_point(vec3f(vis_positions[3u * vertex], vis_positions[3u * vertex + 1u], vis_positions[3u * vertex + 2u]));
  if (!seen.inside) {
    return;
  }
  let pc = seen.pc;
  let x = i32(seen.uv.x);
  let y = i32(seen.uv.y);
  var nearest = 0.0;
  var any = false;
  for (var dy = -1; dy <= 1; dy++) {
    for (var dx = -1; dx <= 1; dx++) {
      let qx = x + dx;
      let qy = y + dy;
      if (qx < 0 || qy < 0 || qx >= i32(view.size.x) || qy >= i32(view.size.y)) {
        continue;
      }
      let pixel = u32(qy) * view.size.x + u32(qx);
      let alpha = image[pixel].w;
      if (alpha < view.alpha_min) {
        continue;
      }
      let d = view_surface_depth(pixel, alpha);
      if (!any || d < nearest) {
        nearest = d;
      }
      any = true;
    }
  }
  // a neighbour one pixel away on a 45-degree slope lies one footprint nearer: no occluder
  let footprint = pc.z / min(view.focal.x, view.focal.y);
  if (any && pc.z <= nearest + view.seen_depth + footprint) {
    vis_seen[vertex] = vis_seen[vertex] + 1u;
  }
}
