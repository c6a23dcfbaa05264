// gather: per visible splat (depth rank k), the sum of the per-tile gradients its intersections
// received (rasterize_backward writes one record per intersection; a splat's intersections are
// the contiguous emit range [isect_offset[k], isect_offset[k] + count[k])). Deterministic: no
// atomics, a fixed summation order.
//   in:  grads0..2 (a vec4 each per emit index), isect_offset, rank_count, counts[visible_index]
//   out: v2d[4k..4k+3] (the layout project_backward reads; the 4th, d normal, is zero without
//   OUT_NORMALS)
// Workgroup: WG threads (a power of two), one splat each, dispatched over the splat capacity;
// splats with more than BIG intersections are summed by the whole workgroup.

#include "dispatch"
#include "big-splats"

override WG: u32 = 256u;
override OUT_NORMALS: bool = false;

struct GatherParams {
  visible_index: u32,
  isect_capacity: u32,
  _pad0: u32,
  _pad1: u32,
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

// Splats with more than BIG intersections are summed by the whole workgroup (a strided share
// per thread, then a tree in workgroup memory: a fixed order, so still deterministic) instead of
// by their own thread. Each costs the workgroup ~30 barriers, so only the largest are worth it:
// the default is the host's (main/engine/render/rasterizer.ts, `bigSplat`).
override BIG: u32 = 1024u;
var<workgroup> big_rank: array<u32, WG>;
var<workgroup> big_sum: array<vec4f, WG>;

fn grad_record(c: u32, e: u32) -> vec4f {
  if (c == 0u) {
    return grads0[e];
  } else if (c == 1u) {
    return grads1[e];
  } else if (c == 2u) {
    return grads2[e];
  }
  return grads3[e];
}

@compute @workgroup_size(WG)
fn gather_grads(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) li: u32) {
  let k = thread_id(gid, nwg);
  big_list_begin(li);
  if (k < counts[gp.visible_index]) {
    let start = isect_offset[k];
    let end = min(start + rank_count[k], gp.isect_capacity);
    if (end > start + BIG) {
      big_rank[big_list_push()] = k;
    } else {
      var g0 = vec4f(0.0);
      var g1 = vec4f(0.0);
      var g2 = vec4f(0.0);
      var g3 = vec4f(0.0);
      for (var e = start; e < end; e++) {
        g0 += grads0[e];
        g1 += grads1[e];
        g2 += grads2[e];
        if (OUT_NORMALS) {
          g3 += grads3[e];
        }
      }
      v2d[4u * k] = g0;
      v2d[4u * k + 1u] = g1;
      v2d[4u * k + 2u] = g2;
      v2d[4u * k + 3u] = g3;
    }
  }
  let n_big = big_list_end(li);
  let records = select(3u, 4u, OUT_NORMALS);
  for (var b = 0u; b < n_big; b++) {
    let kb = big_rank[b];
    let start = isect_offset[kb];
    let end = min(start + rank_count[kb], gp.isect_capacity);
    for (var c = 0u; c < records; c++) {
      var acc = vec4f(0.0);
      for (var e = start + li; e < end; e += WG) {
        acc += grad_record(c, e);
      }
      big_sum[li] = acc;
      workgroupBarrier();
      for (var stride = WG / 2u; stride > 0u; stride >>= 1u) {
        if (li < stride) {
          big_sum[li] += big_sum[li + stride];
        }
        workgroupBarrier();
      }
      if (li == 0u) {
        v2d[4u * kb + c] = big_sum[0];
      }
      workgroupBarrier();
    }
    if (li == 0u && !OUT_NORMALS) {
      v2d[4u * kb + 3u] = vec4f(0.0);
    }
  }
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
