// edit-select: tests every splat against one selection shape and combines the result with the
// current selection, in one dispatch (issue 17: 10M splats stay interactive).
//
// select_splats: one thread per splat, WG threads a workgroup (WG a multiple of 32, at most 256:
//   the workgroup owns WG / 32 whole mask words, so no word is written by two workgroups and the
//   words need no global atomics); 2D dispatch past 65535 workgroups (dispatch.wgsl).
// Inputs:  params (the shape, the camera for screen shapes, mode, counts), the splats' means,
//          log scales, opacity logits and DC colour coefficients (3, 1, 3 f32 per splat),
//          shape_points (lasso vertices xy, or brush circles xy + radius z, in pixels; then one
//          vec4 per band (x: first item entry, y: entries, as u32 bits) and the bands' item
//          indices, 4 u32 bits a vec4: a point tests only its band's edges or circles, which are
//          every one whose y range can reach it, so the answer is the all-items test's),
//          current and exclude (bitmask words: bit i & 31 of word i >> 5 for splat i).
// Outputs: out[w] for w < words: the new selection's words; out[words]: its popcount (added by
//          one atomic per workgroup, so the host must zero it first; integer sums are exact, the
//          count does not depend on the order).
// Per splat: shape hit s (screen shapes: the centre through the pinhole camera, z <= near never
//   hits). Per word: replace s, add c | s, subtract c & ~s, intersect c & s, invert ~c, all ~0,
//   none 0; then & ~exclude and bits past `count` cleared.
// Override constants: WG.
// Invariant: the tests here and in main/engine/edit/select-reference.ts are the same formulas
//   (inclusive bounds, even-odd crossing rule); they differ only where float32 rounding moves a
//   splat across a boundary, which the parity test allows within the reference's margins.

override WG: u32 = 256u;

const SHAPE_NONE: u32 = 0u;
const SHAPE_RECT: u32 = 1u;
const SHAPE_LASSO: u32 = 2u;
const SHAPE_BRUSH: u32 = 3u;
const SHAPE_BOX: u32 = 4u;
const SHAPE_ELLIPSOID: u32 = 5u;
const SHAPE_OPACITY: u32 = 6u;
const SHAPE_SIZE: u32 = 7u;
const SHAPE_COLOUR: u32 = 8u;

const MODE_REPLACE: u32 = 0u;
const MODE_ADD: u32 = 1u;
const MODE_SUBTRACT: u32 = 2u;
const MODE_INTERSECT: u32 = 3u;
const MODE_INVERT: u32 = 4u;
const MODE_ALL: u32 = 5u;
const MODE_NONE: u32 = 6u;

const SH_C0: f32 = 0.28209479177387814;

struct SelectParams {
  r0: vec4f, // world -> camera rows of [R | t] (OpenCV axes)
  r1: vec4f,
  r2: vec4f,
  focal: vec2f,
  principal: vec2f,
  bounds: vec4f, // rect: min.xy, max.xy; lasso and brush: their bounding box (a cheap reject)
  solid_centre: vec4f, // box and ellipsoid: centre (xyz)
  solid_axis0: vec4f, // the solid's axes in world space (unit), w = half size along it
  solid_axis1: vec4f,
  solid_axis2: vec4f,
  colour: vec4f, // reference rgb, w = distance
  range: vec2f, // opacity or size: [min, max]
  near: f32,
  count: u32,
  words: u32,
  shape: u32,
  mode: u32,
  points: u32, // lasso vertices or brush circles in shape_points
  bands: u32, // lasso and brush: horizontal bands of the bounding box, each listing the items (edges, circles) that reach it
  band_y0: f32, // the first band's top (pixels)
  band_scale: f32, // bands per pixel
  _pad0: u32,
}

#include "dispatch"

@group(0) @binding(0) var<uniform> params: SelectParams;
@group(0) @binding(1) var<storage, read> means: array<f32>;
@group(0) @binding(2) var<storage, read> log_scales: array<f32>;
@group(0) @binding(3) var<storage, read> opacity_logits: array<f32>;
@group(0) @binding(4) var<storage, read> dc: array<f32>;
@group(0) @binding(5) var<storage, read> shape_points: array<vec4f>;
@group(0) @binding(6) var<storage, read> current: array<u32>;
@group(0) @binding(7) var<storage, read> exclude: array<u32>;
@group(0) @binding(8) var<storage, read_write> out: array<atomic<u32>>;

var<workgroup> hits: array<atomic<u32>, 8>;
var<workgroup> selected: atomic<u32>;

