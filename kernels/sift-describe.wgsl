// sift-describe: orientations and descriptors of one octave's keypoints
// (main/engine/sfm/sift-describe.ts; tests/reference/sift.ts referenceOrientations / referenceDescriptor).
//   orient:   thread per keypoint: a 36-bin histogram of gradient angles on its Gaussian level,
//             weighted by magnitude and a Gaussian of 1.5 sigma (radius 3 of those), each sample
//             split linearly between its two nearest bins; 6 circular [1 1 1] / 3 smoothings; the
//             local maxima >= 0.8 of the maximum, parabola-interpolated, strongest first (ties: the
//             lower bin), at most max_orientations; the rest of the keypoint's slots are -1.
//   describe: thread per (keypoint, orientation slot) with an orientation: the 4x4x8 histogram of
//             gradients in the keypoint's rotated frame (bins of 3 sigma, Gaussian window of half
//             its width, trilinear weights), L2-normalized, clamped at 0.2, renormalized, then
//             RootSIFT (L1-normalized, square root). Layout (ybin * 4 + xbin) * 8 + angle bin.
// Gradients are central differences, taken at pixels [1, size - 2] only (the same in the reference).
// Inputs: sp (DescribeParams), gauss (the octave's levels), points (first .. first + count).
//   to_bytes: thread per 4 bytes of a slot: COLMAP's min(255, round(512 v)) as floor(512 v + 0.5),
//             packed little-endian (512 v and 512 v + 0.5 are exact in float32 for v in [0, 1], so
//             these are the host's Math.round bytes, bit for bit); empty slots get bytes of whatever
//             their floats hold (the host skips them).
// Outputs: orientations (max_orientations per point), descriptors (128 per slot), descriptor_bytes (32 words per slot).
// Workgroup: 64 threads, one point (or slot) each: the work per point is a few thousand samples,
//   so a point per thread keeps each histogram's sum in one fixed order (reproducible).

const PI2: f32 = 6.283185307179586;
const BINS: u32 = 36u;
const SMOOTHINGS: u32 = 6u;
const PEAK_RATIO: f32 = 0.8;
const NBP: i32 = 4;
const NBO: u32 = 8u;
const MAGNIFICATION: f32 = 3.0;
const CLAMP: f32 = 0.2;
const MAX_SLOTS: u32 = 4u;

struct DescribeParams {
  width: u32,
  height: u32,
  first: u32,
  count: u32,
  max_orientations: u32,
  _pad0: u32,
  _pad1: u32,
  _pad2: u32,
}

// A keypoint where its gradients are sampled: octave coordinates, sigma in octave units, and the
// element offset of its Gaussian level in `gauss`.
struct SamplePoint {
  x: f32,
  y: f32,
  sigma: f32,
  level_offset: u32,
}

@group(0) @binding(0) var<uniform> sp: DescribeParams;
@group(0) @binding(1) var<storage, read> gauss: array<f32>;
@group(0) @binding(2) var<storage, read> points: array<SamplePoint>;
@group(0) @binding(3) var<storage, read_write> orientations: array<f32>;
@group(0) @binding(4) var<storage, read> orientations_in: array<f32>;
@group(0) @binding(5) var<storage, read_write> descriptors: array<f32>;
@group(0) @binding(6) var<storage, read_write> descriptor_bytes: array<u32>;

// Magnitude and angle in [0, 2 pi) of the gradient at an interior pixel.
fn gradient_at(level: u32, x: i32, y: i32) -> vec2f {
  let w = i32(sp.width);
  let gx = 0.5 * (gauss[level + u32(y * w + x + 1)] - gauss[level + u32(y * w + x - 1)]);
  let gy = 0.5 * (gauss[level + u32((y + 1) * w + x)] - gauss[level + u32((y - 1) * w + x)]);
  var angle = atan2(gy, gx);
  if (angle < 0.0) {
    angle += PI2;
  }
  if (angle >= PI2) {
    angle -= PI2;
  }
  return vec2f(sqrt(gx * gx + gy * gy), angle);
}

