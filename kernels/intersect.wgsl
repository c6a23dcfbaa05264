// intersect: from projected splats to per-tile, depth-ordered lists of intersections.
//   compact_visible (per splat s < n):   visible splats -> depth_keys/depth_vals at their
//                                        compacted index (keys: float bits of camera z, which
//                                        order like the floats since z >= near > 0)
//   (radix sort of the depth keys, 32 bits: order[k] = splat of depth rank k, ties by index)
//   gather_sorted (per rank k < V):      projected attributes in depth order + tile counts
//   (scan of the counts: isect_offset[k]; the total is the intersection count M)
//   emit (per rank k < V):               one (tile, emit index) pair per tile the splat reaches,
//                                        in depth order, at isect_offset[k]...; isect_rank[e] = k
//                                        (splats over more than BIG tiles: a whole workgroup,
//                                        spread over the dispatch)
//   (stable radix sort of the tile keys on ceil(log2(tiles + 1)) bits: depth order kept per
//   tile; key `tiles` is a sentinel for unused slots and sorts last)
//   resolve (per sorted intersection i < M): sorted_rank[i] = isect_rank[emit index];
//                                        tile_ranges[tile] = [first, last + 1)
// Counts live in `counts` (written on the GPU by the scans): [0] splats n, [1] visible V (the
// scan's total, then clamped to the visible capacity by visible_args), [2] intersections M (scan
// total), [3] overflow flag, [4] min(M, capacity), [5] the visible splats the view had before
// the clamp. Dispatches cover the capacity; threads past the count exit. Writes past the
// intersection capacity are dropped and flagged so the host can grow the buffers and render
// again. The depth-ranked arrays hold `visible_capacity` splats (a training frame sizes them by
// the visible count, not the splat capacity): a view with more visible splats keeps the first
// `visible_capacity` by index, compact_visible clears the others' visible flag (so that every
// later pass, project_backward included, sees them as culled), and [5] > [1] tells the host.

#include "splat-common"
#include "wg-scan"
#include "dispatch"
#include "big-splats"

override WG: u32 = 256u;

struct IntersectParams {
  n_index: u32,
  visible_index: u32,
  isect_index: u32,
  overflow_index: u32,
  isect_capacity: u32,
  // records per gather_grads workgroup (gather.wgsl's WG x ITEMS): finish_count sizes its dispatch
  gather_chunk: u32,
  // splats the depth-ranked arrays hold (<= the splat capacity)
  visible_capacity: u32,
  // counts[] slot of the visible count before the clamp
  visible_needed_index: u32,
}

@group(0) @binding(0) var<uniform> cam: Camera;
@group(0) @binding(1) var<uniform> ip: IntersectParams;
@group(0) @binding(2) var<storage, read_write> counts: array<u32>;
// compact_visible
@group(0) @binding(4) var<storage, read_write> visible: array<u32>;
@group(0) @binding(5) var<storage, read> visible_offset: array<u32>;
@group(0) @binding(6) var<storage, read> color_depth: array<vec4f>; // arena projected.colorDepth
@group(0) @binding(7) var<storage, read_write> depth_keys: array<u32>;
@group(0) @binding(8) var<storage, read_write> depth_vals: array<u32>;
// gather_sorted
@group(0) @binding(9) var<storage, read> order: array<u32>;
@group(0) @binding(10) var<storage, read> splat_xy: array<vec2u>; // arena projected_xy_rect.xy
@group(0) @binding(11) var<storage, read> conic_opacity: array<vec4f>; // arena projected.conicOpacity
@group(0) @binding(12) var<storage, read> tile_count: array<u32>;
@group(0) @binding(13) var<storage, read> tile_rect: array<vec2u>; // arena projected_xy_rect.rect
@group(0) @binding(14) var<storage, read_write> sorted_xy: array<vec2u>; // arena ranked_xy_rect.xy
@group(0) @binding(15) var<storage, read_write> sorted_conic_opacity: array<vec4f>; // arena ranked.conicOpacity
@group(0) @binding(16) var<storage, read_write> sorted_color_depth: array<vec4f>; // arena ranked.colorDepth
@group(0) @binding(17) var<storage, read_write> sorted_count: array<u32>; // arena rank_counts.count
@group(0) @binding(18) var<storage, read_write> sorted_rect: array<vec2u>; // arena ranked_xy_rect.rect
// emit (reads sorted_* through these read-only views)
@group(0) @binding(19) var<storage, read> rank_xy: array<vec2u>; // arena ranked_xy_rect.xy
@group(0) @binding(20) var<storage, read> rank_conic_opacity: array<vec4f>; // arena ranked.conicOpacity
@group(0) @binding(21) var<storage, read> rank_rect: array<vec2u>; // arena ranked_xy_rect.rect
@group(0) @binding(22) var<storage, read> isect_offset: array<u32>;
@group(0) @binding(23) var<storage, read_write> isect_keys: array<u32>;
@group(0) @binding(24) var<storage, read_write> isect_vals: array<u32>;
@group(0) @binding(25) var<storage, read_write> isect_rank: array<u32>;
@group(0) @binding(26) var<storage, read> rank_count: array<u32>; // arena rank_counts.count
// resolve
@group(0) @binding(27) var<storage, read> sorted_keys: array<u32>;
@group(0) @binding(28) var<storage, read> sorted_vals: array<u32>;
@group(0) @binding(29) var<storage, read> rank_of_emit: array<u32>;
@group(0) @binding(30) var<storage, read_write> sorted_rank: array<u32>; // arena tile_order.rank
// the emit index of each tile-sorted intersection (= sorted_vals, beside the rank so the rasterizer binds both as one)
@group(0) @binding(39) var<storage, read_write> sorted_emit: array<u32>; // arena tile_order.emit
@group(0) @binding(31) var<storage, read_write> tile_ranges: array<vec2u>;
@group(0) @binding(32) var<storage, read_write> grads0: array<vec4f>; // arena isect_grads.g0
@group(0) @binding(35) var<storage, read_write> grads1: array<vec4f>; // arena isect_grads.g1
@group(0) @binding(36) var<storage, read_write> grads2: array<vec4f>; // arena isect_grads.g2
// normal: per splat (OUT_NORMALS)
@group(0) @binding(37) var<storage, read> normal: array<vec4f>; // arena projected.normal
@group(0) @binding(38) var<storage, read_write> sorted_normal: array<vec4f>; // arena ranked.normal