fn lasso_crossing(p: vec2f, j: u32) -> bool {
  let a = shape_points[j].xy;
  let b = shape_points[select(j + 1u, 0u, j + 1u == params.points)].xy;
  if ((a.y > p.y) != (b.y > p.y)) {
    let x = (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x;
    return p.x < x;
  }
  return false;
}

// The band of shape_points a point's row falls in: (first item entry, entries).
fn band_of(p: vec2f) -> vec2u {
  let band = u32(clamp(floor((p.y - params.band_y0) * params.band_scale), 0.0, f32(params.bands - 1u)));
  return bitcast<vec2u>(shape_points[params.points + band].xy);
}

fn band_item(k: u32) -> u32 {
  return bitcast<u32>(shape_points[params.points + params.bands + k / 4u][k % 4u]);
}

fn inside_lasso(p: vec2f) -> bool {
  var inside = false;
  let entry = band_of(p);
  for (var k = entry.x; k < entry.x + entry.y; k++) {
    inside = inside != lasso_crossing(p, band_item(k));
  }
  return inside;
}

fn inside_brush(p: vec2f) -> bool {
  let entry = band_of(p);
  for (var k = entry.x; k < entry.x + entry.y; k++) {
    let c = shape_points[band_item(k)];
    let d = p - c.xy;
    if (dot(d, d) <= c.z * c.z) {
      return true;
    }
  }
  return false;
}

fn screen_hit(p: vec3f) -> bool {
  let pc = vec3f(dot(params.r0.xyz, p) + params.r0.w, dot(params.r1.xyz, p) + params.r1.w, dot(params.r2.xyz, p) + params.r2.w);
  if (!(pc.z > params.near)) {
    return false;
  }
  let uv = params.focal * pc.xy / pc.z + params.principal;
  let b = params.bounds;
  if (!(uv.x >= b.x && uv.y >= b.y && uv.x <= b.z && uv.y <= b.w)) {
    return false;
  }
  if (params.shape == SHAPE_LASSO) {
    return inside_lasso(uv);
  }
  if (params.shape == SHAPE_BRUSH) {
    return inside_brush(uv);
  }
  return true;
}

fn solid_local(p: vec3f) -> vec3f {
  let d = p - params.solid_centre.xyz;
  return vec3f(dot(d, params.solid_axis0.xyz), dot(d, params.solid_axis1.xyz), dot(d, params.solid_axis2.xyz)) / vec3f(params.solid_axis0.w, params.solid_axis1.w, params.solid_axis2.w);
}

fn shape_hit(i: u32) -> bool {
  let shape = params.shape;
  if (shape == SHAPE_NONE) {
    return false;
  }
  if (shape <= SHAPE_ELLIPSOID) {
    let p = vec3f(means[3u * i], means[3u * i + 1u], means[3u * i + 2u]);
    if (shape <= SHAPE_BRUSH) {
      return screen_hit(p);
    }
    let q = solid_local(p);
    if (shape == SHAPE_BOX) {
      return all(abs(q) <= vec3f(1.0));
    }
    return dot(q, q) <= 1.0;
  }
  if (shape == SHAPE_OPACITY) {
    let opacity = 1.0 / (1.0 + exp(-opacity_logits[i]));
    return opacity >= params.range.x && opacity <= params.range.y;
  }
  if (shape == SHAPE_SIZE) {
    let size = exp(max(log_scales[3u * i], max(log_scales[3u * i + 1u], log_scales[3u * i + 2u])));
    return size >= params.range.x && size <= params.range.y;
  }
  let rgb = clamp(vec3f(0.5) + SH_C0 * vec3f(dc[3u * i], dc[3u * i + 1u], dc[3u * i + 2u]), vec3f(0.0), vec3f(1.0));
  let d = rgb - params.colour.xyz;
  return dot(d, d) <= params.colour.w * params.colour.w;
}

fn combine(s: u32, c: u32) -> u32 {
  switch (params.mode) {
    case MODE_REPLACE: { return s; }
    case MODE_ADD: { return c | s; }
    case MODE_SUBTRACT: { return c & ~s; }
    case MODE_INTERSECT: { return c & s; }
    case MODE_INVERT: { return ~c; }
    case MODE_ALL: { return 0xffffffffu; }
    default: { return 0u; }
  }
}

@compute @workgroup_size(WG)
fn select_splats(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let block = block_id(wid, nwg);
  let i = block * WG + lid;
  let words_here = WG / 32u;
  if (lid < words_here) {
    atomicStore(&hits[lid], 0u);
  }
  if (lid == 0u) {
    atomicStore(&selected, 0u);
  }
  workgroupBarrier();
  // Modes that ignore the shape skip its test (the host also sends SHAPE_NONE with them).
  if (i < params.count && params.mode <= MODE_INTERSECT && shape_hit(i)) {
    atomicOr(&hits[lid / 32u], 1u << (lid % 32u));
  }
  workgroupBarrier();
  let w = block * words_here + lid;
  if (lid < words_here && w < params.words) {
    var word = combine(atomicLoad(&hits[lid]), current[w]) & ~exclude[w];
    let first = w * 32u;
    if (first + 32u > params.count) {
      word = word & ((1u << (params.count - first)) - 1u);
    }
    atomicStore(&out[w], word);
    atomicAdd(&selected, countOneBits(word));
  }
  workgroupBarrier();
  if (lid == 0u) {
    let n = atomicLoad(&selected);
    if (n != 0u) {
      atomicAdd(&out[params.words], n);
    }
  }
}
