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
//   grid_grad_partials:  per GT x GT tile of one xy cell's pixels (each pixel read once) and per
//                        l: for each of the cell's 4 corner nodes and matrix row r, the sum over
//                        the tile's pixels of weight * v_out_r * [rgb, 1]_k, reduced in a fixed
//                        order in workgroup memory (no float atomics: deterministic); `partials`
//                        is vec4 (((tile * 4 + corner) * GRID_L + l) * 3 + r), tile = the
//                        workgroup's index in the dispatch (row-major), corner = a + 2 b for
//                        node (cx + a, cy + b)
//   grid_tv:             grad = d TV / d grid for every image's grid (written, not added): the
//                        total variation of gsplat's total_variation_loss, sum over the three
//                        axes of the mean squared difference of neighbours, / images, x weight
//                        and `tile_layers[tile]` the layers it wrote (bit l; the others are 0)
//   grid_grad_reduce:    grad of the current image's grid += the sum of its tile partials: the
//                        up to 4 cells a node is a corner of, their tiles in a fixed order
//                        (runs after grid_tv, which zeroes the other images' terms)
//   grid_gauge:          after each Adam step, per grid float: every image's value moved by
//                        (identity - the mean over images), so the images' mean colour model is
//                        the identity (a render with no model is the capture's mean appearance)
// Workgroups: apply_* 16x16 pixels; grid_grad_partials GRAD_WG = 64 threads per tile, a
//   (cells_x * tiles_x) x (cells_y * tiles_y) dispatch, cells = max(nodes, 2) - 1 per axis;
//   grid_grad_reduce 96 threads per (node, l); grid_tv and grid_gauge WG threads, one value
//   each (2D dispatch over a long range).
// Override constants: GRID_X, GRID_Y, GRID_L (GRID_L <= 32: the tiles' layer mask is a u32),
//   WG.
// Both capability variants compile this one body: the reductions are fixed-order sums in workgroup
//   memory, no subgroup operations (the gradient sums stay in a fixed order on every device).
// Invariant: a pixel's nonzero slice weights are on the corners of the cell axis_of's i0 names
//   (every pixel on an axis of one node); the host sizes tiles_x so tiles_x * GT pixels cover
//   every cell's cell_span (and tiles_y likewise).

#include "dispatch"

override GRID_X: u32 = 16u;
override GRID_Y: u32 = 16u;
override GRID_L: u32 = 8u;
override WG: u32 = 128u;
const TS: u32 = 16u;
const LUMA: vec3f = vec3f(0.299, 0.587, 0.114);

struct AppearanceParams {
  width: u32,
  height: u32,
  image_slot: u32, // which image's grid the current frame uses
  images: u32, // grids in `grid`
  tiles_x: u32, // grid_grad_partials tiles per cell along x (GT pixels each)
  tiles_y: u32,
  tv_x: f32, // 2 x weight / (images x pairs along x x 12); 0 where GRID_X = 1
  tv_y: f32,
  tv_l: f32,
  _pad0: u32,
  _pad1: u32,
  _pad2: u32,
}

@group(0) @binding(0) var<uniform> ap: AppearanceParams;
@group(0) @binding(1) var<storage, read> grid: array<f32>;
@group(0) @binding(2) var<storage, read> image: array<vec4f>;
@group(0) @binding(3) var<storage, read_write> out_image: array<vec4f>;
@group(0) @binding(4) var<storage, read> v_out: array<vec4f>;
@group(0) @binding(5) var<storage, read_write> v_image: array<vec4f>;
@group(0) @binding(6) var<storage, read_write> partials: array<vec4f>;
@group(0) @binding(7) var<storage, read_write> grad: array<f32>;
@group(0) @binding(8) var<storage, read> partials_in: array<vec4f>;
@group(0) @binding(9) var<storage, read_write> grid_rw: array<f32>;
@group(0) @binding(10) var<storage, read_write> tile_layers: array<u32>;
@group(0) @binding(11) var<storage, read> tile_layers_in: array<u32>;

// One axis of the slice: the lower node, the fraction towards the next, both nodes' indices
// (equal on an axis of one node, whose fraction is 0).
struct Axis {
  i0: u32,
  i1: u32,
  f: f32,
}

fn axis_of(coordinate: f32, nodes: u32) -> Axis {
  if (nodes == 1u) {
    return Axis(0u, 0u, 0.0);
  }
  let c = clamp(coordinate, 0.0, f32(nodes - 1u));
  let i0 = min(u32(floor(c)), nodes - 2u);
  return Axis(i0, i0 + 1u, c - f32(i0));
}

fn pixel_u(px: u32) -> f32 {
  return (f32(px) + 0.5) / f32(ap.width) * f32(GRID_X - 1u);
}

fn pixel_v(py: u32) -> f32 {
  return (f32(py) + 0.5) / f32(ap.height) * f32(GRID_Y - 1u);
}

// Whether the luminance lies inside [0, 1], where the slice coordinate follows it.
fn lum_inside(rgb: vec3f) -> bool {
  let lum = dot(rgb, LUMA);
  return lum > 0.0 && lum < 1.0;
}

