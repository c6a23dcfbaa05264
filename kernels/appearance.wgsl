// appearance: a per-image colour model applied to the rendered image before the loss (exposure,
// white balance and tone curves differ between the photos of a capture; the splats should not
// learn them). Each training image owns a bilateral grid of 3x4 affine colour matrices over
// (x, y, luminance), GRID_X x GRID_Y x GRID_L nodes (gsplat's bilagrid: 16 x 16 x 8), sliced
// trilinearly at the pixel's position and the rendered pixel's luminance, and applied to the
// rendered colour: out = A[:, :3] rgb + A[:, 3]. A grid of 1 x 1 x 1 is one affine matrix per
// image ('affine'). Slicing as grid_sample(align_corners=True, padding_mode='border'):
//   u = (px + 0.5) / width * (GRID_X - 1), v likewise, z = clamp(lum, 0, 1) * (GRID_L - 1),
//   lum = 0.299 r + 0.587 g + 0.114 b of the rendered colour (no gradient through a clamped lum).
// Grid layout (`grid`, `grad`, Adam's flat group): float ((((image * GRID_L + l) * GRID_Y + y)
//   * GRID_X + x) * 12 + 4 r + k): row r of the matrix, column k (k = 3: the offset).
//   apply_forward:       out (vec4 per pixel: corrected rgb, alpha passed through) from image
//   apply_backward:      v_image = d out / d image^T v_out, through the matrix and through the
//                        luminance slice coordinate (v_image.a = v_out.a)
//   grid_tv:             grad = d TV / d grid for every image's grid (written, not added): the
//                        total variation of gsplat's total_variation_loss, sum over the three
//                        axes of the mean squared difference of neighbours, / images, x weight
//                        (the frame image's photometric term is added after it:
//                        kernels/appearance-grad.wgsl)
//   grid_gauge:          after each Adam step, per grid float: every image's value moved by
//                        (identity - the mean over images), so the images' mean colour model is
//                        the identity (a render with no model is the capture's mean appearance)
// Workgroups: apply_* 16x16 pixels; grid_tv and grid_gauge WG threads, one value each (2D
//   dispatch over a long range).
// Override constants (appearance-common): GRID_X, GRID_Y, GRID_L, WG.
// Both capability variants compile this one body (no subgroup operations).
// Invariant: the slice's weights are grid_sample's: those of a pixel sum to 1 over the 8 nodes
//   around it, so an identity grid leaves the image unchanged.

#include "appearance-common"
#include "dispatch"

const TS: u32 = 16u;

@group(0) @binding(1) var<storage, read> grid: array<f32>;
@group(0) @binding(2) var<storage, read> image: array<vec4f>;
@group(0) @binding(3) var<storage, read_write> out_image: array<vec4f>;
@group(0) @binding(4) var<storage, read> v_out: array<vec4f>;
@group(0) @binding(5) var<storage, read_write> v_image: array<vec4f>;
@group(0) @binding(7) var<storage, read_write> grad: array<f32>;
@group(0) @binding(9) var<storage, read_write> grid_rw: array<f32>;

// Row r of the matrix at node (x, y, l) of the current image's grid.
fn node_row(x: u32, y: u32, l: u32, r: u32) -> vec4f {
  let o = ((((ap.image_slot * GRID_L + l) * GRID_Y + y) * GRID_X + x) * 12u) + 4u * r;
  return vec4f(grid[o], grid[o + 1u], grid[o + 2u], grid[o + 3u]);
}

// Row r bilinearly interpolated in (x, y) on layer l.
fn layer_row(ax: Axis, ay: Axis, l: u32, r: u32) -> vec4f {
  let top = mix(node_row(ax.i0, ay.i0, l, r), node_row(ax.i1, ay.i0, l, r), ax.f);
  let bottom = mix(node_row(ax.i0, ay.i1, l, r), node_row(ax.i1, ay.i1, l, r), ax.f);
  return mix(top, bottom, ay.f);
}

// The sliced matrix of a pixel (rows), and the derivative of its rows along the l axis.
struct Sliced {
  rows: array<vec4f, 3>,
  d_rows_dz: array<vec4f, 3>,
}

