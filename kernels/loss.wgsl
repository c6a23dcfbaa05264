// loss: L = 0.8 mean|I - T| + 0.2 (1 - mean SSIM(I, T)) over the RGB values of one image, and
// dL/dI, in two passes over 16x16 output tiles (a 5-pixel halo in workgroup memory, the 11x11
// Gaussian window (sigma 1.5) applied separably). SSIM_VALID off: the mean SSIM over every pixel,
// zero padding like conv2d(padding=5) (3DGS); on: over the pixels whose window lies inside the
// image, (W - 10) x (H - 10) (fused-ssim's padding="valid", gsplat's trainer), falling back to
// the padded mean for an image of 10 pixels or less on a side. The L1 term is over every pixel.
// Masks: the target's alpha byte is the pixel's mask m (0: the loss ignores the pixel, else it
//   counts; packRgba8 and unmasked views write 255). Exactly:
//     x'_q = m_q x_q, y'_q = m_q y_q: a masked pixel enters every window sum as zero, as a pixel
//       outside the image does (its window weight is zero; the others' are not renormalized);
//     S_p is counted when ssim_counted(p) and m_p = 1; |x_p - y_p| when m_p = 1;
//     L = 0.8 sum_{m=1} |x - y| / l1_values + 0.2 (1 - sum_counted S / ssim_values), with
//       l1_values = 3 x the unmasked pixels and ssim_values = 3 x the counted unmasked pixels
//       (the host counts them from the mask: LossParams, train/loss.ts lossCounts);
//     dL/dx_q = m_q (blur(dS/dmu) + 2 x blur(dS/dE[x^2]) + y blur(dS/dE[xy]) + the L1 term).
//   With no pixel masked every m is 1 and every value is bit-identical to the unmasked loss
//   (x * 1 and the same counts).
// RANDOM_BACKGROUND (override, off by default; declared in loss-target.wgsl): the target is
//   composited over lp.background, the colour the render was drawn over this step
//   (train.alpha 'random').
//   ssim_forward:  per pixel and channel the SSIM value S and its partials w.r.t. the three
//                  statistics that depend on I (mu_x, E[x^2], E[xy]), premultiplied by dL/dS;
//                  per-workgroup sums of S, |I - T| and (I - T)^2 over the unmasked pixels (loss
//                  value, PSNR; read back later)
//   ssim_backward: dL/dI = blur(dS/dmu) + 2 I blur(dS/dE[x^2]) + T blur(dS/dE[xy]) + the L1 term
//                  (the window is symmetric, so the adjoint of the blur is the blur)
// Inputs: image (vec4 per pixel: rgb, alpha), target (RGBA8 packed u32 per pixel, at
//   target_offset in a buffer holding every training image; alpha = mask).
//   clamp_image:   image clamped to [0, 1] (evaluation scores the clamped render, like 3DGS)
// Outputs: partials (9 floats per pixel: the three partials of r, g, b, unpadded), sums (vec4
//   per workgroup: sum S, sum |I - T|, sum (I - T)^2),
//   v_image (vec4 per pixel: dL/d rgb, dL/d alpha = 0).
// Workgroup: 64 threads per 16x16 output tile, one channel at a time through workgroup memory
//   (26x26 inputs, then the horizontal sums of 26 rows x 16 columns). Every pass works on
//   segments of 4 outputs, so a thread reads the 14 values a segment's windows span once:
//   horizontally 26 rows x 4 segments, vertically 16 columns x 4 segments (thread li: column
//   li % 16, rows 4 (li / 16) .. + 3). About 29 workgroup-memory reads an output and channel
//   where one output a thread took 100 (docs/benchmarks.md, "The loss at capture size"). Each
//   output's taps are summed in the window's order, as before; the inputs are read from memory
//   per channel (the L2 serves the re-reads).

#include "loss-target"