override OUT_NORMALS: bool = false;
@group(0) @binding(33) var<storage, read_write> rank_of_splat: array<u32>; // arena rank_counts.rankOfSplat
// Indirect dispatch arguments sized on the GPU: [0..2] one thread per visible splat, [4..6] one
// thread per intersection (WG threads a workgroup), [8..10] one gather_grads workgroup per
// gather_chunk intersections; 2D past 65535 workgroups.
@group(0) @binding(34) var<storage, read_write> dispatch_args: array<u32>;

fn write_args(at: u32, threads: u32) {
  write_groups(at, (threads + WG - 1u) / WG);
}

fn write_groups(at: u32, groups: u32) {
  let x = min(groups, 65535u);
  dispatch_args[at] = x;
  dispatch_args[at + 1u] = select(0u, (groups + x - 1u) / max(x, 1u), groups > 0u);
  dispatch_args[at + 2u] = 1u;
}

// After the scan of the visibility flags: the visible count clamped to the ranked arrays' size.
@compute @workgroup_size(1)
fn visible_args() {
  let v = counts[ip.visible_index];
  let kept = min(v, ip.visible_capacity);
  counts[ip.visible_needed_index] = v;
  counts[ip.visible_index] = kept;
  write_args(0u, kept);
}

// After the scan of the tile counts: the intersection count clamped to the capacity (what the
// tile sort and resolve process) and the overflow flag.
@compute @workgroup_size(1)
fn finish_count() {
  let m = counts[ip.isect_index];
  counts[ip.isect_index + 2u] = min(m, ip.isect_capacity);
  counts[ip.overflow_index] = select(0u, 1u, m > ip.isect_capacity);
  write_args(4u, min(m, ip.isect_capacity));
  write_groups(8u, (min(m, ip.isect_capacity) + ip.gather_chunk - 1u) / max(ip.gather_chunk, 1u));
}

@compute @workgroup_size(WG)
fn compact_visible(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let s = thread_id(gid, nwg);
  if (s >= counts[ip.n_index] || visible[s] == 0u) {
    return;
  }
  let at = visible_offset[s];
  if (at >= ip.visible_capacity) {
    visible[s] = 0u; // past the ranked arrays: culled for this frame (counts[visible_needed_index] says so)
    return;
  }
  depth_keys[at] = bitcast<u32>(color_depth[s].w);
  depth_vals[at] = s;
}

@compute @workgroup_size(WG)
fn gather_sorted(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let k = thread_id(gid, nwg);
  if (k >= counts[ip.visible_index]) {
    return;
  }
  let s = order[k];
  sorted_xy[k] = splat_xy[s];
  sorted_conic_opacity[k] = conic_opacity[s];
  sorted_color_depth[k] = color_depth[s];
  sorted_count[k] = tile_count[s];
  sorted_rect[k] = tile_rect[s];
  rank_of_splat[s] = k;
  if (OUT_NORMALS) {
    sorted_normal[k] = normal[s];
  }
}

