// sift-pyramid: the Gaussian scale space and its differences (main/engine/sfm/sift-pyramid.ts).
//   blur_rows:    dst = src blurred along x by weights[weights_offset .. + 2 radius + 1]
//   blur_columns: the same along y (the separable Gaussian's second pass)
//   blur_columns_dog: blur_columns into Gaussian level s (dst from dst_offset) that also writes
//     DoG level s - 1 = level s - level s - 1 (level s - 1 is dst's plane before dst_offset) to dog
//     from dog_offset: the same f32 subtraction a separate pass would do, without reading 2 S + 4
//     planes and writing S + 2 again (that pass cost as much as the row blurs on llvmpipe).
//   downsample:   dst(x, y) = src(2x, 2y) (the next octave's level 0 from level S of this one)
// Inputs: pp (PyramidParams), src (f32 per pixel from src_offset, rows of src_width), weights.
// Outputs: dst (f32 per pixel from dst_offset, rows of width), dog (blur_columns_dog).
// Workgroup: blurs 64 threads, each a run of RUN = 8 outputs along its axis (rows: runs along x;
//   columns: along y, neighbouring threads on neighbouring columns); the others 16x16 pixels.
//   Measured on llvmpipe against 16x16 tiles staging a strip with its halo in workgroup memory
//   (the textbook layout): see sift-pyramid.ts.
// Borders clamp to the edge pixel (tests/reference/sift.ts does the same). Sums run k = -radius..radius.
// Invariant: RADIUS (= pp.radius) <= MAX_RADIUS (sift-options.ts MAX_BLUR_RADIUS, checked on the host).

const TILE: u32 = 16u;
const MAX_RADIUS: u32 = 16u;
const RUN: u32 = 8u;
const WINDOW: u32 = 40u; // RUN + 2 MAX_RADIUS
override RADIUS: u32 = 16u;

struct PyramidParams {
  width: u32,
  height: u32,
  src_offset: u32,
  dst_offset: u32,
  radius: u32,
  weights_offset: u32,
  src_width: u32,
  dog_offset: u32,
}

@group(0) @binding(0) var<uniform> pp: PyramidParams;
@group(0) @binding(1) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;
@group(0) @binding(3) var<storage, read> weights: array<f32>;
@group(0) @binding(4) var<storage, read_write> dog: array<f32>;

// One thread blurs a run of RUN outputs along the pass's axis from a window of RUN + 2 RADIUS
// inputs it loads once; RADIUS is an override constant (one pipeline per radius), so every loop has
// a constant trip count, unrolls, and the window and weights stay in registers. Sums run k = 0..2 RADIUS.
@compute @workgroup_size(64, 1, 1)
fn blur_rows(@builtin(global_invocation_id) id: vec3u) {
  let x0 = id.x * RUN;
  if (x0 >= pp.width || id.y >= pp.height) {
    return;
  }
  let last = i32(pp.width) - 1;
  let row = pp.src_offset + id.y * pp.width;
  var window: array<f32, WINDOW>;
  for (var i = 0u; i < RUN + 2u * RADIUS; i++) {
    window[i] = src[row + u32(clamp(i32(x0 + i) - i32(RADIUS), 0, last))];
  }
  var taps: array<f32, 2u * MAX_RADIUS + 1u>;
  for (var k = 0u; k <= 2u * RADIUS; k++) {
    taps[k] = weights[pp.weights_offset + k];
  }
  for (var o = 0u; o < RUN; o++) {
    var sum = 0.0;
    for (var k = 0u; k <= 2u * RADIUS; k++) {
      sum += taps[k] * window[o + k];
    }
    if (x0 + o < pp.width) {
      dst[pp.dst_offset + id.y * pp.width + x0 + o] = sum;
    }
  }
}

// The RUN column sums from row y0 of column x (both in range), blur_columns' and blur_columns_dog's.
fn column_sums(x: u32, y0: u32) -> array<f32, RUN> {
  let last = i32(pp.height) - 1;
  var window: array<f32, WINDOW>;
  for (var i = 0u; i < RUN + 2u * RADIUS; i++) {
    window[i] = src[pp.src_offset + u32(clamp(i32(y0 + i) - i32(RADIUS), 0, last)) * pp.width + x];
  }
  var taps: array<f32, 2u * MAX_RADIUS + 1u>;
  for (var k = 0u; k <= 2u * RADIUS; k++) {
    taps[k] = weights[pp.weights_offset + k];
  }
  var sums: array<f32, RUN>;
  for (var o = 0u; o < RUN; o++) {
    var sum = 0.0;
    for (var k = 0u; k <= 2u * RADIUS; k++) {
      sum += taps[k] * window[o + k];
    }
    sums[o] = sum;
  }
  return sums;
}

@compute @workgroup_size(64, 1, 1)
fn blur_columns(@builtin(global_invocation_id) id: vec3u) {
  let y0 = id.y * RUN;
  if (id.x >= pp.width || y0 >= pp.height) {
    return;
  }
  let sums = column_sums(id.x, y0);
  for (var o = 0u; o < RUN; o++) {
    if (y0 + o < pp.height) {
      dst[pp.dst_offset + (y0 + o) * pp.width + id.x] = sums[o];
    }
  }
}

@compute @workgroup_size(64, 1, 1)
fn blur_columns_dog(@builtin(global_invocation_id) id: vec3u) {
  let y0 = id.y * RUN;
  if (id.x >= pp.width || y0 >= pp.height) {
    return;
  }
  let sums = column_sums(id.x, y0);
  let plane = pp.width * pp.height;
  for (var o = 0u; o < RUN; o++) {
    if (y0 + o < pp.height) {
      let p = (y0 + o) * pp.width + id.x;
      dst[pp.dst_offset + p] = sums[o];
      dog[pp.dog_offset + p] = sums[o] - dst[pp.dst_offset - plane + p];
    }
  }
}

@compute @workgroup_size(TILE, TILE, 1)
fn downsample(@builtin(global_invocation_id) id: vec3u) {
  if (id.x >= pp.width || id.y >= pp.height) {
    return;
  }
  dst[pp.dst_offset + id.y * pp.width + id.x] = src[pp.src_offset + 2u * id.y * pp.src_width + 2u * id.x];
}
