// sift-detect: scale-space extrema of one octave's DoG, refined and tested
// (main/engine/sfm/sift-detect.ts; tests/reference/sift.ts referenceDetect is the same procedure).
//   detect_extrema: thread (x, y), for each level s = 1..levels: |D| >= pre_threshold and D strictly
//     above (or below) its 26 neighbours; then up to REFINE_STEPS quadratic fits D(p + o) = D + g.o + o.H.o / 2
//     (central differences), o = -H^-1 g by Cramer's rule, moving to the neighbour sample where any
//     |o| >= 0.5 (rounded half away from zero); dropped if it leaves [border, size - border) x
//     [1, levels], moves more than max_offset at once or has not settled; then the contrast test
//     |D + g.o / 2| >= peak_threshold and the edge test tr^2 r < (r + 1)^2 det, det > 0.
// Inputs: dp (DetectParams), dog (levels + 2 planes of width x height).
// Outputs: keypoints (one Keypoint per survivor, in the order atomics give: the host sorts them),
//   counter[0] (how many survived, which may exceed capacity: then only capacity were written).
// Workgroup: 16x16 pixels, every level. A thread loads its 3x3 column of all levels + 2 once
//   (45 values, not 27 per level) and tests each level against the max / min of its neighbours
//   without early exits: on llvmpipe, which runs 8 lanes together, a thread per (x, y, s) with an
//   early-exit neighbour loop took as long as all the blurs.

const REFINE_STEPS: u32 = 5u;

struct DetectParams {
  width: u32,
  height: u32,
  levels: u32,
  border: u32,
  peak_threshold: f32,
  pre_threshold: f32,
  edge_ratio: f32,
  max_offset: f32,
  capacity: u32,
  octave: u32,
  _pad0: u32,
  _pad1: u32,
}

struct Keypoint {
  x: f32,
  y: f32,
  s: f32,
  response: f32,
  octave: u32,
  xi: u32,
  yi: u32,
  si: u32,
}

@group(0) @binding(0) var<uniform> dp: DetectParams;
@group(0) @binding(1) var<storage, read> dog: array<f32>;
@group(0) @binding(2) var<storage, read_write> keypoints: array<Keypoint>;
@group(0) @binding(3) var<storage, read_write> counter: array<atomic<u32>>;

fn dog_at(x: i32, y: i32, s: i32) -> f32 {
  return dog[(u32(s) * dp.height + u32(y)) * dp.width + u32(x)];
}

// D strictly above every neighbour (D > 0) or strictly below every one (D <= 0): the same test as
// comparing one neighbour at a time (DoG values are finite), on their max and min.
fn is_extremum(v: f32, neighbours_max: f32, neighbours_min: f32) -> bool {
  return select((v < neighbours_min), (v > neighbours_max), (v > 0.0));
}

fn round_away(v: f32) -> i32 {
  return i32(sign(v) * floor(abs(v) + 0.5));
}

const MAX_LEVELS: u32 = 8u; // levels + 2 <= 8 (sift-options.ts: scalesPerOctave <= 6)

@compute @workgroup_size(16, 16, 1)
fn detect_extrema(@builtin(global_invocation_id) id: vec3u) {
  let b = i32(dp.border);
  let x0 = i32(id.x);
  let y0 = i32(id.y);
  if (x0 < b || y0 < b || x0 >= i32(dp.width) - b || y0 >= i32(dp.height) - b) {
    return;
  }
  var any_candidate = false;
  for (var s = 1u; s <= dp.levels; s++) {
    any_candidate = any_candidate || abs(dog_at(x0, y0, i32(s))) >= dp.pre_threshold;
  }
  if (!any_candidate) {
    return;
  }
  // per level: the max and min of its 3x3 (centre included for the levels above and below,
  // excluded for its own), and the centre
  var ring_max: array<f32, MAX_LEVELS>;
  var ring_min: array<f32, MAX_LEVELS>;
  var full_max: array<f32, MAX_LEVELS>;
  var full_min: array<f32, MAX_LEVELS>;
  var centre: array<f32, MAX_LEVELS>;
  for (var s = 0u; s < dp.levels + 2u; s++) {
    var hi = -3.0e38;
    var lo = 3.0e38;
    for (var dy = -1; dy <= 1; dy++) {
      for (var dx = -1; dx <= 1; dx++) {
        if (dx == 0 && dy == 0) {
          continue;
        }
        let n = dog_at(x0 + dx, y0 + dy, i32(s));
        hi = max(hi, n);
        lo = min(lo, n);
      }
    }
    let c = dog_at(x0, y0, i32(s));
    centre[s] = c;
    ring_max[s] = hi;
    ring_min[s] = lo;
    full_max[s] = max(hi, c);
    full_min[s] = min(lo, c);
  }
  for (var s = 1u; s <= dp.levels; s++) {
    let v = centre[s];
    let neighbours_max = max(ring_max[s], max(full_max[s - 1u], full_max[s + 1u]));
    let neighbours_min = min(ring_min[s], min(full_min[s - 1u], full_min[s + 1u]));
    if (abs(v) >= dp.pre_threshold && is_extremum(v, neighbours_max, neighbours_min)) {
      refine(x0, y0, i32(s));
    }
  }
}