fn slice_at(px: u32, py: u32, rgb: vec3f) -> Sliced {
  let ax = axis_of(pixel_u(px), GRID_X);
  let ay = axis_of(pixel_v(py), GRID_Y);
  let az = axis_of(lum_z(rgb), GRID_L);
  var s: Sliced;
  for (var r = 0u; r < 3u; r++) {
    let low = layer_row(ax, ay, az.i0, r);
    let high = layer_row(ax, ay, az.i1, r);
    s.rows[r] = mix(low, high, az.f);
    s.d_rows_dz[r] = high - low;
  }
  return s;
}

@compute @workgroup_size(TS, TS, 1)
fn apply_forward(@builtin(global_invocation_id) gid: vec3u) {
  if (gid.x >= ap.width || gid.y >= ap.height) {
    return;
  }
  let q = gid.y * ap.width + gid.x;
  let pixel = image[q];
  let s = slice_at(gid.x, gid.y, pixel.rgb);
  let x = vec4f(pixel.rgb, 1.0);
  out_image[q] = vec4f(dot(s.rows[0], x), dot(s.rows[1], x), dot(s.rows[2], x), pixel.a);
}

@compute @workgroup_size(TS, TS, 1)
fn apply_backward(@builtin(global_invocation_id) gid: vec3u) {
  if (gid.x >= ap.width || gid.y >= ap.height) {
    return;
  }
  let q = gid.y * ap.width + gid.x;
  let pixel = image[q];
  let g = v_out[q];
  let s = slice_at(gid.x, gid.y, pixel.rgb);
  let x = vec4f(pixel.rgb, 1.0);
  // through the matrix: A[:, :3]^T v_out
  var v = (g.r * s.rows[0] + g.g * s.rows[1] + g.b * s.rows[2]).xyz;
  // through the slice coordinate z = lum (GRID_L - 1): d out_r / d lum = (dA_r/dz . x) (GRID_L - 1)
  if (GRID_L > 1u && lum_inside(pixel.rgb)) {
    let d_lum = (g.r * dot(s.d_rows_dz[0], x) + g.g * dot(s.d_rows_dz[1], x) + g.b * dot(s.d_rows_dz[2], x)) * f32(GRID_L - 1u);
    v += d_lum * LUMA;
  }
  v_image[q] = vec4f(v, g.a);
}

@compute @workgroup_size(WG)
fn grid_tv(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = thread_id(gid, nwg);
  if (i >= ap.images * GRID_L * GRID_Y * GRID_X * 12u) {
    return;
  }
  let cell = i / 12u;
  let x = cell % GRID_X;
  let y = (cell / GRID_X) % GRID_Y;
  let l = (cell / (GRID_X * GRID_Y)) % GRID_L;
  let value = grid[i];
  var g = 0.0;
  // d/dx_i sum_j (x_{j+1} - x_j)^2 = 2 (x_i - x_{i-1}) - 2 (x_{i+1} - x_i), where they exist
  let sx = 12u;
  let sy = 12u * GRID_X;
  let sl = 12u * GRID_X * GRID_Y;
  if (x > 0u) { g += ap.tv_x * (value - grid[i - sx]); }
  if (x + 1u < GRID_X) { g -= ap.tv_x * (grid[i + sx] - value); }
  if (y > 0u) { g += ap.tv_y * (value - grid[i - sy]); }
  if (y + 1u < GRID_Y) { g -= ap.tv_y * (grid[i + sy] - value); }
  if (l > 0u) { g += ap.tv_l * (value - grid[i - sl]); }
  if (l + 1u < GRID_L) { g -= ap.tv_l * (grid[i + sl] - value); }
  grad[i] = g;
}

// The gauge of the colour models: a common change of every image's model is undone by the splats'
// colours (the loss sees only their product), so the models drift together and a render without
// a model (a held-out view, the viewer, an export) is off by the drift. Fixing their mean to the
// identity keeps what is common in the splats. The slice is linear in the grid, so the mean grid
// applied to a render is the mean of the images' corrected renders. One thread per grid float,
// images summed in slot order (deterministic).
@compute @workgroup_size(WG)
fn grid_gauge(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let per_image = GRID_L * GRID_Y * GRID_X * 12u;
  let i = thread_id(gid, nwg);
  if (i >= per_image) {
    return;
  }
  var sum = 0.0;
  for (var im = 0u; im < ap.images; im++) {
    sum += grid_rw[im * per_image + i];
  }
  let k = i % 12u;
  let identity = select(0.0, 1.0, k == 0u || k == 5u || k == 10u);
  let shift = identity - sum / f32(ap.images);
  for (var im = 0u; im < ap.images; im++) {
    grid_rw[im * per_image + i] += shift;
  }
}
