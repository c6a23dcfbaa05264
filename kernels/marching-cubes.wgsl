// marching-cubes: the TSDF's zero level set as triangles, over a slab of cell layers at a time.
//
// Cell (i, j, k) spans grid points (i..i+1, j..j+1, k..k+1), i < nx - 1 etc. A slab holds cell
// layers [slab.z0, slab.z0 + slab.layers); local cell index c = i + (nx-1) (j + (ny-1) (k - z0)).
// mc_count: tri_count[c] = triangles of the cell's case (table, mc-tables.ts), 0 when any corner
//   has weight 0 (unobserved) or every corner is saturated (|value| >= SATURATED: a jump between
//   truncated values, not a surface).
// mc_emit: after an exclusive scan of tri_count into tri_offset, each cell writes its triangles
//   at tri_offset[c] ..: three vertices each, vertex v of triangle t at 3 t + v:
//   out_vertices (x, y, z as f32 bits, rgba8 colour) and out_keys (the grid edge the vertex lies
//   on: 3 * (index of the edge's low grid point) + axis), so shared vertices can be welded.
// Inputs:  values, weights, colors (kernels/tsdf.wgsl's volume), table (256 x 16 edge indices,
//          -1 terminated, then 256 triangle counts), tri_offset (mc_emit).
// Workgroup: WG threads, 1D over the slab's cells (2D dispatch past 65535 workgroups).
// Override constants: WG.
// Invariant: an edge's vertex is computed from its low point to its high point in every cell
//   that uses it, so the cells sharing an edge produce bit-identical positions and colours.

override WG: u32 = 64u;
const SATURATED: f32 = 0.999;

#include "tsdf-common"
#include "dispatch"

@group(0) @binding(1) var<uniform> grid: TsdfGrid;
@group(0) @binding(2) var<uniform> slab: Slab;
@group(0) @binding(3) var<storage, read> values: array<f32>;
@group(0) @binding(4) var<storage, read> weights: array<f32>;
@group(0) @binding(5) var<storage, read> colors: array<u32>;
@group(0) @binding(6) var<storage, read> table: array<i32>;
@group(0) @binding(7) var<storage, read_write> tri_count: array<u32>;
@group(0) @binding(8) var<storage, read> tri_offset: array<u32>;
@group(0) @binding(9) var<storage, read_write> out_vertices: array<vec4u>;
@group(0) @binding(10) var<storage, read_write> out_keys: array<u32>;

struct Cell {
  valid: bool,
  base: vec3u, // grid point of corner 0
  case_index: u32,
}

fn point_index(p: vec3u) -> u32 {
  return p.x + grid.dims.x * (p.y + grid.dims.y * p.z);
}

fn corner_offset(c: u32) -> vec3u {
  return vec3u(c & 1u, (c >> 1u) & 1u, (c >> 2u) & 1u);
}

fn cell_of(local: u32) -> Cell {
  var cell: Cell;
  let cx = grid.dims.x - 1u;
  let cy = grid.dims.y - 1u;
  cell.valid = false;
  cell.case_index = 0u;
  if (local >= cx * cy * slab.layers) {
    return cell;
  }
  cell.base = vec3u(local % cx, (local / cx) % cy, slab.z0 + local / (cx * cy));
  var saturated = true;
  for (var c = 0u; c < 8u; c++) {
    let index = point_index(cell.base + corner_offset(c));
    if (weights[index] <= 0.0) {
      return cell;
    }
    let value = values[index];
    saturated = saturated && abs(value) >= SATURATED;
    if (value < 0.0) {
      cell.case_index |= 1u << c;
    }
  }
  cell.valid = !saturated;
  return cell;
}

@compute @workgroup_size(WG)
fn mc_count(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let local = thread_id(gid, nwg);
  if (local >= (grid.dims.x - 1u) * (grid.dims.y - 1u) * slab.layers) {
    return;
  }
  let cell = cell_of(local);
  var n = 0u;
  if (cell.valid) {
    n = u32(table[4096u + cell.case_index]);
  }
  tri_count[local] = n;
}

// Low corner, high corner and axis of edge e (mc-tables.ts's numbering).
fn edge_corners(e: u32) -> vec3u {
  let axis = e / 4u;
  let rest = e % 4u;
  var low = 0u;
  if (axis == 0u) {
    low = ((rest & 1u) << 1u) | ((rest >> 1u) << 2u);
  } else if (axis == 1u) {
    low = (rest & 1u) | ((rest >> 1u) << 2u);
  } else {
    low = (rest & 1u) | ((rest >> 1u) << 1u);
  }
  return vec3u(low, low | (1u << axis), axis);
}

fn unpack_rgb(c: u32) -> vec3f {
  return vec3f(f32(c & 255u), f32((c >> 8u) & 255u), f32((c >> 16u) & 255u));
}

fn edge_vertex(base: vec3u, e: u32) -> vec4u {
  let ec = edge_corners(e);
  let pa = base + corner_offset(ec.x);
  let ia = point_index(pa);
  let ib = point_index(base + corner_offset(ec.y));
  let va = values[ia];
  let vb = values[ib];
  let t = va / (va - vb);
  var p = vec3f(pa);
  p[ec.z] += t;
  let position = grid.origin + p * grid.voxel;
  let ca = colors[ia];
  let cb = colors[ib];
  var rgb: vec3f;
  if ((ca >> 24u) == 0u) {
    rgb = unpack_rgb(cb);
  } else if ((cb >> 24u) == 0u) {
    rgb = unpack_rgb(ca);
  } else {
    rgb = round(mix(unpack_rgb(ca), unpack_rgb(cb), t));
  }
  let packed = u32(rgb.x) | (u32(rgb.y) << 8u) | (u32(rgb.z) << 16u) | (255u << 24u);
  return vec4u(bitcast<u32>(position.x), bitcast<u32>(position.y), bitcast<u32>(position.z), packed);
}

@compute @workgroup_size(WG)
fn mc_emit(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let local = thread_id(gid, nwg);
  if (local >= (grid.dims.x - 1u) * (grid.dims.y - 1u) * slab.layers) {
    return;
  }
  let count = tri_count[local];
  if (count == 0u) {
    return;
  }
  let cell = cell_of(local);
  let first = tri_offset[local];
  for (var t = 0u; t < count; t++) {
    for (var v = 0u; v < 3u; v++) {
      let e = u32(table[cell.case_index * 16u + 3u * t + v]);
      let slot = 3u * (first + t) + v;
      out_vertices[slot] = edge_vertex(cell.base, e);
      let ec = edge_corners(e);
      out_keys[slot] = 3u * point_index(cell.base + corner_offset(ec.x)) + ec.z;
    }
  }
}