// Refines the extremum at (x0, y0, s0) and appends it to the list if it passes.
fn refine(x0: i32, y0: i32, s0: i32) {
  let b = i32(dp.border);
  let w = i32(dp.width);
  let h = i32(dp.height);
  var p = vec3i(x0, y0, s0);
  var g = vec3f(0.0);
  var o = vec3f(0.0);
  var dxx = 0.0;
  var dyy = 0.0;
  var dxy = 0.0;
  var converged = false;
  for (var step = 0u; step < REFINE_STEPS; step++) {
    let x = p.x;
    let y = p.y;
    let s = p.z;
    let c = dog_at(x, y, s);
    g = vec3f(dog_at(x + 1, y, s) - dog_at(x - 1, y, s), dog_at(x, y + 1, s) - dog_at(x, y - 1, s), dog_at(x, y, s + 1) - dog_at(x, y, s - 1)) / 2.0;
    dxx = dog_at(x + 1, y, s) + dog_at(x - 1, y, s) - 2.0 * c;
    dyy = dog_at(x, y + 1, s) + dog_at(x, y - 1, s) - 2.0 * c;
    let dss = dog_at(x, y, s + 1) + dog_at(x, y, s - 1) - 2.0 * c;
    dxy = (dog_at(x + 1, y + 1, s) - dog_at(x - 1, y + 1, s) - dog_at(x + 1, y - 1, s) + dog_at(x - 1, y - 1, s)) / 4.0;
    let dxs = (dog_at(x + 1, y, s + 1) - dog_at(x - 1, y, s + 1) - dog_at(x + 1, y, s - 1) + dog_at(x - 1, y, s - 1)) / 4.0;
    let dys = (dog_at(x, y + 1, s + 1) - dog_at(x, y - 1, s + 1) - dog_at(x, y + 1, s - 1) + dog_at(x, y - 1, s - 1)) / 4.0;
    // Cramer's rule on H o = -g (H symmetric: rows (dxx dxy dxs) (dxy dyy dys) (dxs dys dss))
    let det = dxx * (dyy * dss - dys * dys) - dxy * (dxy * dss - dys * dxs) + dxs * (dxy * dys - dyy * dxs);
    if (det == 0.0) {
      return;
    }
    let r = -g;
    o = vec3f(
      r.x * (dyy * dss - dys * dys) - dxy * (r.y * dss - dys * r.z) + dxs * (r.y * dys - dyy * r.z),
      dxx * (r.y * dss - dys * r.z) - r.x * (dxy * dss - dys * dxs) + dxs * (dxy * r.z - r.y * dxs),
      dxx * (dyy * r.z - r.y * dys) - dxy * (dxy * r.z - r.y * dxs) + r.x * (dxy * dys - dyy * dxs),
    ) / det;
    if (any(abs(o) > vec3f(dp.max_offset)) || any(o != o)) {
      return;
    }
    if (all(abs(o) < vec3f(0.5))) {
      converged = true;
      break;
    }
    p += vec3i(round_away(o.x), round_away(o.y), round_away(o.z));
    if (p.z < 1 || p.z > i32(dp.levels) || p.x < b || p.x >= w - b || p.y < b || p.y >= h - b) {
      return;
    }
  }
  if (!converged) {
    return;
  }
  let value = dog_at(p.x, p.y, p.z) + 0.5 * dot(g, o);
  if (abs(value) < dp.peak_threshold) {
    return;
  }
  let tr = dxx + dyy;
  let det2 = dxx * dyy - dxy * dxy;
  let r1 = dp.edge_ratio + 1.0;
  if (det2 <= 0.0 || tr * tr * dp.edge_ratio >= r1 * r1 * det2) {
    return;
  }
  let slot = atomicAdd(&counter[0], 1u);
  if (slot < dp.capacity) {
    keypoints[slot] = Keypoint(f32(p.x) + o.x, f32(p.y) + o.y, f32(p.z) + o.z, abs(value), dp.octave, u32(p.x), u32(p.y), u32(p.z));
  }
}
