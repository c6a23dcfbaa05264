// camera-grads: the sum over splats of project_backward's per-splat camera shares
// (camera_grad_partials, three vec4 per splat: (d omega, d fx), (d tau, d fy), (d cx, d cy, 0, 0))
// into one camera gradient of three vec4. Deterministic: no atomics, a fixed summation order
// whatever the device (the same splat order, the same tree), so training with camera refinement
// is repeatable bit for bit.
//   reduce_chunks (one workgroup per chunk of CHUNK = WG * PER_THREAD splats of the capacity):
//     in:  partials, counts[count_index] (splats past the count hold stale data and are skipped)
//     out: chunk_sums[3c..3c+2]
//   reduce_chunk_sums (one workgroup):
//     in:  chunk_sums of `chunks` chunks
//     out: camera_grad[0..2]
// Workgroup: WG = 256 threads, 1D. Each thread sums a strided share serially (coalesced loads),
//   then the workgroup adds the shares in a binary tree (12 KiB of workgroup memory).

const WG: u32 = 256u;
const PER_THREAD: u32 = 16u;

struct CameraGradParams {
  count_index: u32,
  chunks: u32,
  _pad0: u32,
  _pad1: u32,
}

@group(0) @binding(0) var<uniform> params: CameraGradParams;
@group(0) @binding(1) var<storage, read> counts: array<u32>;
@group(0) @binding(2) var<storage, read> partials: array<vec4f>;
@group(0) @binding(3) var<storage, read_write> chunk_sums: array<vec4f>;
@group(0) @binding(5) var<storage, read_write> camera_grad: array<vec4f>;

var<workgroup> tree: array<vec4f, 768>; // 3 x WG

// Adds the workgroup's shares (tree[i * WG + li], i < 3) in a fixed binary tree; the sum lands in tree[i * WG].
fn tree_sum(li: u32) {
  for (var stride = WG / 2u; stride > 0u; stride /= 2u) {
    workgroupBarrier();
    if (li < stride) {
      for (var i = 0u; i < 3u; i++) {
        tree[i * WG + li] += tree[i * WG + li + stride];
      }
    }
  }
  workgroupBarrier();
}

@compute @workgroup_size(WG)
fn reduce_chunks(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) li: u32) {
  let c = wid.x;
  let n = counts[params.count_index];
  var sum = array<vec4f, 3>(vec4f(0.0), vec4f(0.0), vec4f(0.0));
  for (var k = 0u; k < PER_THREAD; k++) {
    let s = c * WG * PER_THREAD + k * WG + li;
    if (s < n) {
      for (var i = 0u; i < 3u; i++) {
        sum[i] += partials[3u * s + i];
      }
    }
  }
  for (var i = 0u; i < 3u; i++) {
    tree[i * WG + li] = sum[i];
  }
  tree_sum(li);
  if (li < 3u) {
    chunk_sums[3u * c + li] = tree[li * WG];
  }
}

@compute @workgroup_size(WG)
fn reduce_chunk_sums(@builtin(local_invocation_index) li: u32) {
  var sum = array<vec4f, 3>(vec4f(0.0), vec4f(0.0), vec4f(0.0));
  for (var c = li; c < params.chunks; c += WG) {
    for (var i = 0u; i < 3u; i++) {
      sum[i] += chunk_sums[3u * c + i];
    }
  }
  for (var i = 0u; i < 3u; i++) {
    tree[i * WG + li] = sum[i];
  }
  tree_sum(li);
  if (li < 3u) {
    camera_grad[li] = tree[li * WG];
  }
}
