// gather: per visible splat (depth rank k), the sum of the per-tile gradients its intersections
// received (rasterize_backward writes one record per intersection; a splat's intersections are
// the contiguous emit range [isect_offset[k], isect_offset[k] + count[k]), and emit wrote
// isect_rank[e] = k for each). Deterministic: no atomics, a fixed summation order.
//   gather_grads (per chunk of CHUNK = WG x ITEMS records, dispatch args [8..10] from
//     finish_count): a segmented sum over the records, threads over intersections (not splats),
//     so a splat of ten thousand records costs what ten thousand records of small splats cost.
//     Each thread sums its ITEMS consecutive records run by run; runs that start and end inside
//     the thread are written at once; the thread's last run goes through a segmented inclusive
//     scan over the workgroup (keyed by rank: ranks never decrease with e, so "same key" is
//     "same segment"). Segments wholly inside the chunk write v2d; a segment that crosses the
//     chunk's start or end writes the chunk's head or tail carry instead.
//   gather_carries (per rank k < V): splats whose records span chunks add the tail carry of
//     their first chunk and the head carries of the following ones, in chunk order; splats with
//     no record (or past the capacity) get zero.
//   in:  grads0..3 (a vec4 each per emit index), isect_rank, isect_offset, rank_count, counts
//   out: v2d[4k..4k+3] (the layout project_backward reads; the 4th, d normal, is zero without
//   OUT_NORMALS), carries[(2 chunk + side) 4 + c] (side 0: head, 1: tail)
// Workgroup: WG threads (a power of two), ITEMS records each. The scan: SUBGROUPS, within each
// subgroup over shuffles, then across subgroups through one slot each (one barrier); portable,
// Hillis-Steele in workgroup memory (log2 WG steps, two barriers each). Either is a constant per
// chunk, where the old workgroup path paid ~30 barriers per big splat. Relies on subgroups being
// contiguous ranges of local_invocation_index (as wg-scan). gather_grads and gather_carries must
// be compiled with the same WG and ITEMS (the chunk size), and finish_count's gather_chunk too.

#if SUBGROUPS
enable subgroups;
diagnostic(off, subgroup_uniformity);
#endif

#include "dispatch"

override WG: u32 = 256u;
override ITEMS: u32 = 8u;
override OUT_NORMALS: bool = false;

struct GatherParams {
  visible_index: u32,
  isect_capacity: u32,
  // counts[clamped_index] = min(intersections, capacity): the records written
  clamped_index: u32,
  _pad0: u32,
}

@group(0) @binding(0) var<uniform> gp: GatherParams;
@group(0) @binding(1) var<storage, read> counts: array<u32>;
@group(0) @binding(2) var<storage, read> isect_offset: array<u32>;
@group(0) @binding(3) var<storage, read> rank_count: array<u32>; // arena rank_counts.count
@group(0) @binding(4) var<storage, read> grads0: array<vec4f>; // arena isect_grads.g0
@group(0) @binding(6) var<storage, read> grads1: array<vec4f>; // arena isect_grads.g1
@group(0) @binding(7) var<storage, read> grads2: array<vec4f>; // arena isect_grads.g2
@group(0) @binding(8) var<storage, read> grads3: array<vec4f>; // arena isect_grads.g3
@group(0) @binding(5) var<storage, read_write> v2d: array<vec4f>;
@group(0) @binding(12) var<storage, read> isect_rank: array<u32>;
@group(0) @binding(13) var<storage, read_write> carries: array<vec4f>;

const NO_RANK: u32 = 0xffffffffu;

// The scan's workgroup memory. The 4th record's arrays are 1 long without OUT_NORMALS (the host
// sets SCAN_NORMALS = WG with them, and halves WG so the portable scan stays under WebGPU's 16 KiB).
override SCAN_NORMALS: u32 = 1u;
#if SUBGROUPS
// Per subgroup (at least 4 lanes): the rank of its first record, its last thread's key and
// in-subgroup scan value.
var<workgroup> sg_first_rank: array<u32, WG / 4u>;
var<workgroup> sg_key: array<u32, WG / 4u>;
var<workgroup> sg_g0: array<vec4f, WG / 4u>;
var<workgroup> sg_g1: array<vec4f, WG / 4u>;
var<workgroup> sg_g2: array<vec4f, WG / 4u>;
// (WG / 4 long would do with normals, but it must stay 1 without them and the workgroup-memory
// analysis, gpu/wgsl-analysis.ts, takes no max())
var<workgroup> sg_g3: array<vec4f, SCAN_NORMALS>;
#else
var<workgroup> scan_key: array<u32, WG>;
var<workgroup> scan_g0: array<vec4f, WG>;
var<workgroup> scan_g1: array<vec4f, WG>;
var<workgroup> scan_g2: array<vec4f, WG>;
var<workgroup> scan_g3: array<vec4f, SCAN_NORMALS>;
#endif

struct GatherInvocation {
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
#if SUBGROUPS
  @builtin(subgroup_invocation_id) lane: u32,
  @builtin(subgroup_size) sg_size: u32,
#endif
}

