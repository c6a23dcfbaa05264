// radix-sort: one stable least-significant-digit pass (8-bit digits) of u32 keys with u32 values,
// reduce-then-scan (no forward-progress assumptions, so it runs on every backend):
//   rs_setup   (1 thread)   n -> block count, indirect dispatch args, histogram-table size
//   rs_count   (per block)  block histogram of the digit -> hist[digit * blocks + block]
//   (scan.wgsl over hist: global offset of each (digit, block))
//   rs_scatter (per block)  stable local sort of the block by digit (8 one-bit splits in
//                           workgroup memory), then every element to hist[digit, block] + rank
//
// Inputs:  keys_in, vals_in (n = count[params.count_index], read on the GPU).
// Outputs: keys_out, vals_out (a ping-pong pair; the host alternates per pass).
// Workgroup: WG threads x ITEMS elements = one block of B = WG*ITEMS elements; blocks are
//           numbered wid.x + wid.y * num_workgroups.x (dispatch.wgsl; 2D indirect past 65535).
// Specialized by override constants WG and BITS (digit width of this pass: the last pass of a
//           sort on fewer bits uses a narrower mask; bins stay 256), and the module constant ITEMS.
// Invariant: elements past n (tail of the last block) get digit 255 and keep their original
//           relative order, so in the stable local sort they land after every real element and
//           are never written.

#include "wg-scan"
#include "dispatch"

override WG: u32 = 256u;
override BITS: u32 = 8u;
// ITEMS (elements per thread) is a module constant (KernelRegistry `consts`): it sizes a private array.
const BINS: u32 = 256u;
const MAX_WORKGROUPS: u32 = 65535u;

struct SortParams {
  shift: u32,
  count_index: u32,
  _pad0: u32,
  _pad1: u32,
}

// Derived per sort by rs_setup; read by every pass.
struct SortState {
  blocks: u32,
  count_dispatch: vec3u, // indirect args for rs_count / rs_scatter
  hist_size: u32,        // BINS * blocks: the element count of the histogram scan
  _pad: vec3u,
}

@group(0) @binding(0) var<uniform> params: SortParams;
@group(0) @binding(1) var<storage, read> count: array<u32>;
@group(0) @binding(2) var<storage, read_write> state_out: SortState; // rs_setup only
@group(0) @binding(9) var<storage, read> state: SortState; // also the indirect-dispatch buffer
@group(0) @binding(3) var<storage, read> keys_in: array<u32>;
@group(0) @binding(4) var<storage, read> vals_in: array<u32>;
@group(0) @binding(5) var<storage, read_write> keys_out: array<u32>;
@group(0) @binding(6) var<storage, read_write> vals_out: array<u32>;
@group(0) @binding(7) var<storage, read_write> hist: array<u32>;
@group(0) @binding(8) var<storage, read> hist_scanned: array<u32>;

var<workgroup> bins: array<atomic<u32>, BINS>;
var<workgroup> bin_start: array<u32, BINS>;
var<workgroup> packed: array<u32, WG * ITEMS>;

@compute @workgroup_size(1)
fn rs_setup() {
  let n = count[params.count_index];
  let b = WG * ITEMS;
  let blocks = (n + b - 1u) / b;
  state_out.blocks = blocks;
  let x = min(blocks, MAX_WORKGROUPS);
  state_out.count_dispatch = vec3u(x, select(0u, (blocks + x - 1u) / max(x, 1u), blocks > 0u), 1u);
  state_out.hist_size = blocks * BINS;
}

fn digit_of(key: u32) -> u32 {
  return (key >> params.shift) & ((1u << BITS) - 1u);
}

@compute @workgroup_size(WG)
fn rs_count(
  @builtin(local_invocation_index) lid: u32,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let blocks = state.blocks;
  let block = block_id(wid, nwg);
  if (block >= blocks) {
    return; // workgroup-uniform
  }
  let n = count[params.count_index];
  for (var d = lid; d < BINS; d += WG) {
    atomicStore(&bins[d], 0u);
  }
  workgroupBarrier();
  let base = block * WG * ITEMS;
  for (var k = 0u; k < ITEMS; k++) {
    let i = base + k * WG + lid;
    if (i < n) {
      atomicAdd(&bins[digit_of(keys_in[i])], 1u);
    }
  }
  workgroupBarrier();
  for (var d = lid; d < BINS; d += WG) {
    hist[d * blocks + block] = atomicLoad(&bins[d]);
  }
}

@compute @workgroup_size(WG)
fn rs_scatter(
  inv: ScanInvocation,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let lid = inv.lid;
  let blocks = state.blocks;
  let block = block_id(wid, nwg);
  if (block >= blocks) {
    return; // workgroup-uniform
  }
  let n = count[params.count_index];
  let base = block * WG * ITEMS;

  // Each thread owns ITEMS consecutive block positions; element = (digit << 16) | local index.
  var mine: array<u32, ITEMS>;
  for (var k = 0u; k < ITEMS; k++) {
    let local_index = lid * ITEMS + k;
    let i = base + local_index;
    var digit = BINS - 1u;
    if (i < n) {
      digit = digit_of(keys_in[i]);
    }
    mine[k] = (digit << 16u) | local_index;
  }
  for (var d = lid; d < BINS; d += WG) {
    atomicStore(&bins[d], 0u);
  }

  // Stable local sort by digit: one split per bit, zeros first, order kept within each side.
  for (var bit = 0u; bit < BITS; bit++) {
    var zeros = 0u;
    for (var k = 0u; k < ITEMS; k++) {
      zeros += 1u - ((mine[k] >> (16u + bit)) & 1u);
    }
    let scanned = workgroup_scan(inv, zeros);
    var zeros_before = scanned.x;
    let total_zeros = scanned.y;
    for (var k = 0u; k < ITEMS; k++) {
      let position = lid * ITEMS + k;
      let is_one = (mine[k] >> (16u + bit)) & 1u;
      var dst = zeros_before;
      if (is_one == 1u) {
        dst = total_zeros + position - zeros_before;
      } else {
        zeros_before += 1u;
      }
      packed[dst] = mine[k];
    }
    workgroupBarrier();
    for (var k = 0u; k < ITEMS; k++) {
      mine[k] = packed[lid * ITEMS + k];
    }
    workgroupBarrier();
  }

  // Where each digit's run starts inside the sorted block (every element counts, real or not).
  for (var k = 0u; k < ITEMS; k++) {
    atomicAdd(&bins[mine[k] >> 16u], 1u);
  }
  workgroupBarrier();
  var local_count = 0u;
  if (lid < BINS) {
    local_count = atomicLoad(&bins[lid]);
  }
  // BINS <= WG is required (checked on the host).
  let starts = workgroup_scan(inv, local_count);
  if (lid < BINS) {
    bin_start[lid] = starts.x;
  }
  workgroupBarrier();

  for (var k = 0u; k < ITEMS; k++) {
    let position = lid * ITEMS + k;
    let digit = mine[k] >> 16u;
    let local_index = mine[k] & 0xffffu;
    let i = base + local_index;
    if (i < n) {
      let dst = hist_scanned[digit * blocks + block] + position - bin_start[digit];
      keys_out[dst] = keys_in[i];
      vals_out[dst] = vals_in[i];
    }
  }
}
