// scan: exclusive prefix sum of u32 (reduce-then-scan), the building block of radix sort,
// stream compaction and densification.
//
// Inputs:  `input` (n values; n read from `count[params.count_index]` so a GPU-computed count
//          drives it), `block_offsets` (exclusive scan of the previous level's block sums; zeros
//          at the top level).
// Outputs: `output[0..=n]`: output[i] = sum(input[0..i)), output[n] = the total (also written
//          to count[params.total_index] when set, so the next stage reads it as its count).
//          `block_sums[b]`: the sum of block b (reduce_blocks).
// Workgroup: WG threads, each handling ITEMS elements, so a block is WG*ITEMS elements. Blocks
//          are numbered wid.x + wid.y * num_workgroups.x (dispatch.wgsl; 2D past 65535 blocks);
//          workgroups past the last block exit at once.
// Levels:  level 0 scans the data; level k scans the block sums of level k-1. n_k is derived from
//          n in-kernel: n_{k+1} = ceil((n_k + 1) / (WG*ITEMS)).
// Override constants: WG (threads per workgroup), ITEMS (elements per thread).
// Variants: the workgroup scan of wg-scan.wgsl (subgroup or portable).

override WG: u32 = 256u;
override ITEMS: u32 = 4u;

struct ScanParams {
  level: u32,
  count_index: u32,
  total_index: u32, // level 0 also writes the total to count[total_index] (0xffffffff: don't)
  _pad1: u32,
}

@group(0) @binding(0) var<uniform> params: ScanParams;
@group(0) @binding(1) var<storage, read_write> count: array<u32>;
@group(0) @binding(2) var<storage, read> input: array<u32>;
@group(0) @binding(3) var<storage, read_write> output: array<u32>;
@group(0) @binding(4) var<storage, read_write> block_sums: array<u32>;
@group(0) @binding(5) var<storage, read> block_offsets: array<u32>;

var<workgroup> tile: array<u32, WG * ITEMS>;

fn level_size() -> u32 {
  var n = count[params.count_index];
  let block = WG * ITEMS;
  for (var k = 0u; k < params.level; k++) {
    n = (n + block) / block; // ceil((n + 1) / block)
  }
  return n;
}

var<workgroup> wg_level_size: u32;

// The level size as a workgroup-uniform value (`count` is read_write, so its loads are not
// uniform for the analysis; barriers follow the early exit below).
fn uniform_level_size(lid: u32) -> u32 {
  if (lid == 0u) {
    wg_level_size = level_size();
  }
  return workgroupUniformLoad(&wg_level_size);
}

// Coalesced load of one block into workgroup memory: thread t reads elements t, t+WG, ...
fn load_tile(base: u32, n: u32, lid: u32) {
  for (var k = 0u; k < ITEMS; k++) {
    let i = base + k * WG + lid;
    var v = 0u;
    if (i < n) {
      v = input[i];
    }
    tile[k * WG + lid] = v;
  }
}

#include "wg-scan"
#include "dispatch"

// This workgroup's block of the level: the level's size n (workgroup-uniform), the block's
// number and its first element. Blocks with base > n are past the level (their workgroup exits).
struct LevelBlock {
  n: u32,
  index: u32,
  base: u32,
}

fn level_block(lid: u32, wid: vec3u, nwg: vec3u) -> LevelBlock {
  let n = uniform_level_size(lid);
  let index = block_id(wid, nwg);
  return LevelBlock(n, index, index * WG * ITEMS);
}

// Loads the block at `base` into `tile` and scans the threads' sums of their ITEMS elements
// across the workgroup: vec2u(this thread's exclusive prefix, the block's total).
fn scan_thread_sums(inv: ScanInvocation, base: u32, n: u32) -> vec2u {
  load_tile(base, n, inv.lid);
  workgroupBarrier();
  var sum = 0u;
  for (var k = 0u; k < ITEMS; k++) {
    sum += tile[inv.lid * ITEMS + k];
  }
  return workgroup_scan(inv, sum);
}

@compute @workgroup_size(WG)
fn reduce_blocks(
  inv: ScanInvocation,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let b = level_block(inv.lid, wid, nwg);
  if (b.base > b.n) {
    return; // workgroup-uniform
  }
  let scanned = scan_thread_sums(inv, b.base, b.n);
  if (inv.lid == 0u) {
    block_sums[b.index] = scanned.y;
  }
}

@compute @workgroup_size(WG)
fn scan_blocks(
  inv: ScanInvocation,
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
) {
  let b = level_block(inv.lid, wid, nwg);
  if (b.base > b.n) {
    return; // workgroup-uniform
  }
  let scanned = scan_thread_sums(inv, b.base, b.n);
  let lid = inv.lid;
  var running = block_offsets[b.index] + scanned.x;
  for (var k = 0u; k < ITEMS; k++) {
    let v = tile[lid * ITEMS + k];
    tile[lid * ITEMS + k] = running;
    running += v;
  }
  workgroupBarrier();
  for (var k = 0u; k < ITEMS; k++) {
    let i = b.base + k * WG + lid;
    if (i <= b.n) {
      output[i] = tile[k * WG + lid];
      if (i == b.n && params.level == 0u && params.total_index != 0xffffffffu) {
        count[params.total_index] = tile[k * WG + lid];
      }
    }
  }
}