@compute @workgroup_size(64, 1, 1)
fn orient(@builtin(global_invocation_id) id: vec3u) {
  if (id.x >= sp.count) {
    return;
  }
  let index = sp.first + id.x;
  let k = points[index];
  let sigma_w = 1.5 * k.sigma;
  let radius = i32(floor(3.0 * sigma_w));
  let xi = i32(floor(k.x + 0.5));
  let yi = i32(floor(k.y + 0.5));
  var hist: array<f32, BINS>;
  for (var y = max(yi - radius, 1); y <= min(yi + radius, i32(sp.height) - 2); y++) {
    for (var x = max(xi - radius, 1); x <= min(xi + radius, i32(sp.width) - 2); x++) {
      let dx = f32(x) - k.x;
      let dy = f32(y) - k.y;
      let r2 = dx * dx + dy * dy;
      if (r2 >= f32(radius * radius) + 0.6) {
        continue;
      }
      let g = gradient_at(k.level_offset, x, y);
      let weight = exp(-r2 / (2.0 * sigma_w * sigma_w));
      let fbin = f32(BINS) * g.y / PI2;
      let bin = i32(floor(fbin - 0.5));
      let rbin = fbin - f32(bin) - 0.5;
      hist[u32(bin + i32(BINS)) % BINS] += (1.0 - rbin) * g.x * weight;
      hist[u32(bin + 1) % BINS] += rbin * g.x * weight;
    }
  }
  // Into a second array and back: an in-place version that kept the old value in a `let` was
  // compiled on Dawn's OpenGL backend (llvmpipe) as a re-read after the write, a causal smear that
  // moved every peak (measured: 0.3 rad came out 2.77).
  for (var it = 0u; it < SMOOTHINGS; it++) {
    var smoothed: array<f32, BINS>;
    for (var i = 0u; i < BINS; i++) {
      smoothed[i] = (hist[(i + BINS - 1u) % BINS] + hist[i] + hist[(i + 1u) % BINS]) / 3.0;
    }
    hist = smoothed;
  }
  var top = 0.0;
  for (var i = 0u; i < BINS; i++) {
    top = max(top, hist[i]);
  }
  // strongest peaks first: insertion into a short sorted list
  var values = array<f32, MAX_SLOTS>(-1.0, -1.0, -1.0, -1.0);
  var angles = array<f32, MAX_SLOTS>(-1.0, -1.0, -1.0, -1.0);
  for (var i = 0u; i < BINS; i++) {
    let hm = hist[(i + BINS - 1u) % BINS];
    let h0 = hist[i];
    let hp = hist[(i + 1u) % BINS];
    if (!(h0 > hm && h0 > hp && h0 >= PEAK_RATIO * top)) {
      continue;
    }
    let di = -0.5 * (hp - hm) / (hp + hm - 2.0 * h0);
    var angle = PI2 * (f32(i) + di + 0.5) / f32(BINS);
    angle = angle - PI2 * floor(angle / PI2);
    var value = h0;
    for (var j = 0u; j < sp.max_orientations; j++) {
      if (value > values[j]) {
        let v = values[j];
        let a = angles[j];
        values[j] = value;
        angles[j] = angle;
        value = v;
        angle = a;
      }
    }
  }
  for (var j = 0u; j < sp.max_orientations; j++) {
    orientations[index * sp.max_orientations + j] = angles[j];
  }
}