// One intersection's gradient records (d is zero without OUT_NORMALS).
struct Grad {
  a: vec4f,
  b: vec4f,
  c: vec4f,
  d: vec4f,
}

fn no_grad() -> Grad {
  return Grad(vec4f(0.0), vec4f(0.0), vec4f(0.0), vec4f(0.0));
}

fn grad_add(x: Grad, y: Grad) -> Grad {
  return Grad(x.a + y.a, x.b + y.b, x.c + y.c, x.d + y.d);
}

fn grad_record(e: u32) -> Grad {
  var g = Grad(grads0[e], grads1[e], grads2[e], vec4f(0.0));
  if (OUT_NORMALS) {
    g.d = grads3[e];
  }
  return g;
}

#if SUBGROUPS
fn sg_store(i: u32, g: Grad) {
  sg_g0[i] = g.a;
  sg_g1[i] = g.b;
  sg_g2[i] = g.c;
  if (OUT_NORMALS) {
    sg_g3[i] = g.d;
  }
}

fn sg_load(i: u32) -> Grad {
  var g = Grad(sg_g0[i], sg_g1[i], sg_g2[i], vec4f(0.0));
  if (OUT_NORMALS) {
    g.d = sg_g3[i];
  }
  return g;
}

// The share of segment `key` in subgroups `last`, last - 1, ...: each subgroup's value covers the
// segment from its start or the subgroup's, so the walk goes on while the segment began earlier.
fn earlier_subgroups(key: u32, last: u32) -> Grad {
  var share = no_grad();
  var g = last + 1u;
  while (g > 0u) {
    g--;
    if (sg_key[g] != key) {
      break;
    }
    share = grad_add(share, sg_load(g));
    if (sg_first_rank[g] != key) {
      break;
    }
  }
  return share;
}
#else
fn scan_store(i: u32, g: Grad) {
  scan_g0[i] = g.a;
  scan_g1[i] = g.b;
  scan_g2[i] = g.c;
  if (OUT_NORMALS) {
    scan_g3[i] = g.d;
  }
}

fn scan_load(i: u32) -> Grad {
  var g = Grad(scan_g0[i], scan_g1[i], scan_g2[i], vec4f(0.0));
  if (OUT_NORMALS) {
    g.d = scan_g3[i];
  }
  return g;
}
#endif

fn write_v2d(k: u32, g: Grad) {
  v2d[4u * k] = g.a;
  v2d[4u * k + 1u] = g.b;
  v2d[4u * k + 2u] = g.c;
  v2d[4u * k + 3u] = g.d;
}

// side 0: the chunk's head (the segment that began in an earlier chunk), 1: its tail.
fn write_carry(chunk: u32, side: u32, g: Grad) {
  let at = 4u * (2u * chunk + side);
  carries[at] = g.a;
  carries[at + 1u] = g.b;
  carries[at + 2u] = g.c;
  carries[at + 3u] = g.d;
}

fn read_carry(chunk: u32, side: u32) -> Grad {
  let at = 4u * (2u * chunk + side);
  return Grad(carries[at], carries[at + 1u], carries[at + 2u], carries[at + 3u]);
}

// A segment's sum over this chunk is complete: its splat's gradient if the segment lies wholly
// inside the chunk, else the chunk's carry for gather_carries (both when it spans the chunk).
fn close_segment(k: u32, g: Grad, chunk: u32, in_rank: u32, out_rank: u32) {
  if (k == in_rank) {
    write_carry(chunk, 0u, g);
  }
  if (k == out_rank) {
    write_carry(chunk, 1u, g);
  }
  if (k != in_rank && k != out_rank) {
    write_v2d(k, g);
  }
}

