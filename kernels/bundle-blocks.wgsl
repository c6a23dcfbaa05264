// bundle-blocks: the normal-equation blocks of one linearisation at one damping lambda.
//   point_blocks:  a thread per point over its observations (contiguous: sorted by point):
//                  V = sum w Jp^T Jp (sym 3x3), g_p = sum w Jp^T r, and the inverse of
//                  V + lambda clamp(diag V) (closed form, adjugate over determinant) -> pblocks
//   camera_chunks: a workgroup per chunk (at most CHUNK_OBS of a segment's observations; a
//                  segment is a free image's pose, or a camera's refined intrinsics), their sums
//                  A = sum w Js^T Js (n x n), g = sum w Js^T r,
//                  and for a pose the Schur term T = sum (w Js^T Jp) V_j^-1 (w Jp^T Js) (a point
//                  has at most one observation per image, so the pose's diagonal block of S is a
//                  sum over its observations) -> the chunk's SEG_VALUES sums after the segments'
//                  blocks in `blocks`
//   camera_blocks: a thread per segment: its chunks' sums in order; D = clamp(diag A), the
//                  preconditioner block M^-1 = (A + lambda D - T)^-1 (intrinsics: T = 0, the
//                  block of U; Gauss-Jordan) -> blocks; g also into the vector slot VEC_G
// Workgroup: WG threads per point or segment (2D dispatch); SEG_WG threads per chunk (one
//   workgroup per chunk: chunk = block_id), each summing a stride of the chunk's observations,
//   then a fixed tree over SEG_VALUES columns in workgroup memory (10 KiB).
// Both capability variants compile this one body (workgroup reductions, no subgroups).
// Invariant: pblocks are written before camera_blocks reads them (separate dispatches).

#include "bundle-common"
#include "dispatch"

override WG: u32 = 64u;
const SEG_WG: u32 = 32u;
const SEG_VALUES: u32 = 80u; // A (36 of the upper triangle, padded: 8x8 index a * 8 + b folded), g (8), T (36)

@group(0) @binding(0) var<uniform> bp: BaParams;
@group(0) @binding(1) var<storage, read> topo: array<u32>;
@group(0) @binding(2) var<storage, read> lin: array<f32>;
@group(0) @binding(3) var<storage, read_write> pblocks: array<f32>;
@group(0) @binding(4) var<storage, read_write> blocks: array<f32>;
@group(0) @binding(5) var<storage, read_write> vectors: array<f32>;

var<workgroup> s_acc: array<f32, SEG_VALUES * SEG_WG>;