fn lum_z(rgb: vec3f) -> f32 {
  return clamp(dot(rgb, LUMA), 0.0, 1.0) * f32(GRID_L - 1u);
}

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

// The pixel range [first, last] of cell c (between nodes c and c + 1) on an axis of `nodes` nodes
// over `pixels`: |(p + 0.5) / per_cell| in [c, c + 1), widened by a pixel (a pixel counts in the
// cell axis_of's i0 names, so a pixel of the widened range outside the cell is skipped); the last
// cell runs to the last pixel (the clamp), an axis of one node is one cell of every pixel.
fn cell_span(c: u32, nodes: u32, pixels: u32) -> vec2u {
  if (nodes == 1u) {
    return vec2u(0u, pixels - 1u);
  }
  let per_cell = f32(pixels) / f32(nodes - 1u);
  let first = max(0.0, floor(f32(c) * per_cell - 0.5) - 1.0);
  let last = select(min(f32(pixels - 1u), ceil(f32(c + 1u) * per_cell - 0.5) + 1.0), f32(pixels - 1u), c + 2u == nodes);
  return vec2u(u32(first), u32(last));
}

// The weight of node i in an axis' slice (0 when the node is not one of the two).
fn node_weight(a: Axis, i: u32) -> f32 {
  var w = 0.0;
  if (a.i0 == i) {
    w += 1.0 - a.f;
  }
  if (a.i1 == i) {
    w += a.f;
  }
  return w;
}

// grid_grad_partials: a workgroup is one GT x GT tile of one xy cell's pixels (every pixel is in
// exactly one tile, and a tile's pixels share the cell's 2 x 2 corner nodes); a thread holds one
// column's TILE_ROWS pixels in registers and, per luminance layer some pixel reached, sums their
// terms for the 4 corners x 3 matrix rows (12 vec4: no per-layer accumulator arrays). The 12
// sums are reduced over the threads in a fixed order: 4 parts of 16 threads each (thread order),
// then the parts in order.
const GT: u32 = 16u;
const GRAD_WG: u32 = 64u;
const TILE_ROWS: u32 = GT * GT / GRAD_WG;
const SLOTS: u32 = 12u; // 4 corners (x + 2 y) x 3 rows
const PARTS: u32 = 4u;

var<workgroup> s_acc: array<vec4f, SLOTS * GRAD_WG>;
var<workgroup> s_part: array<vec4f, SLOTS * PARTS>;
// Luminance layers some pixel of the tile reached (bit l): the others' sums are 0, written as 0
// without a reduction (a 16 x 16 tile usually spans 2 or 3 of the 8 layers).
var<workgroup> s_layers: atomic<u32>;
var<workgroup> s_layers_seen: u32;

// The float index of partial (tile, corner, l, r) (vec4 units).
fn partial_index(tile: u32, corner: u32, l: u32, r: u32) -> u32 {
  return ((tile * 4u + corner) * GRID_L + l) * 3u + r;
}

