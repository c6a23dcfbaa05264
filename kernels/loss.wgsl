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
// Workgroup: 16x16, one output pixel each; one channel at a time through workgroup memory
//   (26x26 inputs + 26x16 horizontal sums: under 16 KiB, see the arrays below). Each thread
//   reads its share of the 26x26 inputs (HALO_SHARE pixels) from memory once, for all three
//   channels, and keeps it in registers: 2.64 reads of a pixel's 20 B (forward) and 36 B
//   (backward) where a read per channel was 7.9 (docs/benchmarks.md, "The loss at capture size").

#include "loss-target"

const TS: u32 = 16u;
const HALO: u32 = 5u;
const SPAN: u32 = 26u; // TS + 2 HALO
const PARTIALS: u32 = 9u; // floats per pixel of `partials`: dS/dmu, dS/dE[x^2], dS/dE[xy] of r, g, b
const HALO_SHARE: u32 = 3u; // ceil(SPAN^2 / 256): the inputs each of the 256 threads loads
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

// Workgroup memory is allocated per pipeline for the variables its entry point uses, so each pass
// has its own horizontal-sum array of the size it needs, and the forward's final reduction reuses
// its one: ssim_forward 13,728 B (s_a, s_b, s_h5), ssim_backward 13,104 B (s_a, s_b, s_c, s_h3),
// both within WebGPU's guaranteed 16,384 at today's 16x16 tile (before: 17,824 and 16,432).
var<workgroup> s_a: array<f32, SPAN * SPAN>; // x, or partial mu
var<workgroup> s_b: array<f32, SPAN * SPAN>; // y, or partial E[x^2]
var<workgroup> s_c: array<f32, SPAN * SPAN>; // partial E[xy] (backward)
var<workgroup> s_h5: array<f32, SPAN * TS * 5u>; // forward: horizontal sums of 5 statistics, then the workgroup's sums
var<workgroup> s_h3: array<f32, SPAN * TS * 3u>; // backward: horizontal sums of 3 partials

fn gauss(i: u32) -> f32 {
  // normalized 11-tap Gaussian, sigma = 1.5
  var w = array<f32, 11>(
    0.0010283800, 0.0075987582, 0.0360007721, 0.1093606895, 0.2130055377, 0.2660117249,
    0.2130055377, 0.1093606895, 0.0360007721, 0.0075987582, 0.0010283800,
  );
  return w[i];
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

@compute @workgroup_size(TS, TS, 1)
fn ssim_forward(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_id) lid: vec3u, @builtin(local_invocation_index) li: u32) {
  let origin = vec2i(wid.xy * TS) - vec2i(i32(HALO));
  let me = vec2i(wid.xy * TS + lid.xy);
  let inside = in_image(me);
  let kept = inside && target_kept(pixel_index(me));
  let counted = ssim_counted(me) && kept;
  let d_s = -SSIM_WEIGHT / f32(lp.ssim_values); // dL/dS for every counted pixel and channel
  var ssim_sum = 0.0;
  var l1_sum = 0.0;
  var sq_sum = 0.0;
  var out_mu = vec4f(0.0);
  var out_xx = vec4f(0.0);
  var out_xy = vec4f(0.0);
  // the thread's share of the 26x26 inputs, read from memory once for the three channels
  var halo_x: array<vec3f, HALO_SHARE>;
  var halo_y: array<vec3f, HALO_SHARE>;
  for (var j = 0u; j < HALO_SHARE; j++) {
    let i = li + j * 256u;
    let p = origin + vec2i(i32(i % SPAN), i32(i / SPAN));
    halo_x[j] = vec3f(0.0);
    halo_y[j] = vec3f(0.0);
    if (i < SPAN * SPAN && in_image(p)) {
      let q = pixel_index(p);
      if (target_kept(q)) {
        halo_x[j] = image[q].xyz;
        halo_y[j] = target_rgb(q);
      }
    }
  }
  for (var c = 0u; c < 3u; c++) {
    for (var j = 0u; j < HALO_SHARE; j++) {
      let i = li + j * 256u;
      if (i < SPAN * SPAN) {
        s_a[i] = halo_x[j][c];
        s_b[i] = halo_y[j][c];
      }
    }
    workgroupBarrier();
    // horizontal: rows 0..SPAN, output columns 0..TS; 5 statistics
    for (var i = li; i < SPAN * TS; i += 256u) {
      let row = i / TS;
      let col = i % TS;
      var m = vec4f(0.0); // mu_x, mu_y, E[x^2], E[y^2]
      var exy = 0.0;
      for (var k = 0u; k < 11u; k++) {
        let at = row * SPAN + col + k;
        let g = gauss(k);
        let x = s_a[at];
        let y = s_b[at];
        m += g * vec4f(x, y, x * x, y * y);
        exy += g * x * y;
      }
      let o = i * 5u;
      s_h5[o] = m.x;
      s_h5[o + 1u] = m.y;
      s_h5[o + 2u] = m.z;
      s_h5[o + 3u] = m.w;
      s_h5[o + 4u] = exy;
    }
    workgroupBarrier();
    var m = vec4f(0.0);
    var exy = 0.0;
    for (var k = 0u; k < 11u; k++) {
      let o = ((lid.y + k) * TS + lid.x) * 5u;
      let g = gauss(k);
      m += g * vec4f(s_h5[o], s_h5[o + 1u], s_h5[o + 2u], s_h5[o + 3u]);
      exy += g * s_h5[o + 4u];
    }
    if (inside) {
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
      let xc = s_a[(lid.y + HALO) * SPAN + lid.x + HALO];
      let yc = s_b[(lid.y + HALO) * SPAN + lid.x + HALO];
      l1_sum += abs(xc - yc);
      sq_sum += (xc - yc) * (xc - yc);
      // dS/dmu_x with E[x^2], E[xy] held fixed (they are separate blurred statistics). Written
      // without dividing by b = 2 cov_xy + C2, which reaches 0 for anticorrelated patches.
      let cd_inv = 1.0 / (cc * d);
      let ds_dmu = 2.0 * my * (b - a) * cd_inv - 2.0 * mx * s * (1.0 / cc - 1.0 / d);
      let ds_dxx = -s / d;
      let ds_dxy = 2.0 * a * cd_inv;
      if (counted) {
        ssim_sum += s;
        out_mu[c] = d_s * ds_dmu;
        out_xx[c] = d_s * ds_dxx;
        out_xy[c] = d_s * ds_dxy;
      }
    }
    workgroupBarrier();
  }
  if (inside) {
    let q = pixel_index(me);
    for (var c = 0u; c < 3u; c++) {
      partials[PARTIALS * q + c] = out_mu[c];
      partials[PARTIALS * q + 3u + c] = out_xx[c];
      partials[PARTIALS * q + 6u + c] = out_xy[c];
    }
  }
  // The same tree as a vec4 array would take, one component per 256 floats of s_h5 (free now:
  // the channel loop ended on a barrier).
  s_h5[li] = ssim_sum;
  s_h5[256u + li] = l1_sum;
  s_h5[512u + li] = sq_sum;
  workgroupBarrier();
  for (var stride = 128u; stride > 0u; stride >>= 1u) {
    if (li < stride) {
      s_h5[li] += s_h5[li + stride];
      s_h5[256u + li] += s_h5[256u + li + stride];
      s_h5[512u + li] += s_h5[512u + li + stride];
    }
    workgroupBarrier();
  }
  if (li == 0u) {
    sums[wid.y * lp.tiles_x + wid.x] = vec4f(s_h5[0], s_h5[256u], s_h5[512u], 0.0);
  }
}