const TS: u32 = 16u;
const HALO: u32 = 5u;
const SPAN: u32 = 26u; // TS + 2 HALO
const SEG: u32 = 4u; // outputs a thread computes along a row (horizontal pass) or a column (vertical)
const SEGS: u32 = 4u; // TS / SEG
const WIN: u32 = 14u; // SEG + 2 HALO: the inputs one segment reads
const WG: u32 = 64u; // TS * SEGS: one thread per (column, 4-row segment) of the 16x16 outputs
const ROW: u32 = 20u; // row stride of the horizontal sums (TS + 4: the vertical pass's two 16-lane halves hit other banks)
const PARTIALS: u32 = 9u; // floats per pixel of `partials`: dS/dmu, dS/dE[x^2], dS/dE[xy] of r, g, b
const C1: f32 = 0.0001; // 0.01^2
const C2: f32 = 0.0009; // 0.03^2
const L1_WEIGHT: f32 = 0.8;
const SSIM_WEIGHT: f32 = 0.2;
override SSIM_VALID: bool = false;

struct LossParams {
  width: u32,
  height: u32,
  target_offset: u32,
  tiles_x: u32,
  l1_values: u32, // 3 x the unmasked pixels: the L1 mean's and the MSE's count
  ssim_values: u32, // 3 x the counted unmasked pixels: the SSIM mean's count
  _pad0: u32,
  _pad1: u32,
  background: vec3f, // what RANDOM_BACKGROUND composites the target over
  _pad2: f32,
}

@group(0) @binding(0) var<uniform> lp: LossParams;
@group(0) @binding(1) var<storage, read> image: array<vec4f>;
@group(0) @binding(2) var<storage, read> targets: array<u32>;
@group(0) @binding(3) var<storage, read_write> partials: array<f32>; // PARTIALS per pixel
@group(0) @binding(4) var<storage, read_write> sums: array<vec4f>;
@group(0) @binding(5) var<storage, read> partials_in: array<f32>;
@group(0) @binding(6) var<storage, read_write> v_image: array<vec4f>;

// Workgroup memory is allocated per pipeline for the variables its entry point uses:
// ssim_forward 16,124 B (s_a, s_b, s_h5, s_gauss), ssim_backward 14,612 B (s_a, s_b, s_c, s_h3,
// s_gauss), both within WebGPU's guaranteed 16,384.
var<workgroup> s_a: array<f32, SPAN * SPAN>; // x, or partial mu
var<workgroup> s_b: array<f32, SPAN * SPAN>; // y, or partial E[x^2]
var<workgroup> s_c: array<f32, SPAN * SPAN>; // partial E[xy] (backward)
var<workgroup> s_h5: array<f32, 5u * SPAN * ROW>; // forward: horizontal sums of 5 statistics [stat][row][col], then the workgroup's sums
var<workgroup> s_h3: array<f32, 3u * SPAN * ROW>; // backward: horizontal sums of 3 partials [partial][row][col]
// The window's weights where every thread reads them with a runtime index (a function-scope array
// indexed so may live in a GPU's local memory).
var<workgroup> s_gauss: array<f32, 11>;

fn gauss(i: u32) -> f32 {
  // normalized 11-tap Gaussian, sigma = 1.5
  var w = array<f32, 11>(
    0.0010283800, 0.0075987582, 0.0360007721, 0.1093606895, 0.2130055377, 0.2660117249,
    0.2130055377, 0.1093606895, 0.0360007721, 0.0075987582, 0.0010283800,
  );
  return w[i];
}

fn load_gauss(li: u32) {
  if (li < 11u) {
    s_gauss[li] = gauss(li);
  }
}

fn target_rgb(pixel: u32) -> vec3f {
  return target_word_rgb(targets[lp.target_offset + pixel], lp.background);
}

// The pixel's mask (the target's alpha byte): false = the loss ignores it.
fn target_kept(pixel: u32) -> bool {
  return target_word_kept(targets[lp.target_offset + pixel]);
}

fn in_image(p: vec2i) -> bool {
  return p.x >= 0 && p.y >= 0 && p.x < i32(lp.width) && p.y < i32(lp.height);
}

// Whether pixel p's SSIM enters the mean, and how many values the mean is over.
fn ssim_counted(p: vec2i) -> bool {
  if (!valid_ssim()) {
    return in_image(p);
  }
  return p.x >= i32(HALO) && p.y >= i32(HALO) && p.x < i32(lp.width) - i32(HALO) && p.y < i32(lp.height) - i32(HALO);
}

fn valid_ssim() -> bool {
  return SSIM_VALID && lp.width > 2u * HALO && lp.height > 2u * HALO;
}

