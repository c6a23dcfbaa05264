// colour-correct: the sums behind a colour-corrected PSNR (train/colour-correct.ts), over exactly
// the pixels and the target the loss's PSNR scores (loss-target.wgsl: masked pixels left out, a
// random or alpha background composited over `background`), as two-level reductions in a fixed
// order (no float atomics: the same render gives the same bits every time).
//   colour_moments: per block of BLOCK_PIXELS pixels, the moments of x = render - 0.5 and
//                   t = target - 0.5 over its kept pixels, one row of MOMENTS floats of `partials`:
//                   [0] count, [1..3] sum x, [4..6] sum t, [7..12] sum x_i x_j (00 11 22 01 02 12),
//                   [13..21] sum x_i t_r at 13 + 3 i + r, [22..23] 0
//   colour_sse:     per block, the sum over kept pixels and channels of
//                   (clamp(A [rgb, 1], 0, 1) - target)^2, A the fitted 3x4 (cp.affine_r*), in
//                   column 0 of the block's row
//   colour_totals:  one workgroup sums columns 0..cp.columns of the blocks' rows into `totals`
//                   (each thread a fixed stride of rows, then a workgroup tree)
// Centred at 0.5: sums of float32 products of values in [-0.5, 0.5] keep more of the normal
//   equations' information than those of [0, 1] (the fit is shift-invariant; the host undoes the
//   shift in float64, colour-correct.ts affineFromMoments).
// Inputs: render (vec4 per pixel: the evaluation's clamped render, loss.wgsl clamp_image), targets
//   (RGBA8 words at cp.target_offset, targets.ts).
// Workgroup: WG threads, 1D; block b's thread i takes pixels b BLOCK_PIXELS + k WG + i
//   (k < PIXELS_PER_THREAD: neighbouring threads read neighbouring pixels); blocks spread over a
//   2D dispatch (dispatch.wgsl). The tree reduces 8 columns at a time (8 KiB of workgroup memory).
//   64 pixels a thread: the trees' barriers are what costs on a CPU device (llvmpipe, 800x800:
//   550 ms at 4 pixels a thread, 220 at 16, 100 at 64); a 1920x1440 image is still 169 blocks.
// Both capability variants compile this one body (no subgroup operations: the order is fixed).
// Invariant: the kept-pixel count is a float32 sum, exact below 2^24 pixels (a 16-Mpx image);
//   past that it rounds by 1e-7 relative, which moves the fit by as little.

#include "dispatch"
#include "loss-target"

const WG: u32 = 256u;
const PIXELS_PER_THREAD: u32 = 64u;
const BLOCK_PIXELS: u32 = 16384u; // WG x PIXELS_PER_THREAD
const MOMENTS: u32 = 24u; // floats per block row (22 moments, 2 zeros: three rounds of 8)
const ROUND: u32 = 8u; // columns per workgroup tree

struct ColourParams {
  pixels: u32,
  target_offset: u32,
  blocks: u32,
  columns: u32, // colour_totals: the leading columns of each row to sum
  background: vec3f, // what RANDOM_BACKGROUND composites the target over
  _pad0: f32,
  affine_r: vec4f, // colour_sse: row r of A (coefficients of r, g, b, then the offset)
  affine_g: vec4f,
  affine_b: vec4f,
}

@group(0) @binding(0) var<uniform> cp: ColourParams;
@group(0) @binding(1) var<storage, read> render: array<vec4f>;
@group(0) @binding(2) var<storage, read> targets: array<u32>;
@group(0) @binding(3) var<storage, read_write> partials: array<f32>;
@group(0) @binding(4) var<storage, read_write> totals: array<f32>;

var<workgroup> s_sum: array<f32, ROUND * WG>;

// Sums s_sum's ROUND columns (WG values each) into their first element, in a fixed tree.
fn sum_round(li: u32) {
  workgroupBarrier();
  for (var stride = WG / 2u; stride > 0u; stride >>= 1u) {
    if (li < stride) {
      for (var j = 0u; j < ROUND; j++) {
        s_sum[j * WG + li] += s_sum[j * WG + li + stride];
      }
    }
    workgroupBarrier();
  }
}

