// geometry: the 2DGS-style geometry regularizers' per-pixel gradients, for training with
// --geometry (the rasterizer then renders median depth, normals and distortion).
//   depth distortion:    L_d = lambda_d * mean over pixels of the distortion output
//                        -> dL/d distortion = lambda_d / P at every pixel
//   normal consistency:  L_n = lambda_n * mean over pixels of (1 - N . S), N the rendered normal
//                        (sum of w n), S the unit normal of the surface the depth map describes
//                        (median depth where a median exists, else depth / alpha), from central
//                        differences of the back-projected depth, facing the camera, times alpha;
//                        S is held fixed (stop-gradient) -> dL/dN = -lambda_n S / P
// in:  normals (vec4 per pixel), geometry (median, distortion, median slot, depth), image
//      (alpha in .w); out: v_aux (dL/d depth, dL/d median, dL/d distortion, 0), v_normals,
//      loss_sums (per workgroup: sum distortion, sum (1 - N . S))
// Workgroup: 16x16 pixels.

struct GeometryParams {
  width: u32,
  height: u32,
  tiles_x: u32,
  _pad: u32,
  fx: f32,
  fy: f32,
  cx: f32,
  cy: f32,
  lambda_distortion: f32,
  lambda_normal: f32,
  _pad1: f32,
  _pad2: f32,
}

@group(0) @binding(0) var<uniform> gp: GeometryParams;
@group(0) @binding(1) var<storage, read> normals: array<vec4f>;
@group(0) @binding(2) var<storage, read> geometry: array<vec4f>;
@group(0) @binding(3) var<storage, read> image: array<vec4f>;
@group(0) @binding(4) var<storage, read_write> v_aux: array<vec4f>;
@group(0) @binding(5) var<storage, read_write> v_normals: array<vec4f>;
@group(0) @binding(6) var<storage, read_write> loss_sums: array<vec2f>;

var<workgroup> sums: array<vec2f, 256>;

// (x, y) inside the image
fn surface_depth(x: i32, y: i32) -> f32 {
  let i = u32(y) * gp.width + u32(x);
  let g = geometry[i];
  if (g.z >= 0.0) {
    return g.x; // median depth
  }
  let a = image[i].w;
  return select(0.0, g.w / a, a > 1e-4);
}

// The depth map's point at pixel (x, y), clamped to the image (one-sided differences at edges).
fn back_project(x_in: i32, y_in: i32) -> vec3f {
  let x = clamp(x_in, 0, i32(gp.width) - 1);
  let y = clamp(y_in, 0, i32(gp.height) - 1);
  let d = surface_depth(x, y);
  return d * vec3f((f32(x) + 0.5 - gp.cx) / gp.fx, (f32(y) + 0.5 - gp.cy) / gp.fy, 1.0);
}

// Unit normal of the depth map's surface at (x, y), facing the camera; zero where undefined.
fn surface_normal(x: i32, y: i32) -> vec3f {
  let dx = back_project(x + 1, y) - back_project(x - 1, y);
  let dy = back_project(x, y + 1) - back_project(x, y - 1);
  let n = cross(dx, dy);
  let len = length(n);
  if (!(len > 1e-12)) {
    return vec3f(0.0);
  }
  let u = n / len;
  let p = back_project(x, y);
  return select(u, -u, dot(u, p) > 0.0);
}

@compute @workgroup_size(16, 16, 1)
fn geometry_loss(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_id) lid: vec3u, @builtin(local_invocation_index) li: u32) {
  let x = wid.x * 16u + lid.x;
  let y = wid.y * 16u + lid.y;
  var s = vec2f(0.0);
  if (x < gp.width && y < gp.height) {
    let i = y * gp.width + x;
    let pixels = f32(gp.width * gp.height);
    let alpha = image[i].w;
    let surface = surface_normal(i32(x), i32(y)) * alpha;
    let n = normals[i].xyz;
    v_normals[i] = vec4f(-gp.lambda_normal * surface / pixels, 0.0);
    v_aux[i] = vec4f(0.0, 0.0, gp.lambda_distortion / pixels, 0.0);
    s = vec2f(geometry[i].y, 1.0 - dot(n, surface));
  }
  sums[li] = s;
  workgroupBarrier();
  for (var stride = 128u; stride > 0u; stride >>= 1u) {
    if (li < stride) {
      sums[li] += sums[li + stride];
    }
    workgroupBarrier();
  }
  if (li == 0u) {
    loss_sums[wid.y * gp.tiles_x + wid.x] = sums[0];
  }
}