fn pixel_index(p: vec2i) -> u32 {
  return u32(p.y) * lp.width + u32(p.x);
}

// The SSIM value of a pixel's statistics and its partials w.r.t. mu_x, E[x^2], E[xy].
struct SsimAt {
  s: f32,
  d_mu: f32,
  d_xx: f32,
  d_xy: f32,
}

fn ssim_at(m: vec4f, exy: f32) -> SsimAt {
  let mx = m.x;
  let my = m.y;
  let vx = m.z - mx * mx;
  let vy = m.w - my * my;
  let cxy = exy - mx * my;
  let a = 2.0 * mx * my + C1;
  let b = 2.0 * cxy + C2;
  let cc = mx * mx + my * my + C1;
  let d = vx + vy + C2;
  let s = a * b / (cc * d);
  // dS/dmu_x with E[x^2], E[xy] held fixed (they are separate blurred statistics). Written
  // without dividing by b = 2 cov_xy + C2, which reaches 0 for anticorrelated patches.
  let cd_inv = 1.0 / (cc * d);
  let ds_dmu = 2.0 * my * (b - a) * cd_inv - 2.0 * mx * s * (1.0 / cc - 1.0 / d);
  return SsimAt(s, ds_dmu, -s / d, 2.0 * a * cd_inv);
}