@compute @workgroup_size(64, 1, 1)
fn describe(@builtin(global_invocation_id) id: vec3u) {
  if (id.x >= sp.count * sp.max_orientations) {
    return;
  }
  let slot = sp.first * sp.max_orientations + id.x;
  let theta = orientations_in[slot];
  if (theta < 0.0) {
    return;
  }
  let k = points[slot / sp.max_orientations];
  let sbp = MAGNIFICATION * k.sigma;
  let radius = i32(floor(1.4142135623730951 * sbp * f32(NBP + 1) * 0.5 + 0.5));
  let ct = cos(theta);
  let st = sin(theta);
  let xi = i32(floor(k.x + 0.5));
  let yi = i32(floor(k.y + 0.5));
  let wsigma = f32(NBP) / 2.0;
  var d: array<f32, 128>;
  for (var y = max(yi - radius, 1); y <= min(yi + radius, i32(sp.height) - 2); y++) {
    for (var x = max(xi - radius, 1); x <= min(xi + radius, i32(sp.width) - 2); x++) {
      let dx = f32(x) - k.x;
      let dy = f32(y) - k.y;
      let nx = (ct * dx + st * dy) / sbp;
      let ny = (-st * dx + ct * dy) / sbp;
      // the window's bins reach |n| < 2 + 1 (a sample in the outer half-bin still feeds the edge bins)
      if (abs(nx) >= f32(NBP / 2 + 1) || abs(ny) >= f32(NBP / 2 + 1)) {
        continue;
      }
      let g = gradient_at(k.level_offset, x, y);
      var rel = g.y - theta;
      rel = rel - PI2 * floor(rel / PI2);
      let nt = f32(NBO) * rel / PI2;
      let win = exp(-(nx * nx + ny * ny) / (2.0 * wsigma * wsigma));
      let binx = i32(floor(nx - 0.5));
      let biny = i32(floor(ny - 0.5));
      let bint = i32(floor(nt));
      let rbinx = nx - (f32(binx) + 0.5);
      let rbiny = ny - (f32(biny) + 0.5);
      let rbint = nt - f32(bint);
      for (var dby = 0; dby < 2; dby++) {
        let by = biny + dby;
        if (by < -NBP / 2 || by >= NBP / 2) {
          continue;
        }
        for (var dbx = 0; dbx < 2; dbx++) {
          let bx = binx + dbx;
          if (bx < -NBP / 2 || bx >= NBP / 2) {
            continue;
          }
          let wxy = win * g.x * abs(1.0 - f32(dbx) - rbinx) * abs(1.0 - f32(dby) - rbiny);
          let base = u32((by + NBP / 2) * NBP + bx + NBP / 2) * NBO;
          d[base + u32(bint) % NBO] += wxy * abs(1.0 - rbint);
          d[base + u32(bint + 1) % NBO] += wxy * abs(rbint);
        }
      }
    }
  }
  var l2 = 0.0;
  for (var i = 0u; i < 128u; i++) {
    l2 += d[i] * d[i];
  }
  let n1 = select(1.0, sqrt(l2), l2 > 0.0);
  l2 = 0.0;
  for (var i = 0u; i < 128u; i++) {
    d[i] = min(d[i] / n1, CLAMP);
    l2 += d[i] * d[i];
  }
  let n2 = select(1.0, sqrt(l2), l2 > 0.0);
  var l1 = 0.0;
  for (var i = 0u; i < 128u; i++) {
    d[i] = d[i] / n2;
    l1 += d[i];
  }
  let n3 = select(1.0, l1, l1 > 0.0);
  for (var i = 0u; i < 128u; i++) {
    descriptors[slot * 128u + i] = sqrt(d[i] / n3);
  }
}

@compute @workgroup_size(64, 1, 1)
fn to_bytes(@builtin(global_invocation_id) id: vec3u) {
  if (id.x >= sp.count * sp.max_orientations * 32u) {
    return;
  }
  let word = sp.first * sp.max_orientations * 32u + id.x;
  var packed = 0u;
  for (var b = 0u; b < 4u; b++) {
    packed = packed | (u32(min(255.0, floor(512.0 * descriptors[word * 4u + b] + 0.5))) << (8u * b));
  }
  descriptor_bytes[word] = packed;
}