@compute @workgroup_size(WG, 1, 1)
fn point_blocks(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let j = thread_id(gid, nwg);
  if (j >= bp.points) {
    return;
  }
  var v = array<f32, 6>(0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
  var g = vec3f(0.0);
  let end = topo[bp.point_first_at + j + 1u];
  for (var o = topo[bp.point_first_at + j]; o < end; o++) {
    let base = LIN_STRIDE * o;
    let w = lin[base + LIN_W];
    let ju = vec3f(lin[base + LIN_POINT], lin[base + LIN_POINT + 1u], lin[base + LIN_POINT + 2u]);
    let jv = vec3f(lin[base + LIN_POINT + 3u], lin[base + LIN_POINT + 4u], lin[base + LIN_POINT + 5u]);
    v[0] += w * (ju.x * ju.x + jv.x * jv.x);
    v[1] += w * (ju.x * ju.y + jv.x * jv.y);
    v[2] += w * (ju.x * ju.z + jv.x * jv.z);
    v[3] += w * (ju.y * ju.y + jv.y * jv.y);
    v[4] += w * (ju.y * ju.z + jv.y * jv.z);
    v[5] += w * (ju.z * ju.z + jv.z * jv.z);
    g += w * (lin[base + LIN_R] * ju + lin[base + LIN_R + 1u] * jv);
  }
  let a = v[0] + bp.lambda * lm_diagonal(v[0]);
  let b = v[1];
  let c = v[2];
  let d = v[3] + bp.lambda * lm_diagonal(v[3]);
  let e = v[4];
  let f = v[5] + bp.lambda * lm_diagonal(v[5]);
  // adjugate of [[a b c] [b d e] [c e f]]
  let i00 = d * f - e * e;
  let i01 = c * e - b * f;
  let i02 = b * e - c * d;
  let i11 = a * f - c * c;
  let i12 = b * c - a * e;
  let i22 = a * d - b * b;
  let inv_det = 1.0 / (a * i00 + b * i01 + c * i02);
  let out = POINT_STRIDE * j;
  for (var k = 0u; k < 6u; k++) {
    pblocks[out + k] = v[k];
  }
  pblocks[out + 6u] = i00 * inv_det;
  pblocks[out + 7u] = i01 * inv_det;
  pblocks[out + 8u] = i02 * inv_det;
  pblocks[out + 9u] = i11 * inv_det;
  pblocks[out + 10u] = i12 * inv_det;
  pblocks[out + 11u] = i22 * inv_det;
  pblocks[out + 12u] = g.x;
  pblocks[out + 13u] = g.y;
  pblocks[out + 14u] = g.z;
  pblocks[out + 15u] = 0.0;
}

// Index of (a, b), a <= b < 8, in a packed upper triangle of 8x8 (36 entries).
fn tri8(a: u32, b: u32) -> u32 {
  let lo = min(a, b);
  let hi = max(a, b);
  return lo * 8u - lo * (lo + 1u) / 2u + hi;
}

@compute @workgroup_size(SEG_WG, 1, 1)
fn camera_chunks(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let chunk = block_id(wid, nwg);
  if (chunk >= bp.chunks) {
    return; // a whole workgroup: no barrier is skipped by part of one
  }
  let ch = bp.chunk_at + CHUNK_WORDS * chunk;
  let seg = bp.segment_at + SEGMENT_WORDS * topo[ch];
  let is_pose = topo[seg] == 0u;
  let n = topo[seg + 1u];
  let first = topo[ch + 1u];
  let count = topo[ch + 2u];
  let js_at = select(LIN_INTR, LIN_POSE, is_pose);
  let js_row = select(8u, 6u, is_pose);
  var acc: array<f32, SEG_VALUES>;
  for (var i = 0u; i < SEG_VALUES; i++) {
    acc[i] = 0.0;
  }
  for (var i = lid; i < count; i += SEG_WG) {
    let o = topo[bp.seg_obs_at + first + i];
    let base = LIN_STRIDE * o;
    let w = lin[base + LIN_W];
    let ru = lin[base + LIN_R];
    let rv = lin[base + LIN_R + 1u];
    var su: array<f32, 8>;
    var sv: array<f32, 8>;
    for (var a = 0u; a < 8u; a++) {
      su[a] = select(0.0, lin[base + js_at + a], a < n);
      sv[a] = select(0.0, lin[base + js_at + js_row + a], a < n);
    }
    for (var a = 0u; a < n; a++) {
      for (var b = a; b < n; b++) {
        acc[tri8(a, b)] += w * (su[a] * su[b] + sv[a] * sv[b]);
      }
      acc[36u + a] += w * (su[a] * ru + sv[a] * rv);
    }
    if (is_pose) {
      // B = w Js^T Jp (n x 3), C = B V^-1, T += C B^T
      let point = topo[bp.obs_point_at + o];
      let pu = vec3f(lin[base + LIN_POINT], lin[base + LIN_POINT + 1u], lin[base + LIN_POINT + 2u]);
      let pv = vec3f(lin[base + LIN_POINT + 3u], lin[base + LIN_POINT + 4u], lin[base + LIN_POINT + 5u]);
      let vi = POINT_STRIDE * point + 6u; // V_j^-1, damped (point_blocks)
      let vinv = sym3(pblocks[vi], pblocks[vi + 1u], pblocks[vi + 2u], pblocks[vi + 3u], pblocks[vi + 4u], pblocks[vi + 5u]);
      var bm: array<vec3f, 6>;
      var cm: array<vec3f, 6>;
      for (var a = 0u; a < 6u; a++) {
        bm[a] = w * (su[a] * pu + sv[a] * pv);
        cm[a] = vinv * bm[a]; // V^-1 symmetric: (B V^-1) row a = V^-1 B row a
      }
      for (var a = 0u; a < 6u; a++) {
        for (var b = a; b < 6u; b++) {
          acc[44u + tri8(a, b)] += dot(cm[a], bm[b]);
        }
      }
    }
  }
  for (var i = 0u; i < SEG_VALUES; i++) {
    s_acc[i * SEG_WG + lid] = acc[i];
  }
  for (var stride = SEG_WG / 2u; stride > 0u; stride >>= 1u) {
    workgroupBarrier();
    if (lid < stride) {
      for (var i = 0u; i < SEG_VALUES; i++) {
        s_acc[i * SEG_WG + lid] += s_acc[i * SEG_WG + lid + stride];
      }
    }
  }
  if (lid == 0u) {
    let sums = camera_chunk_sums_at() + SEG_VALUES * chunk;
    for (var i = 0u; i < SEG_VALUES; i++) {
      blocks[sums + i] = s_acc[i * SEG_WG];
    }
  }
}

// The chunks' sums after the segment blocks in `blocks`.
fn camera_chunk_sums_at() -> u32 {
  return SEG_STRIDE * bp.segments;
}

@compute @workgroup_size(WG, 1, 1)
fn camera_blocks(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let segment = thread_id(gid, nwg);
  if (segment >= bp.segments) {
    return;
  }
  let seg = bp.segment_at + SEGMENT_WORDS * segment;
  let is_pose = topo[seg] == 0u;
  let n = topo[seg + 1u];
  let first_chunk = topo[seg + 6u];
  let chunk_end = first_chunk + topo[seg + 7u];
  // the chunks' sums in order
  var total: array<f32, SEG_VALUES>;
  for (var i = 0u; i < SEG_VALUES; i++) {
    total[i] = 0.0;
  }
  for (var c = first_chunk; c < chunk_end; c++) {
    let sums = camera_chunk_sums_at() + SEG_VALUES * c;
    for (var i = 0u; i < SEG_VALUES; i++) {
      total[i] += blocks[sums + i];
    }
  }
  let out = SEG_STRIDE * segment;
  let variable = topo[seg + 2u];
  // M = A + lambda D - T, inverted by Gauss-Jordan (symmetric positive definite: no pivoting)
  var m: array<f32, 64>;
  var inv: array<f32, 64>;
  for (var i = 0u; i < 64u; i++) {
    m[i] = 0.0;
    inv[i] = 0.0;
    blocks[out + SEG_A + i] = 0.0;
  }
  for (var a = 0u; a < 8u; a++) {
    let diag = select(0.0, lm_diagonal(total[tri8(a, a)]), a < n);
    blocks[out + SEG_D + a] = diag;
    blocks[out + SEG_G + a] = select(0.0, total[36u + a], a < n);
    inv[a * 8u + a] = 1.0;
  }
  for (var a = 0u; a < n; a++) {
    vectors[VEC_G * bp.variables + variable + a] = total[36u + a];
    for (var b = 0u; b < n; b++) {
      let value = total[tri8(a, b)];
      blocks[out + SEG_A + a * 8u + b] = value;
      let schur = select(0.0, total[44u + tri8(a, b)], is_pose);
      m[a * 8u + b] = value - schur + select(0.0, bp.lambda * blocks[out + SEG_D + a], a == b);
    }
  }
  for (var col = 0u; col < n; col++) {
    let pivot = 1.0 / m[col * 8u + col];
    for (var b = 0u; b < 8u; b++) {
      m[col * 8u + b] *= pivot;
      inv[col * 8u + b] *= pivot;
    }
    for (var row = 0u; row < n; row++) {
      if (row == col) {
        continue;
      }
      let factor = m[row * 8u + col];
      for (var b = 0u; b < 8u; b++) {
        m[row * 8u + b] -= factor * m[col * 8u + b];
        inv[row * 8u + b] -= factor * inv[col * 8u + b];
      }
    }
  }
  for (var i = 0u; i < 64u; i++) {
    let a = i / 8u;
    let b = i % 8u;
    blocks[out + SEG_MINV + i] = select(0.0, inv[i], a < n && b < n);
  }
}