@compute @workgroup_size(WG)
fn ssim_forward(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) li: u32) {
  let origin = vec2i(wid.xy * TS) - vec2i(i32(HALO));
  // the vertical pass's outputs: column li % TS, rows SEG (li / TS) .. + SEG - 1
  let col = li % TS;
  let row0 = (li / TS) * SEG;
  let d_s = -SSIM_WEIGHT / f32(lp.ssim_values); // dL/dS for every counted pixel and channel
  var ssim_sum = 0.0;
  var l1_sum = 0.0;
  var sq_sum = 0.0;
  load_gauss(li);
  for (var c = 0u; c < 3u; c++) {
    for (var i = li; i < SPAN * SPAN; i += WG) {
      let p = origin + vec2i(i32(i % SPAN), i32(i / SPAN));
      var x = 0.0;
      var y = 0.0;
      if (in_image(p)) {
        let q = pixel_index(p);
        if (target_kept(q)) {
          x = image[q][c];
          y = target_rgb(q)[c];
        }
      }
      s_a[i] = x;
      s_b[i] = y;
    }
    workgroupBarrier();
    // horizontal: SPAN rows x SEGS segments, each 4 outputs from 14 inputs kept in registers
    for (var i = li; i < SPAN * SEGS; i += WG) {
      let row = i / SEGS;
      let c0 = (i % SEGS) * SEG;
      var m0 = vec4f(0.0);
      var m1 = vec4f(0.0);
      var m2 = vec4f(0.0);
      var m3 = vec4f(0.0);
      var e = vec4f(0.0);
      for (var j = 0u; j < WIN; j++) {
        let x = s_a[row * SPAN + c0 + j];
        let y = s_b[row * SPAN + c0 + j];
        let v = vec4f(x, y, x * x, y * y);
        if (j < 11u) {
          let g = s_gauss[j];
          m0 += g * v;
          e.x += g * x * y;
        }
        if (j >= 1u && j < 12u) {
          let g = s_gauss[j - 1u];
          m1 += g * v;
          e.y += g * x * y;
        }
        if (j >= 2u && j < 13u) {
          let g = s_gauss[j - 2u];
          m2 += g * v;
          e.z += g * x * y;
        }
        if (j >= 3u) {
          let g = s_gauss[j - 3u];
          m3 += g * v;
          e.w += g * x * y;
        }
      }
      let at = row * ROW + c0;
      let plane = SPAN * ROW;
      s_h5[at] = m0.x; s_h5[at + 1u] = m1.x; s_h5[at + 2u] = m2.x; s_h5[at + 3u] = m3.x;
      s_h5[plane + at] = m0.y; s_h5[plane + at + 1u] = m1.y; s_h5[plane + at + 2u] = m2.y; s_h5[plane + at + 3u] = m3.y;
      s_h5[2u * plane + at] = m0.z; s_h5[2u * plane + at + 1u] = m1.z; s_h5[2u * plane + at + 2u] = m2.z; s_h5[2u * plane + at + 3u] = m3.z;
      s_h5[3u * plane + at] = m0.w; s_h5[3u * plane + at + 1u] = m1.w; s_h5[3u * plane + at + 2u] = m2.w; s_h5[3u * plane + at + 3u] = m3.w;
      s_h5[4u * plane + at] = e.x; s_h5[4u * plane + at + 1u] = e.y; s_h5[4u * plane + at + 2u] = e.z; s_h5[4u * plane + at + 3u] = e.w;
    }
    workgroupBarrier();
    // vertical: column col, 4 outputs from 14 rows of horizontal sums
    var v0 = vec4f(0.0);
    var v1 = vec4f(0.0);
    var v2 = vec4f(0.0);
    var v3 = vec4f(0.0);
    var ev = vec4f(0.0);
    for (var j = 0u; j < WIN; j++) {
      let o = (row0 + j) * ROW + col;
      let plane = SPAN * ROW;
      let h = vec4f(s_h5[o], s_h5[plane + o], s_h5[2u * plane + o], s_h5[3u * plane + o]);
      let hxy = s_h5[4u * plane + o];
      if (j < 11u) {
        let g = s_gauss[j];
        v0 += g * h;
        ev.x += g * hxy;
      }
      if (j >= 1u && j < 12u) {
        let g = s_gauss[j - 1u];
        v1 += g * h;
        ev.y += g * hxy;
      }
      if (j >= 2u && j < 13u) {
        let g = s_gauss[j - 2u];
        v2 += g * h;
        ev.z += g * hxy;
      }
      if (j >= 3u) {
        let g = s_gauss[j - 3u];
        v3 += g * h;
        ev.w += g * hxy;
      }
    }
    for (var o = 0u; o < SEG; o++) {
      let me = vec2i(wid.xy * TS + vec2u(col, row0 + o));
      if (!in_image(me)) {
        continue;
      }
      let q = pixel_index(me);
      var m = v0;
      var exy = ev.x;
      if (o == 1u) { m = v1; exy = ev.y; }
      if (o == 2u) { m = v2; exy = ev.z; }
      if (o == 3u) { m = v3; exy = ev.w; }
      let r = ssim_at(m, exy);
      let at = (row0 + o + HALO) * SPAN + col + HALO;
      let xc = s_a[at];
      let yc = s_b[at];
      l1_sum += abs(xc - yc);
      sq_sum += (xc - yc) * (xc - yc);
      var out = vec3f(0.0);
      if (ssim_counted(me) && target_kept(q)) {
        ssim_sum += r.s;
        out = d_s * vec3f(r.d_mu, r.d_xx, r.d_xy);
      }
      partials[PARTIALS * q + c] = out.x;
      partials[PARTIALS * q + 3u + c] = out.y;
      partials[PARTIALS * q + 6u + c] = out.z;
    }
    workgroupBarrier();
  }
  // a tree over the workgroup's threads in s_h5 (free now: the channel loop ended on a barrier)
  s_h5[li] = ssim_sum;
  s_h5[WG + li] = l1_sum;
  s_h5[2u * WG + li] = sq_sum;
  workgroupBarrier();
  for (var stride = WG / 2u; stride > 0u; stride >>= 1u) {
    if (li < stride) {
      s_h5[li] += s_h5[li + stride];
      s_h5[WG + li] += s_h5[WG + li + stride];
      s_h5[2u * WG + li] += s_h5[2u * WG + li + stride];
    }
    workgroupBarrier();
  }
  if (li == 0u) {
    sums[wid.y * lp.tiles_x + wid.x] = vec4f(s_h5[0], s_h5[WG], s_h5[2u * WG], 0.0);
  }
}

