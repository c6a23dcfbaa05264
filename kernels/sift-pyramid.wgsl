// sift-pyramid: the Gaussian scale space and its differences (main/engine/sfm/sift-pyramid.ts).
//   blur_rows:    dst = src blurred along x by weights[weights_offset .. + 2 radius + 1]
//   blur_columns: the same along y (the separable Gaussian's second pass)
//   downsample:   dst(x, y) = src(2x, 2y) (the next octave's level 0 from level S of this one)
//   difference:   dst level l = src level l + 1 - src level l, l < levels (the DoG)
// Inputs: pp (PyramidParams), src (f32 per pixel from src_offset, rows of src_width), weights.
// Outputs: dst (f32 per pixel from dst_offset, rows of width).
// Workgroup: 16x16 output pixels; the blurs stage a 16 x (16 + 2 MAX_RADIUS) strip with its
//   halo in workgroup memory (3 KiB), reading each input pixel once per workgroup.
// Borders clamp to the edge pixel (tests/reference/sift.ts does the same). Sums run k = -radius..radius.
// Invariant: radius <= MAX_RADIUS (sift-options.ts MAX_BLUR_RADIUS, checked on the host).

const TILE: u32 = 16u;
const MAX_RADIUS: u32 = 16u;
const STRIP: u32 = 48u; // TILE + 2 MAX_RADIUS

struct PyramidParams {
  width: u32,
  height: u32,
  src_offset: u32,
  dst_offset: u32,
  radius: u32,
  weights_offset: u32,
  src_width: u32,
  levels: u32,
}

@group(0) @binding(0) var<uniform> pp: PyramidParams;
@group(0) @binding(1) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;
@group(0) @binding(3) var<storage, read> weights: array<f32>;

var<workgroup> strip: array<f32, TILE * STRIP>;

@compute @workgroup_size(TILE, TILE, 1)
fn blur_rows(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_id) lid: vec3u) {
  let w = i32(pp.width);
  let h = i32(pp.height);
  let x0 = i32(wg.x * TILE) - i32(MAX_RADIUS);
  let y = min(i32(wg.y * TILE + lid.y), h - 1);
  for (var i = lid.x; i < STRIP; i += TILE) {
    let sx = clamp(x0 + i32(i), 0, w - 1);
    strip[lid.y * STRIP + i] = src[pp.src_offset + u32(y * w + sx)];
  }
  workgroupBarrier();
  let x = wg.x * TILE + lid.x;
  let yo = wg.y * TILE + lid.y;
  if (x >= pp.width || yo >= pp.height) {
    return;
  }
  let r = i32(pp.radius);
  var sum = 0.0;
  for (var k = -r; k <= r; k++) {
    sum += weights[pp.weights_offset + u32(k + r)] * strip[lid.y * STRIP + u32(i32(lid.x + MAX_RADIUS) + k)];
  }
  dst[pp.dst_offset + yo * pp.width + x] = sum;
}

@compute @workgroup_size(TILE, TILE, 1)
fn blur_columns(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_id) lid: vec3u) {
  let w = i32(pp.width);
  let h = i32(pp.height);
  let y0 = i32(wg.y * TILE) - i32(MAX_RADIUS);
  let x = min(i32(wg.x * TILE + lid.x), w - 1);
  for (var i = lid.y; i < STRIP; i += TILE) {
    let sy = clamp(y0 + i32(i), 0, h - 1);
    strip[i * TILE + lid.x] = src[pp.src_offset + u32(sy * w + x)];
  }
  workgroupBarrier();
  let xo = wg.x * TILE + lid.x;
  let y = wg.y * TILE + lid.y;
  if (xo >= pp.width || y >= pp.height) {
    return;
  }
  let r = i32(pp.radius);
  var sum = 0.0;
  for (var k = -r; k <= r; k++) {
    sum += weights[pp.weights_offset + u32(k + r)] * strip[u32(i32(lid.y + MAX_RADIUS) + k) * TILE + lid.x];
  }
  dst[pp.dst_offset + y * pp.width + xo] = sum;
}

@compute @workgroup_size(TILE, TILE, 1)
fn downsample(@builtin(global_invocation_id) id: vec3u) {
  if (id.x >= pp.width || id.y >= pp.height) {
    return;
  }
  dst[pp.dst_offset + id.y * pp.width + id.x] = src[pp.src_offset + 2u * id.y * pp.src_width + 2u * id.x];
}

@compute @workgroup_size(TILE, TILE, 1)
fn difference(@builtin(global_invocation_id) id: vec3u) {
  if (id.x >= pp.width || id.y >= pp.height) {
    return;
  }
  let plane = pp.width * pp.height;
  let p = id.y * pp.width + id.x;
  for (var l = 0u; l < pp.levels; l++) {
    dst[pp.dst_offset + l * plane + p] = src[pp.src_offset + (l + 1u) * plane + p] - src[pp.src_offset + l * plane + p];
  }
}