@compute @workgroup_size(GRAD_WG)
fn grid_grad_partials(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) li: u32) {
  let cx = wid.x / ap.tiles_x;
  let cy = wid.y / ap.tiles_y;
  let tile = wid.y * nwg.x + wid.x;
  let xs = cell_span(cx, GRID_X, ap.width);
  let ys = cell_span(cy, GRID_Y, ap.height);
  let px = xs.x + (wid.x % ap.tiles_x) * GT + li % GT;
  let ax = axis_of(pixel_u(px), GRID_X);
  let wx = vec2f(node_weight(ax, cx), node_weight(ax, cx + 1u));
  if (li == 0u) {
    atomicStore(&s_layers, 0u);
  }
  workgroupBarrier();
  // the column's pixels: dL/d out, colour, luminance layers (i0 = GRID_L: not in the cell), y weights
  var g: array<vec3f, TILE_ROWS>;
  var rgb: array<vec3f, TILE_ROWS>;
  var z0: array<u32, TILE_ROWS>;
  var zf: array<f32, TILE_ROWS>;
  var wy: array<vec2f, TILE_ROWS>;
  var layers = 0u;
  for (var j = 0u; j < TILE_ROWS; j++) {
    let py = ys.x + (wid.y % ap.tiles_y) * GT + li / GT + (GRAD_WG / GT) * j;
    let ay = axis_of(pixel_v(py), GRID_Y);
    z0[j] = GRID_L;
    if (px <= xs.y && px < ap.width && ax.i0 == cx && py <= ys.y && py < ap.height && ay.i0 == cy) {
      let q = py * ap.width + px;
      let pixel = image[q];
      g[j] = v_out[q].rgb;
      rgb[j] = pixel.rgb;
      let az = axis_of(lum_z(pixel.rgb), GRID_L);
      z0[j] = az.i0;
      zf[j] = az.f;
      wy[j] = vec2f(node_weight(ay, cy), node_weight(ay, cy + 1u));
      layers |= (1u << az.i0) | (1u << az.i1);
    }
  }
  atomicOr(&s_layers, layers);
  workgroupBarrier();
  if (li == 0u) {
    s_layers_seen = atomicLoad(&s_layers);
  }
  let seen = workgroupUniformLoad(&s_layers_seen);
  if (li == 0u) {
    tile_layers[tile] = seen;
  }
  for (var l = 0u; l < GRID_L; l++) {
    if ((seen & (1u << l)) == 0u) {
      continue; // not written: the reduce reads tile_layers
    }
    var acc: array<vec4f, SLOTS>;
    for (var i = 0u; i < SLOTS; i++) {
      acc[i] = vec4f(0.0);
    }
    for (var j = 0u; j < TILE_ROWS; j++) {
      let i0 = z0[j];
      let i1 = select(i0 + 1u, i0, GRID_L == 1u);
      if (i0 != l && i1 != l) {
        continue;
      }
      let x = vec4f(rgb[j], 1.0);
      // constant indices into acc (loops over the corners and rows, not acc[runtime]): an array
      // indexed by a runtime value lives in local memory on GPUs
      for (var corner = 0u; corner < 4u; corner++) {
        // the terms of the former per-node pass, float for float: weight x (v_out_r [rgb, 1])
        let w_xy = wx[corner % 2u] * wy[j][corner / 2u];
        let w = select(0.0, w_xy * (1.0 - zf[j]), i0 == l) + select(0.0, w_xy * zf[j], i1 == l);
        if (w != 0.0) {
          for (var r = 0u; r < 3u; r++) {
            acc[3u * corner + r] += w * (g[j][r] * x);
          }
        }
      }
    }
    for (var i = 0u; i < SLOTS; i++) {
      s_acc[SLOTS * li + i] = acc[i];
    }
    workgroupBarrier();
    if (li < SLOTS * PARTS) {
      let slot = li % SLOTS;
      let part = li / SLOTS;
      var sum = vec4f(0.0);
      for (var t = part * (GRAD_WG / PARTS); t < (part + 1u) * (GRAD_WG / PARTS); t++) {
        sum += s_acc[SLOTS * t + slot];
      }
      s_part[li] = sum;
    }
    workgroupBarrier();
    if (li < SLOTS) {
      var sum = s_part[li];
      for (var part = 1u; part < PARTS; part++) {
        sum += s_part[SLOTS * part + li];
      }
      partials[partial_index(tile, li / 3u, l, li % 3u)] = sum;
    }
  }
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

// grid_grad_reduce: a workgroup per (node, l), REDUCE_PARTS x 3 rows threads; part p sums the
// node's tiles k = p, p + REDUCE_PARTS, ... (k: the tiles of the up to 4 cells the node is a
// corner of, the cells in (b, a) order, each cell's tiles in dispatch order), then one thread
// per row sums the parts in order.
const REDUCE_PARTS: u32 = 32u;
var<workgroup> s_sums: array<vec4f, 3u * REDUCE_PARTS>;

@compute @workgroup_size(3u * REDUCE_PARTS)
fn grid_grad_reduce(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) li: u32) {
  let node = wid.x / GRID_L;
  let l = wid.x % GRID_L;
  let r = li % 3u;
  let part = li / 3u;
  let gx = node % GRID_X;
  let gy = node / GRID_X;
  let cells_x = max(GRID_X, 2u) - 1u;
  let cells_y = max(GRID_Y, 2u) - 1u;
  let row_tiles = cells_x * ap.tiles_x; // tiles in a row of grid_grad_partials' dispatch
  let per_cell = ap.tiles_x * ap.tiles_y;
  var sum = vec4f(0.0);
  var base = 0u; // k of the cell's first tile
  for (var b = 0u; b < 2u; b++) {
    for (var a = 0u; a < 2u; a++) {
      // the node is corner (a, b) of cell (gx - a, gy - b)
      if (gx < a || gy < b || gx - a >= cells_x || gy - b >= cells_y) {
        continue;
      }
      let cx = gx - a;
      let cy = gy - b;
      for (var i = (part + REDUCE_PARTS - base % REDUCE_PARTS) % REDUCE_PARTS; i < per_cell; i += REDUCE_PARTS) {
        let tile = (cy * ap.tiles_y + i / ap.tiles_x) * row_tiles + cx * ap.tiles_x + i % ap.tiles_x;
        if ((tile_layers_in[tile] & (1u << l)) != 0u) {
          sum += partials_in[partial_index(tile, a + 2u * b, l, r)];
        }
      }
      base += per_cell;
    }
  }
  s_sums[li] = sum;
  workgroupBarrier();
  if (li < 3u) {
    var total = s_sums[li];
    for (var p = 1u; p < REDUCE_PARTS; p++) {
      total += s_sums[3u * p + li];
    }
    let o = ((((ap.image_slot * GRID_L + l) * GRID_Y + gy) * GRID_X + gx) * 12u) + 4u * li;
    grad[o] += total.x;
    grad[o + 1u] += total.y;
    grad[o + 2u] += total.z;
    grad[o + 3u] += total.w;
  }
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