@compute @workgroup_size(TS, TS, 1)
fn ssim_backward(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_id) lid: vec3u, @builtin(local_invocation_index) li: u32) {
  let origin = vec2i(wid.xy * TS) - vec2i(i32(HALO));
  let me = vec2i(wid.xy * TS + lid.xy);
  let inside = in_image(me);
  let kept = inside && target_kept(pixel_index(me));
  let n_values = f32(lp.l1_values);
  var grad = vec4f(0.0);
  var x = vec3f(0.0);
  var y = vec3f(0.0);
  if (inside) {
    let q = pixel_index(me);
    x = image[q].xyz;
    y = target_rgb(q);
  }
  // the thread's share of the 26x26 partials (mu, E[x^2], E[xy] of the three channels), read once
  var halo_mu: array<vec3f, HALO_SHARE>;
  var halo_xx: array<vec3f, HALO_SHARE>;
  var halo_xy: array<vec3f, HALO_SHARE>;
  for (var j = 0u; j < HALO_SHARE; j++) {
    let i = li + j * 256u;
    let p = origin + vec2i(i32(i % SPAN), i32(i / SPAN));
    halo_mu[j] = vec3f(0.0);
    halo_xx[j] = vec3f(0.0);
    halo_xy[j] = vec3f(0.0);
    if (i < SPAN * SPAN && in_image(p)) {
      let q = pixel_index(p);
      let o = PARTIALS * q;
      halo_mu[j] = vec3f(partials_in[o], partials_in[o + 1u], partials_in[o + 2u]);
      halo_xx[j] = vec3f(partials_in[o + 3u], partials_in[o + 4u], partials_in[o + 5u]);
      halo_xy[j] = vec3f(partials_in[o + 6u], partials_in[o + 7u], partials_in[o + 8u]);
    }
  }
  for (var c = 0u; c < 3u; c++) {
    for (var j = 0u; j < HALO_SHARE; j++) {
      let i = li + j * 256u;
      if (i < SPAN * SPAN) {
        s_a[i] = halo_mu[j][c];
        s_b[i] = halo_xx[j][c];
        s_c[i] = halo_xy[j][c];
      }
    }
    workgroupBarrier();
    for (var i = li; i < SPAN * TS; i += 256u) {
      let row = i / TS;
      let col = i % TS;
      var h = vec3f(0.0);
      for (var k = 0u; k < 11u; k++) {
        let at = row * SPAN + col + k;
        h += gauss(k) * vec3f(s_a[at], s_b[at], s_c[at]);
      }
      s_h3[i * 3u] = h.x;
      s_h3[i * 3u + 1u] = h.y;
      s_h3[i * 3u + 2u] = h.z;
    }
    workgroupBarrier();
    var blurred = vec3f(0.0);
    for (var k = 0u; k < 11u; k++) {
      let o = ((lid.y + k) * TS + lid.x) * 3u;
      blurred += gauss(k) * vec3f(s_h3[o], s_h3[o + 1u], s_h3[o + 2u]);
    }
    let l1 = L1_WEIGHT * sign(x[c] - y[c]) / n_values;
    if (kept) {
      grad[c] = blurred.x + 2.0 * x[c] * blurred.y + y[c] * blurred.z + l1;
    }
    workgroupBarrier();
  }
  if (inside) {
    v_image[pixel_index(me)] = grad;
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