// Splats whose tile rectangle holds more than BIG tiles are emitted by a whole workgroup: each
// thread tests a share of the rectangle and a workgroup prefix sum places the hits, in the same
// row-major order as one thread would, so the output is identical. Which workgroup: not the one
// whose ranks hold the splat, but every B-th rank from the workgroup's number b (B workgroups,
// thread li takes rank b + B li: each rank exactly once). Ranks are depth order and the nearest
// splats are the biggest on screen, so the owner's workgroups were the first few, each emitting
// hundreds of big splats one after another while the rest of the GPU idled; strided, every
// workgroup gets its share. A record's place is fixed by isect_offset, so who writes it changes
// nothing in the output.
override BIG: u32 = 32u;
var<workgroup> big_rank: array<u32, WG>;

@compute @workgroup_size(WG)
fn emit(@builtin(global_invocation_id) gid: vec3u, @builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u, inv: ScanInvocation) {
  let li = inv.lid;
  let k = thread_id(gid, nwg);
  big_list_begin(li);
  let sentinel = cam.tiles.x * cam.tiles.y;
  let visible_count = counts[ip.visible_index];
  let strided = block_id(wid, nwg) + nwg.x * nwg.y * li; // this workgroup's share of the big splats
  if (strided < visible_count) {
    let rect = unpack_rect(rank_rect[strided]);
    if ((rect.z - rect.x) * (rect.w - rect.y) > BIG) {
      big_rank[big_list_push()] = strided;
    }
  }
  if (k < visible_count) {
    let rect = unpack_rect(rank_rect[k]);
    // (a big splat is emitted by the workgroup whose share it is, listed above)
    if ((rect.z - rect.x) * (rect.w - rect.y) <= BIG) {
      let mean = bitcast<vec2f>(rank_xy[k]);
      let co = rank_conic_opacity[k];
      let limit = power_limit(co.w);
      var e = isect_offset[k];
      // Exactly the slots the count reserved: never more (the next splat's), and any left over (if
      // rounding ever made this test disagree with project_forward's) get the sentinel tile, which
      // sorts after every real tile and is ignored by resolve.
      let end = e + rank_count[k];
      for (var ty = rect.y; ty < rect.w; ty++) {
        for (var tx = rect.x; tx < rect.z; tx++) {
          if (e < end && tile_hit(cam, mean, co.xyz, limit, tx, ty)) {
            write_intersection(e, ty * cam.tiles.x + tx, k);
            e += 1u;
          }
        }
      }
      for (; e < end; e++) {
        write_intersection(e, sentinel, k);
      }
    }
  }
  let n_big = big_list_end(li);
  for (var b = 0u; b < n_big; b++) {
    let kb = workgroupUniformLoad(&big_rank[b]); // uniform: the prefix sums below need it
    let rect = unpack_rect(rank_rect[kb]);
    let width = rect.z - rect.x;
    let area = width * (rect.w - rect.y);
    let mean = bitcast<vec2f>(rank_xy[kb]);
    let co = rank_conic_opacity[kb];
    let limit = power_limit(co.w);
    var e = isect_offset[kb];
    let end = e + rank_count[kb];
    for (var base = 0u; base < area; base += WG) {
      let t = base + li;
      let tile = vec2u(rect.x + t % width, rect.y + t / width);
      var hit = 0u;
      if (t < area && tile_hit(cam, mean, co.xyz, limit, tile.x, tile.y)) {
        hit = 1u;
      }
      let placed = workgroup_scan(inv, hit);
      if (hit == 1u && e + placed.x < end) {
        write_intersection(e + placed.x, tile.y * cam.tiles.x + tile.x, kb);
      }
      e = min(e + placed.y, end);
    }
    for (var f = e + li; f < end; f += WG) {
      write_intersection(f, sentinel, kb);
    }
  }
}

fn unpack_rect(packed: vec2u) -> vec4u {
  return vec4u(packed.x & 0xffffu, packed.x >> 16u, packed.y & 0xffffu, packed.y >> 16u);
}

fn write_intersection(e: u32, tile: u32, k: u32) {
  if (e < ip.isect_capacity) {
    isect_keys[e] = tile;
    isect_vals[e] = e;
    isect_rank[e] = k;
  } else {
    counts[ip.overflow_index] = 1u;
  }
}

@compute @workgroup_size(WG)
fn resolve(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = thread_id(gid, nwg);
  let m = counts[ip.isect_index + 2u];
  if (i >= m) {
    return;
  }
  sorted_rank[i] = rank_of_emit[sorted_vals[i]];
  sorted_emit[i] = sorted_vals[i];
  let tile = sorted_keys[i];
  if (tile >= cam.tiles.x * cam.tiles.y) {
    // sentinel: no tile's backward writes its gradient slot, so zero it here
    let e = sorted_vals[i];
    grads0[e] = vec4f(0.0);
    grads1[e] = vec4f(0.0);
    grads2[e] = vec4f(0.0);
    return;
  }
  if (i == 0u || sorted_keys[i - 1u] != tile) {
    tile_ranges[tile].x = i;
  }
  if (i + 1u == m || sorted_keys[i + 1u] != tile) {
    tile_ranges[tile].y = i + 1u;
  }
}