@compute @workgroup_size(WG)
fn gather_grads(inv: GatherInvocation) {
  let li = inv.lid;
  let chunk = block_id(inv.wid, inv.nwg);
  let m = counts[gp.clamped_index];
  let base = chunk * WG * ITEMS;
  let chunk_end = min(base + WG * ITEMS, m);
  // the ranks whose segments cross into and out of this chunk (none at the ends)
  var in_rank = NO_RANK;
  if (base > 0u && base <= m) {
    in_rank = isect_rank[base - 1u];
  }
  var out_rank = NO_RANK;
  if (base + WG * ITEMS < m) {
    out_rank = isect_rank[base + WG * ITEMS];
  }
  let e0 = base + li * ITEMS;
  let e1 = min(e0 + ITEMS, chunk_end);
  var key = NO_RANK; // the rank of the thread's last run (no record: sorts after every rank)
  var first_rank = NO_RANK; // the rank of the thread's first record
  var runs = 0u;
  var head_open = false; // the first run continues the previous thread's last
  var head = no_grad();
  var tail = no_grad();
  if (e0 < e1) {
    first_rank = isect_rank[e0];
    key = first_rank;
    head_open = e0 > base && isect_rank[e0 - 1u] == first_rank;
    for (var e = e0; e < e1; e++) {
      let k = isect_rank[e];
      if (k != key) {
        if (runs == 0u && head_open) {
          head = tail; // finished after the scan, with the earlier threads' share
        } else {
          close_segment(key, tail, chunk, in_rank, out_rank);
        }
        runs++;
        key = k;
        tail = no_grad();
      }
      tail = grad_add(tail, grad_record(e));
    }
  }

  // Segmented inclusive scan of the last runs: after it, `total` is the sum of the thread's last
  // segment from its first record in the chunk through this thread, and `before` (with
  // head_open) the previous thread's. Ranks never decrease with e, so threads of the same key
  // are one segment.
  var total = tail;
  var before = no_grad();
#if SUBGROUPS
  // within the subgroup (Hillis-Steele over shuffles), then across subgroups through one slot
  // each: a thread whose segment began in an earlier subgroup adds those subgroups' values
  let lanes = min(inv.sg_size, WG);
  let lane = inv.lane;
  let sg = li / lanes;
  for (var d = 1u; d < lanes; d <<= 1u) {
    let other_key = subgroupShuffleUp(key, d);
    let other = Grad(subgroupShuffleUp(total.a, d), subgroupShuffleUp(total.b, d), subgroupShuffleUp(total.c, d), subgroupShuffleUp(total.d, d));
    if (lane >= d && other_key == key) {
      total = grad_add(total, other);
    }
  }
  if (lane == 0u) {
    sg_first_rank[sg] = first_rank;
  }
  if (lane == lanes - 1u || li == WG - 1u) {
    sg_key[sg] = key;
    sg_store(sg, total);
  }
  workgroupBarrier();
  if (sg > 0u && key != NO_RANK && sg_first_rank[sg] == key) {
    total = grad_add(total, earlier_subgroups(key, sg - 1u));
  }
  let previous = Grad(subgroupShuffleUp(total.a, 1u), subgroupShuffleUp(total.b, 1u), subgroupShuffleUp(total.c, 1u), subgroupShuffleUp(total.d, 1u));
  if (head_open) {
    if (lane > 0u) {
      before = previous;
    } else {
      before = earlier_subgroups(first_rank, sg - 1u); // head_open: not the chunk's first thread
    }
  }
#else
  // Hillis-Steele in workgroup memory: a step adds the value d threads back when it has the same key
  scan_key[li] = key;
  scan_store(li, total);
  workgroupBarrier();
  for (var d = 1u; d < WG; d <<= 1u) {
    let take = li >= d && scan_key[li - d] == key;
    var other = no_grad();
    if (take) {
      other = scan_load(li - d);
    }
    workgroupBarrier();
    if (take) {
      total = grad_add(total, other);
      scan_store(li, total);
    }
    workgroupBarrier();
  }
  if (head_open) {
    before = scan_load(li - 1u);
  }
#endif

  if (e0 < e1) {
    if (runs > 0u && head_open) {
      // the first run ends here: the previous thread's scan value holds the earlier share
      close_segment(first_rank, grad_add(before, head), chunk, in_rank, out_rank);
    }
    // the last run ends here unless the next thread (of this chunk) continues it
    let tail_open = e1 < chunk_end && isect_rank[e1] == key;
    if (!tail_open) {
      close_segment(key, total, chunk, in_rank, out_rank);
    }
  }
}

// Per visible splat: the splats whose records span chunks sum their chunks' carries in chunk
// order; splats with no record written get zero (their v2d holds the last frame's otherwise).
@compute @workgroup_size(WG)
fn gather_carries(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let k = thread_id(gid, nwg);
  if (k >= counts[gp.visible_index]) {
    return;
  }
  let m = counts[gp.clamped_index];
  let start = isect_offset[k];
  let end = min(start + rank_count[k], m);
  if (end <= start) {
    write_v2d(k, no_grad());
    return;
  }
  let first_chunk = start / (WG * ITEMS);
  let last_chunk = (end - 1u) / (WG * ITEMS);
  if (first_chunk == last_chunk) {
    return; // gather_grads wrote it
  }
  var total = read_carry(first_chunk, 1u);
  for (var c = first_chunk + 1u; c <= last_chunk; c++) {
    total = grad_add(total, read_carry(c, 0u));
  }
  write_v2d(k, total);
}

// gather_weights (OUT_WEIGHTS): per visible splat, the sum and the max over its intersections of
// the per-tile (sum of w, max w) records rasterize_forward wrote; out: splat_weights[s] for the
// splat s = order[k] of depth rank k. Splats not visible keep the zero the host cleared.
@group(0) @binding(9) var<storage, read> order: array<u32>;
@group(0) @binding(10) var<storage, read> isect_weights: array<vec2f>;
@group(0) @binding(11) var<storage, read_write> splat_weights: array<vec2f>;

@compute @workgroup_size(WG)
fn gather_weights(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let k = thread_id(gid, nwg);
  if (k >= counts[gp.visible_index]) {
    return;
  }
  let start = isect_offset[k];
  let end = min(start + rank_count[k], gp.isect_capacity);
  var total = vec2f(0.0);
  for (var e = start; e < end; e++) {
    let r = isect_weights[e];
    total = vec2f(total.x + r.x, max(total.y, r.y));
  }
  splat_weights[order[k]] = total;
}