@compute @workgroup_size(WG)
fn ssim_backward(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) li: u32) {
  let origin = vec2i(wid.xy * TS) - vec2i(i32(HALO));
  let col = li % TS;
  let row0 = (li / TS) * SEG;
  let n_values = f32(lp.l1_values);
  // dL/dI of the thread's 4 pixels, every channel (written once at the end; alpha's is 0)
  var grads = array<vec4f, SEG>(vec4f(0.0), vec4f(0.0), vec4f(0.0), vec4f(0.0));
  load_gauss(li);
  for (var c = 0u; c < 3u; c++) {
    for (var i = li; i < SPAN * SPAN; i += WG) {
      let p = origin + vec2i(i32(i % SPAN), i32(i / SPAN));
      var mu = 0.0;
      var xx = 0.0;
      var xy = 0.0;
      if (in_image(p)) {
        let o = PARTIALS * pixel_index(p);
        mu = partials_in[o + c];
        xx = partials_in[o + 3u + c];
        xy = partials_in[o + 6u + c];
      }
      s_a[i] = mu;
      s_b[i] = xx;
      s_c[i] = xy;
    }
    workgroupBarrier();
    for (var i = li; i < SPAN * SEGS; i += WG) {
      let row = i / SEGS;
      let c0 = (i % SEGS) * SEG;
      var h0 = vec3f(0.0);
      var h1 = vec3f(0.0);
      var h2 = vec3f(0.0);
      var h3 = vec3f(0.0);
      for (var j = 0u; j < WIN; j++) {
        let at = row * SPAN + c0 + j;
        let v = vec3f(s_a[at], s_b[at], s_c[at]);
        if (j < 11u) {
          h0 += s_gauss[j] * v;
        }
        if (j >= 1u && j < 12u) {
          h1 += s_gauss[j - 1u] * v;
        }
        if (j >= 2u && j < 13u) {
          h2 += s_gauss[j - 2u] * v;
        }
        if (j >= 3u) {
          h3 += s_gauss[j - 3u] * v;
        }
      }
      let at = row * ROW + c0;
      let plane = SPAN * ROW;
      s_h3[at] = h0.x; s_h3[at + 1u] = h1.x; s_h3[at + 2u] = h2.x; s_h3[at + 3u] = h3.x;
      s_h3[plane + at] = h0.y; s_h3[plane + at + 1u] = h1.y; s_h3[plane + at + 2u] = h2.y; s_h3[plane + at + 3u] = h3.y;
      s_h3[2u * plane + at] = h0.z; s_h3[2u * plane + at + 1u] = h1.z; s_h3[2u * plane + at + 2u] = h2.z; s_h3[2u * plane + at + 3u] = h3.z;
    }
    workgroupBarrier();
    var b0 = vec3f(0.0);
    var b1 = vec3f(0.0);
    var b2 = vec3f(0.0);
    var b3 = vec3f(0.0);
    for (var j = 0u; j < WIN; j++) {
      let o = (row0 + j) * ROW + col;
      let plane = SPAN * ROW;
      let h = vec3f(s_h3[o], s_h3[plane + o], s_h3[2u * plane + o]);
      if (j < 11u) {
        b0 += s_gauss[j] * h;
      }
      if (j >= 1u && j < 12u) {
        b1 += s_gauss[j - 1u] * h;
      }
      if (j >= 2u && j < 13u) {
        b2 += s_gauss[j - 2u] * h;
      }
      if (j >= 3u) {
        b3 += s_gauss[j - 3u] * h;
      }
    }
    for (var o = 0u; o < SEG; o++) {
      let me = vec2i(wid.xy * TS + vec2u(col, row0 + o));
      if (!in_image(me)) {
        continue;
      }
      let q = pixel_index(me);
      var blurred = b0;
      if (o == 1u) { blurred = b1; }
      if (o == 2u) { blurred = b2; }
      if (o == 3u) { blurred = b3; }
      if (target_kept(q)) {
        let x = image[q][c];
        let y = target_rgb(q)[c];
        let l1 = L1_WEIGHT * sign(x - y) / n_values;
        grads[o][c] = blurred.x + 2.0 * x * blurred.y + y * blurred.z + l1;
      }
    }
    workgroupBarrier();
  }
  for (var o = 0u; o < SEG; o++) {
    let me = vec2i(wid.xy * TS + vec2u(col, row0 + o));
    if (in_image(me)) {
      v_image[pixel_index(me)] = grads[o];
    }
  }
}

@group(0) @binding(7) var<storage, read_write> clamped: array<vec4f>;

@compute @workgroup_size(TS, TS, 1)
fn clamp_image(@builtin(global_invocation_id) gid: vec3u) {
  if (gid.x >= lp.width || gid.y >= lp.height) {
    return;
  }
  let q = gid.y * lp.width + gid.x;
  clamped[q] = clamp(image[q], vec4f(0.0), vec4f(1.0));
}
