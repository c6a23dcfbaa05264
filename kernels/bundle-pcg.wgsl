// bundle-pcg: preconditioned conjugate gradients on S dc = b, every step on the GPU (no host
// read-back inside an LM iteration): the host records pcg_init, then per iteration the two
// schur kernels (q = S p) and pcg_step, up to the maximum; once converged (|r| <= tol |b|, or a
// breakdown p.q <= 0) the remaining steps return at once, and `scalars` counts the steps taken.
//   pcg_init: x = 0, r = b, z = M^-1 r, p = z, rz = r.z, bb = b.b
//   pcg_step: alpha = rz / p.q; x += alpha p; r -= alpha q; z = M^-1 r; beta = r.z' / rz; p = z + beta p
// M^-1 is the block-Jacobi preconditioner (bundle-blocks camera_blocks: one n x n block per
// segment). Vectors are slots of `vectors` (bundle-common VEC_*); scalars: [0] rz, [1] bb,
// [2] converged (0 / 1), [3] steps taken, [4] |r|^2 after the last step.
// Workgroup: ONE workgroup of PCG_WG threads does every vector operation and dot product
// (each thread a stride, then a fixed tree): the reduced system is small (6 per free image plus
// the intrinsics: 908 values for 150 images), so one workgroup is a few strides long and a
// second pass over partials would cost a dispatch for nothing; past ~1e5 variables a
// two-pass reduction would pay. Both capability variants compile this one body.

#include "bundle-common"

const PCG_WG: u32 = 256u;

@group(0) @binding(0) var<uniform> bp: BaParams;
@group(0) @binding(1) var<storage, read> topo: array<u32>;
@group(0) @binding(2) var<storage, read> blocks: array<f32>;
@group(0) @binding(3) var<storage, read_write> vectors: array<f32>;
@group(0) @binding(4) var<storage, read_write> scalars: array<f32>;

var<workgroup> s_red: array<vec2f, PCG_WG>;
var<workgroup> s_total: vec2f;
var<workgroup> s_flag: f32;

fn slot(s: u32, i: u32) -> u32 {
  return s * bp.variables + i;
}

// The workgroup's sums of (a, b) over its threads, the same value in every thread.
fn reduce2(lid: u32, a: f32, b: f32) -> vec2f {
  s_red[lid] = vec2f(a, b);
  for (var stride = PCG_WG / 2u; stride > 0u; stride >>= 1u) {
    workgroupBarrier();
    if (lid < stride) {
      s_red[lid] += s_red[lid + stride];
    }
  }
  workgroupBarrier();
  if (lid == 0u) {
    s_total = s_red[0];
  }
  return workgroupUniformLoad(&s_total);
}

// z = M^-1 r, a thread per segment.
fn precondition(lid: u32) {
  for (var segment = lid; segment < bp.segments; segment += PCG_WG) {
    let seg = bp.segment_at + SEGMENT_WORDS * segment;
    let n = topo[seg + 1u];
    let variable = topo[seg + 2u];
    let m = SEG_STRIDE * segment + SEG_MINV;
    for (var a = 0u; a < n; a++) {
      var z = 0.0;
      for (var b = 0u; b < n; b++) {
        z += blocks[m + a * 8u + b] * vectors[slot(VEC_R, variable + b)];
      }
      vectors[slot(VEC_Z, variable + a)] = z;
    }
  }
}

@compute @workgroup_size(PCG_WG, 1, 1)
fn pcg_init(@builtin(local_invocation_index) lid: u32) {
  for (var i = lid; i < bp.variables; i += PCG_WG) {
    vectors[slot(VEC_X, i)] = 0.0;
    vectors[slot(VEC_R, i)] = vectors[slot(VEC_B, i)];
  }
  storageBarrier();
  precondition(lid);
  storageBarrier();
  var rz = 0.0;
  var bb = 0.0;
  for (var i = lid; i < bp.variables; i += PCG_WG) {
    let z = vectors[slot(VEC_Z, i)];
    let b = vectors[slot(VEC_B, i)];
    vectors[slot(VEC_P, i)] = z;
    rz += b * z;
    bb += b * b;
  }
  let sums = reduce2(lid, rz, bb);
  if (lid == 0u) {
    scalars[0] = sums.x;
    scalars[1] = sums.y;
    scalars[2] = select(0.0, 1.0, sums.y == 0.0);
    scalars[3] = 0.0;
    scalars[4] = sums.y;
  }
}

@compute @workgroup_size(PCG_WG, 1, 1)
fn pcg_step(@builtin(local_invocation_index) lid: u32) {
  if (lid == 0u) {
    s_flag = scalars[2];
  }
  if (workgroupUniformLoad(&s_flag) != 0.0) {
    return;
  }
  var pq = 0.0;
  for (var i = lid; i < bp.variables; i += PCG_WG) {
    pq += vectors[slot(VEC_P, i)] * vectors[slot(VEC_Q, i)];
  }
  let rz = scalars[0];
  let dots = reduce2(lid, pq, 0.0);
  if (!(dots.x > 0.0)) {
    if (lid == 0u) {
      scalars[2] = 1.0; // breakdown: S is positive definite, so only rounding gets here
    }
    return;
  }
  let alpha = rz / dots.x;
  for (var i = lid; i < bp.variables; i += PCG_WG) {
    vectors[slot(VEC_X, i)] += alpha * vectors[slot(VEC_P, i)];
    vectors[slot(VEC_R, i)] -= alpha * vectors[slot(VEC_Q, i)];
  }
  storageBarrier();
  precondition(lid);
  storageBarrier();
  var rz_new = 0.0;
  var rr = 0.0;
  for (var i = lid; i < bp.variables; i += PCG_WG) {
    let r = vectors[slot(VEC_R, i)];
    rz_new += r * vectors[slot(VEC_Z, i)];
    rr += r * r;
  }
  let sums = reduce2(lid, rz_new, rr);
  let beta = sums.x / rz;
  for (var i = lid; i < bp.variables; i += PCG_WG) {
    vectors[slot(VEC_P, i)] = vectors[slot(VEC_Z, i)] + beta * vectors[slot(VEC_P, i)];
  }
  if (lid == 0u) {
    scalars[0] = sums.x;
    scalars[3] += 1.0;
    scalars[4] = sums.y;
    let tolerance = bp.pcg_tolerance * bp.pcg_tolerance * scalars[1];
    scalars[2] = select(0.0, 1.0, sums.y <= tolerance);
  }
}
