// appearance-grad: the photometric gradient of the colour model's grids (kernels/appearance.wgsl
// has the model, the slice and the grid layout), in two passes after apply_backward:
//   grid_grad_partials:  per GT x GT tile of one xy cell's pixels (each pixel read once) and per
//                        l the tile reached: for each of the cell's 4 corner nodes and matrix row
//                        r, the sum over the tile's pixels of weight * v_out_r * [rgb, 1]_k,
//                        reduced in a fixed order in workgroup memory (no float atomics:
//                        deterministic). `partials` is vec4 (((tile * 4 + corner) * GRID_L + l)
//                        * 3 + r), tile = the workgroup's index in the dispatch (row-major),
//                        corner = a + 2 b for node (cx + a, cy + b); `tile_layers[tile]` the
//                        layers it wrote (bit l; the others are 0 and not written)
//   grid_grad_reduce:    grad of the current image's grid += the sum of its tile partials: the
//                        up to 4 cells a node is a corner of, their tiles in a fixed order (runs
//                        after grid_tv, which writes grad)
// Workgroups: grid_grad_partials GRAD_WG = 64 threads per tile, a (cells_x * tiles_x) x
//   (cells_y * tiles_y) dispatch, cells = max(nodes, 2) - 1 per axis; grid_grad_reduce
//   3 * REDUCE_PARTS = 96 threads per (node, l).
// Override constants: appearance-common's GRID_X, GRID_Y, GRID_L (GRID_L <= 32: the tiles'
//   layer mask is a u32).
// Both capability variants compile this one body: the reductions are fixed-order sums in workgroup
//   memory, no subgroup operations (the gradient sums stay in a fixed order on every device).
// Invariant: a pixel's nonzero slice weights are on the corners of the cell axis_of's i0 names
//   (every pixel on an axis of one node); the host sizes tiles_x so tiles_x * GT pixels cover
//   every cell's cell_span (and tiles_y likewise).

#include "appearance-common"

@group(0) @binding(2) var<storage, read> image: array<vec4f>;
@group(0) @binding(4) var<storage, read> v_out: array<vec4f>;
@group(0) @binding(6) var<storage, read_write> partials: array<vec4f>;
@group(0) @binding(7) var<storage, read_write> grad: array<f32>;
@group(0) @binding(8) var<storage, read> partials_in: array<vec4f>;
@group(0) @binding(10) var<storage, read_write> tile_layers: array<u32>;
@group(0) @binding(11) var<storage, read> tile_layers_in: array<u32>;

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