// The block's thread `li` writes its per-column values `acc`, round by round, as the block's row.
fn write_block_row(block: u32, li: u32, acc: ptr<function, array<f32, MOMENTS>>, rounds: u32) {
  for (var round = 0u; round < rounds; round++) {
    for (var j = 0u; j < ROUND; j++) {
      s_sum[j * WG + li] = (*acc)[round * ROUND + j];
    }
    sum_round(li);
    if (li == 0u && block < cp.blocks) {
      for (var j = 0u; j < ROUND; j++) {
        partials[block * MOMENTS + round * ROUND + j] = s_sum[j * WG];
      }
    }
    workgroupBarrier(); // s_sum is rewritten by the next round
  }
}

@compute @workgroup_size(WG)
fn colour_moments(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) li: u32) {
  let block = block_id(wid, nwg);
  var count = 0.0;
  var sx = vec3f(0.0);
  var st = vec3f(0.0);
  var xx = vec3f(0.0); // x_i x_i
  var xo = vec3f(0.0); // x_0 x_1, x_0 x_2, x_1 x_2
  var xt0 = vec3f(0.0); // x_0 t
  var xt1 = vec3f(0.0);
  var xt2 = vec3f(0.0);
  for (var k = 0u; k < PIXELS_PER_THREAD; k++) {
    let p = block * BLOCK_PIXELS + k * WG + li;
    if (block >= cp.blocks || p >= cp.pixels) {
      break;
    }
    let packed = targets[cp.target_offset + p];
    if (!target_word_kept(packed)) {
      continue;
    }
    let x = render[p].xyz - vec3f(0.5);
    let t = target_word_rgb(packed, cp.background) - vec3f(0.5);
    count += 1.0;
    sx += x;
    st += t;
    xx += x * x;
    xo += vec3f(x.x * x.y, x.x * x.z, x.y * x.z);
    xt0 += x.x * t;
    xt1 += x.y * t;
    xt2 += x.z * t;
  }
  var acc = array<f32, MOMENTS>(
    count, sx.x, sx.y, sx.z, st.x, st.y, st.z,
    xx.x, xx.y, xx.z, xo.x, xo.y, xo.z,
    xt0.x, xt0.y, xt0.z, xt1.x, xt1.y, xt1.z, xt2.x, xt2.y, xt2.z,
    0.0, 0.0,
  );
  write_block_row(block, li, &acc, MOMENTS / ROUND);
}

@compute @workgroup_size(WG)
fn colour_sse(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u, @builtin(local_invocation_index) li: u32) {
  let block = block_id(wid, nwg);
  var sse = 0.0;
  for (var k = 0u; k < PIXELS_PER_THREAD; k++) {
    let p = block * BLOCK_PIXELS + k * WG + li;
    if (block >= cp.blocks || p >= cp.pixels) {
      break;
    }
    let packed = targets[cp.target_offset + p];
    if (!target_word_kept(packed)) {
      continue;
    }
    let x = vec4f(render[p].xyz, 1.0);
    let corrected = clamp(vec3f(dot(cp.affine_r, x), dot(cp.affine_g, x), dot(cp.affine_b, x)), vec3f(0.0), vec3f(1.0));
    let d = corrected - target_word_rgb(packed, cp.background);
    sse += dot(d, d);
  }
  var acc: array<f32, MOMENTS>;
  acc[0] = sse;
  write_block_row(block, li, &acc, 1u);
}

@compute @workgroup_size(WG)
fn colour_totals(@builtin(local_invocation_index) li: u32) {
  for (var first = 0u; first < cp.columns; first += ROUND) {
    for (var j = 0u; j < ROUND; j++) {
      var s = 0.0;
      if (first + j < cp.columns) {
        for (var row = li; row < cp.blocks; row += WG) {
          s += partials[row * MOMENTS + first + j];
        }
      }
      s_sum[j * WG + li] = s;
    }
    sum_round(li);
    if (li < ROUND && first + li < cp.columns) {
      totals[first + li] = s_sum[li * WG];
    }
    workgroupBarrier();
  }
}
