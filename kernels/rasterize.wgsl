// rasterize: per-tile alpha compositing, front to back (forward) and back to front (backward).
//
// rasterize_forward: one 16x16 workgroup per tile, one thread per pixel. The tile's
//   depth-ordered intersections [tile_ranges[t].x, .y) are loaded BATCH at a time into workgroup
//   memory; each pixel composites alpha = min(0.99, o exp(-power)), skipping alpha < 1/255 and
//   stopping before transmittance would fall to 1e-4. The tile stops when every pixel is done
//   (the loop is composite-forward.wgsl's, shared with mesh-depth.wgsl; the sums are here).
//   out: image (rgb + T * background, alpha = 1 - T), depth (sum of w z), state (T and 1 + list
//   index of the last composited intersection, for the backward).
// rasterize_backward: same tiles, batches from the back; each pixel walks its composited
//   intersections back to front (T recovered by dividing by 1 - alpha) and forms the gradients
//   w.r.t. the screen-space splat (mean2d, conic, opacity, colour, z) plus |d mean2d|. They are
//   summed over the tile's pixels without float atomics: SUBGROUPS (16x16 threads, one pixel
//   each): a subgroup sum by recursive halving (16 values in 16 shuffles where subgroups have
//   >= 16 lanes; subgroupAdd otherwise), then one partial per subgroup and value in workgroup
//   memory, summed by BATCH_B*RECORDS threads; portable (8x8 threads, a 2x2 pixel block each, so a CPU device runs 4x fewer
//   invocations): per-thread sums over its pixels, then a tree reduction in workgroup memory
//   over REDUCE_SPLATS intersections at a time (few barriers per intersection). The tile's sum
//   for intersection e goes to grads0..2[e] (no two tiles share an e), and gather.wgsl sums
//   them per splat: deterministic.
// Optional outputs, each switched by an override constant that also sizes its workgroup array
// (so a pipeline without the feature allocates none of its memory) and each differentiable:
//   OUT_MEDIAN     median depth: z of the composited splat after which T first falls to <= 0.5
//                  (0 where T stays above); its gradient goes to that splat's z
//   OUT_NORMALS    sum of w n over the composited splats (n: the splat's camera-space normal,
//                  the axis of its smallest scale facing the camera; from project.wgsl)
//   OUT_DISTORTION 2DGS depth distortion sum_{i,j} w_i w_j |z_i - z_j| (ordered pairs)
//   OUT_WEIGHTS    per intersection: (sum over the tile's pixels of w, max w), for
//                  densification statistics; gather.wgsl's gather_weights makes them per splat.
//                  Summed in workgroup memory (a compare-and-swap loop on the float's bits; the
//                  max is an atomicMax on them, which orders non-negative floats). Not
//                  differentiated. Intersections a finished tile never reached keep the zero the
//                  host cleared them to.
// Override constants: BATCH_B (intersections per backward batch), MAX_SUBGROUPS (workgroup size /
//   the device's smallest subgroup size; sizes the partials), the three above, NORMAL_SLOTS
//   (WG when OUT_NORMALS, else 1; the backward's b_normal needs only BATCH_B, which
//   render/backward-fit.ts passes where 256 would not fit) and RECORDS (gradient vec4s per intersection: 3, 4 with normals).

#include "composite-forward"

const WG: u32 = 256u; // TILE * TILE
override BATCH_B: u32 = 32u;
override MAX_SUBGROUPS: u32 = 8u;
// Sum |d mean2d| per pixel too (AbsGS densification). Off: 10 values a reduction instead of 12.
override ABSGRAD: bool = true;

@group(0) @binding(0) var<uniform> cam: Camera;
@group(0) @binding(1) var<storage, read> tile_ranges: array<vec2u>;
@group(0) @binding(2) var<storage, read> sorted_rank: array<u32>; // arena tile_order.rank
@group(0) @binding(3) var<storage, read> rank_xy: array<vec2u>; // arena ranked_xy_rect.xy
@group(0) @binding(4) var<storage, read> rank_conic_opacity: array<vec4f>; // arena ranked.conicOpacity
@group(0) @binding(5) var<storage, read> rank_color_depth: array<vec4f>; // arena ranked.colorDepth
// forward outputs
@group(0) @binding(6) var<storage, read_write> out_image: array<vec4f>; // arena pixels.image
@group(0) @binding(7) var<storage, read_write> out_depth: array<f32>;
// per pixel: (final transmittance bits, 1 + list index of the last composited intersection)
@group(0) @binding(8) var<storage, read_write> out_state: array<vec2u>;
// backward
@group(0) @binding(10) var<storage, read> state: array<vec2u>;
@group(0) @binding(12) var<storage, read> v_image: array<vec4f>; // arena pixel_grads.image
// per pixel: (dL/d depth, dL/d median depth, dL/d distortion, 0)
@group(0) @binding(13) var<storage, read> v_aux: array<vec4f>; // arena pixel_grads.aux
@group(0) @binding(14) var<storage, read> emit_index: array<u32>; // arena tile_order.emit
// Optional outputs and their gradients (bound to a 16-byte placeholder when the feature is off)
@group(0) @binding(18) var<storage, read> rank_normal: array<vec4f>; // arena ranked.normal
@group(0) @binding(19) var<storage, read_write> out_normals: array<vec4f>; // arena pixels.normals
// per pixel: (median depth, distortion, median slot in the tile's list or -1, depth = sum w z)
@group(0) @binding(20) var<storage, read_write> out_geometry: array<vec4f>; // arena pixels.geometry
@group(0) @binding(21) var<storage, read> geometry: array<vec4f>; // arena pixels.geometry
// per pixel: dL/d normals
@group(0) @binding(23) var<storage, read> v_normals: array<vec4f>; // arena pixel_grads.normals
@group(0) @binding(24) var<storage, read_write> grads3: array<vec4f>; // arena isect_grads.g3

override OUT_MEDIAN: bool = false;
override OUT_NORMALS: bool = false;
override OUT_DISTORTION: bool = false;
override NORMAL_SLOTS: u32 = 1u;
override RECORDS: u32 = 3u;
override OUT_WEIGHTS: bool = false;
override WEIGHT_SLOTS: u32 = 1u; // WG with OUT_WEIGHTS
// per emit index: (sum of w, max w) over the tile's pixels (OUT_WEIGHTS)
@group(0) @binding(25) var<storage, read_write> out_weights: array<vec2f>;

// Per-intersection gradient records, one vec4 of each in three buffers (each stays under the
// 2 GiB binding limit up to 134M intersections); a fourth (v_normal) when OUT_NORMALS.
@group(0) @binding(15) var<storage, read_write> grads0: array<vec4f>; // arena isect_grads.g0
@group(0) @binding(16) var<storage, read_write> grads1: array<vec4f>; // arena isect_grads.g1
@group(0) @binding(17) var<storage, read_write> grads2: array<vec4f>; // arena isect_grads.g2

fn put_grad(e: u32, c: u32, v: vec4f) {
  if (c == 0u) {
    grads0[e] = v;
  } else if (c == 1u) {
    grads1[e] = v;
  } else if (c == 2u) {
    grads2[e] = v;
  } else {
    grads3[e] = v;
  }
}

var<workgroup> s_color_depth: array<vec4f, WG>;
var<workgroup> s_normal: array<vec4f, NORMAL_SLOTS>;
var<workgroup> s_weight_sum: array<atomic<u32>, WEIGHT_SLOTS>;
var<workgroup> s_weight_max: array<atomic<u32>, WEIGHT_SLOTS>;
var<workgroup> max_last: atomic<u32>;
var<workgroup> max_last_snapshot: u32;

fn tile_pixel(wid: vec3u, lid: vec3u) -> vec2u {
  return wid.xy * TILE + lid.xy;
}

// s_weight_sum[j] += w (float bits, compare-and-swap) and s_weight_max[j] = max(.., w)
fn add_weight(j: u32, w: f32) {
  atomicMax(&s_weight_max[j], bitcast<u32>(w));
  var old = atomicLoad(&s_weight_sum[j]);
  loop {
    let r = atomicCompareExchangeWeak(&s_weight_sum[j], old, bitcast<u32>(bitcast<f32>(old) + w));
    if (r.exchanged) {
      break;
    }
    old = r.old_value;
  }
}

// ---- forward: the loop of composite-forward.wgsl, with these hooks ----------------------------

// What one pixel sums over its composited intersections.
struct ForwardPixel {
  color: vec3f,
  depth: f32,
  normal: vec3f,
  median: f32,
  median_index: u32,
  weight_sum: f32, // A = sum of w so far (distortion)
  weight_depth: f32, // B = sum of w z so far
  distortion: f32,
}

fn begin_batch(li: u32, start: u32, end: u32) {
  if (li < COMPOSITE_BATCH && start + li < end) {
    let k = sorted_rank[start + li];
    s_xy[li] = bitcast<vec2f>(rank_xy[k]);
    s_conic_opacity[li] = rank_conic_opacity[k];
    s_color_depth[li] = rank_color_depth[k];
    if (OUT_NORMALS) {
      s_normal[li] = rank_normal[k];
    }
  }
  if (OUT_WEIGHTS) {
    atomicStore(&s_weight_sum[li], 0u);
    atomicStore(&s_weight_max[li], 0u);
  }
}

fn composite_splat(pixel: ptr<function, ForwardPixel>, j: u32, index: u32, alpha: f32, t: f32, next_t: f32) {
  let w = alpha * t;
  if (OUT_WEIGHTS) {
    add_weight(j, w);
  }
  let cd = s_color_depth[j];
  (*pixel).color += w * cd.xyz;
  (*pixel).depth += w * cd.w;
  if (OUT_NORMALS) {
    (*pixel).normal += w * s_normal[j].xyz;
  }
  if (OUT_DISTORTION) {
    (*pixel).distortion += 2.0 * w * (cd.w * (*pixel).weight_sum - (*pixel).weight_depth);
    (*pixel).weight_sum += w;
    (*pixel).weight_depth += w * cd.w;
  }
  if (OUT_MEDIAN && (*pixel).median_index == 0xffffffffu && next_t <= 0.5) {
    (*pixel).median = cd.w;
    (*pixel).median_index = index;
  }
}

fn end_batch(li: u32, start: u32, batch: u32) {
  if (OUT_WEIGHTS) {
    workgroupBarrier();
    if (li < batch) {
      out_weights[emit_index[start + li]] = vec2f(bitcast<f32>(atomicLoad(&s_weight_sum[li])), bitcast<f32>(atomicLoad(&s_weight_max[li])));
    }
  }
}

@compute @workgroup_size(TILE, TILE, 1)
fn rasterize_forward(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_id) lid: vec3u, @builtin(local_invocation_index) li: u32) {
  let tile = wid.y * cam.tiles.x + wid.x;
  let px = tile_pixel(wid, lid);
  let inside = px.x < cam.size.x && px.y < cam.size.y;
  let center = vec2f(px) + vec2f(0.5);
  let range = tile_ranges[tile];
  var sums = ForwardPixel(vec3f(0.0), 0.0, vec3f(0.0), 0.0, 0xffffffffu, 0.0, 0.0, 0.0);
  let end = composite_front_to_back(li, inside, center, range, &sums);
  let t = end.t;
  if (inside) {
    let pixel = px.y * cam.size.x + px.x;
    out_image[pixel] = vec4f(sums.color + t * cam.background.xyz, 1.0 - t);
    out_depth[pixel] = sums.depth;
    out_state[pixel] = vec2u(bitcast<u32>(t), end.last);
    if (OUT_NORMALS) {
      out_normals[pixel] = vec4f(sums.normal, 0.0);
    }
    if (OUT_MEDIAN || OUT_DISTORTION) {
      // the median's position in the tile's list (exact in f32 below 2^24), -1 for none
      let median_slot = select(f32(sums.median_index - range.x), -1.0, sums.median_index == 0xffffffffu);
      out_geometry[pixel] = vec4f(sums.median, sums.distortion, median_slot, sums.depth);
    }
  }
}

// ---- backward ----------------------------------------------------------------------------

// What one pixel carries through the back-to-front walk.
struct PixelState {
  center: vec2f,
  t: f32, // transmittance after the intersection being processed
  t_final: f32,
  last: u32, // intersections at list index >= last were not composited here
  v_rgba: vec4f,
  v_depth: f32,
  acc_color: vec3f, // sum of c w behind (plus T_final * background)
  acc_depth: f32,
  // optional outputs
  acc_normal: vec3f, // sum of n w behind
  v_normal: vec3f,
  v_median: f32,
  median_index: u32, // list index of the median splat (0xffffffff: none)
  v_distortion: f32,
  total_weight: f32, // A_N = sum of every w (1 - T_final)
  total_weight_depth: f32, // B_N = sum of every w z (the depth output)
  suffix_weight: f32, // sum of w behind
  suffix_weight_depth: f32, // sum of w z behind
  suffix_dw: f32, // sum of (dL/dw) w behind
}

fn pixel_state(px: vec2u, range_start: u32) -> PixelState {
  var ps: PixelState;
  ps.center = vec2f(px) + vec2f(0.5);
  ps.t_final = 1.0;
  ps.last = range_start;
  ps.v_rgba = vec4f(0.0);
  ps.v_depth = 0.0;
  var aux = vec4f(0.0);
  if (px.x < cam.size.x && px.y < cam.size.y) {
    let pixel = px.y * cam.size.x + px.x;
    let st = state[pixel];
    ps.t_final = bitcast<f32>(st.x);
    ps.last = st.y;
    ps.v_rgba = v_image[pixel];
    aux = v_aux[pixel];
    ps.v_depth = aux.x;
  }
  ps.t = ps.t_final;
  ps.acc_color = ps.t_final * cam.background.xyz;
  ps.acc_depth = 0.0;
  ps.acc_normal = vec3f(0.0);
  ps.v_normal = vec3f(0.0);
  ps.v_median = 0.0;
  ps.median_index = 0xffffffffu;
  ps.v_distortion = 0.0;
  ps.total_weight = 1.0 - ps.t_final;
  ps.total_weight_depth = 0.0;
  ps.suffix_weight = 0.0;
  ps.suffix_weight_depth = 0.0;
  ps.suffix_dw = 0.0;
  if (px.x < cam.size.x && px.y < cam.size.y) {
    let pixel = px.y * cam.size.x + px.x;
    if (OUT_NORMALS) {
      ps.v_normal = v_normals[pixel].xyz;
    }
    if (OUT_MEDIAN || OUT_DISTORTION) {
      let g = geometry[pixel];
      if (OUT_MEDIAN && g.z >= 0.0) {
        ps.median_index = range_start + u32(g.z);
        ps.v_median = aux.y;
      }
      if (OUT_DISTORTION) {
        ps.v_distortion = aux.z;
        ps.total_weight_depth = g.w;
      }
    }
  }
  return ps;
}

struct SplatGrad {
  g0: vec4f, // v_x, v_y, v_a, v_b
  g1: vec4f, // v_c, v_opacity, v_z, |v_x|
  g2: vec4f, // v_rgb, |v_y|
  g3: vec4f, // v_normal (OUT_NORMALS)
  hit: bool, // the pixel composited this intersection
}

// One pixel's gradient w.r.t. the intersection at list index i (batch slot j), advancing the
// pixel's state to the transmittance in front of it. Zero when the pixel did not composite it.
fn pixel_grad(ps: ptr<function, PixelState>, j: u32, i: u32) -> SplatGrad {
  var n = vec4f(0.0);
  if (OUT_NORMALS) {
    n = b_normal[j];
  }
  return pixel_grad_of(ps, i, b_xy[j], b_conic_opacity[j], b_color_depth[j], n.xyz);
}

fn pixel_grad_of(ps: ptr<function, PixelState>, i: u32, xy: vec2f, co: vec4f, cd: vec4f, normal: vec3f) -> SplatGrad {
  var out: SplatGrad;
  out.g0 = vec4f(0.0);
  out.g1 = vec4f(0.0);
  out.g2 = vec4f(0.0);
  out.g3 = vec4f(0.0);
  out.hit = false;
  if (i >= (*ps).last) {
    return out;
  }
  let pw = splat_power(xy, co.xyz, (*ps).center);
  let gauss = exp(-pw.x);
  let raw_alpha = co.w * gauss;
  let alpha = min(ALPHA_MAX, raw_alpha);
  if (pw.x < 0.0 || alpha < ALPHA_MIN) {
    return out;
  }
  out.hit = true;
  let one_minus = 1.0 - alpha;
  let t_before = (*ps).t / one_minus;
  let w = alpha * t_before;
  let v_rgba = (*ps).v_rgba;
  var v_alpha = dot(v_rgba.xyz, cd.xyz * t_before - (*ps).acc_color / one_minus) + v_rgba.w * (*ps).t_final / one_minus
    + (*ps).v_depth * (cd.w * t_before - (*ps).acc_depth / one_minus);
  var v_z = w * (*ps).v_depth;
  if (OUT_NORMALS) {
    v_alpha += dot((*ps).v_normal, normal * t_before - (*ps).acc_normal / one_minus);
    (*ps).acc_normal += w * normal;
    out.g3 = vec4f(w * (*ps).v_normal, 0.0);
  }
  if (OUT_MEDIAN && i == (*ps).median_index) {
    v_z += (*ps).v_median;
  }
  if (OUT_DISTORTION) {
    // L = 2 sum_i w_i (z_i A_{i-1} - B_{i-1}); A, B: sums of w and w z in front of i
    let z = cd.w;
    let front_w = (*ps).total_weight - w - (*ps).suffix_weight;
    let front_wz = (*ps).total_weight_depth - w * z - (*ps).suffix_weight_depth;
    let dl_dw = 2.0 * (z * front_w - front_wz) + 2.0 * ((*ps).suffix_weight_depth - z * (*ps).suffix_weight);
    let dl_dz = 2.0 * w * (front_w - (*ps).suffix_weight);
    let u = (*ps).v_distortion;
    v_alpha += u * (dl_dw * t_before - (*ps).suffix_dw / one_minus);
    v_z += u * dl_dz;
    (*ps).suffix_weight += w;
    (*ps).suffix_weight_depth += w * z;
    (*ps).suffix_dw += dl_dw * w;
  }
  (*ps).acc_color += w * cd.xyz;
  (*ps).acc_depth += w * cd.w;
  (*ps).t = t_before;
  out.g2 = vec4f(w * v_rgba.xyz, 0.0);
  out.g1.z = v_z;
  if (raw_alpha <= ALPHA_MAX) {
    let v_power = -v_alpha * alpha;
    out.g1.y = v_alpha * gauss;
    let d = pw.yz;
    let v_xy = v_power * vec2f(co.x * d.x + co.y * d.y, co.y * d.x + co.z * d.y);
    out.g0 = vec4f(v_xy, v_power * 0.5 * d.x * d.x, v_power * d.x * d.y);
    out.g1.x = v_power * 0.5 * d.y * d.y;
    out.g1.w = abs(v_xy.x);
    out.g2.w = abs(v_xy.y);
  }
  return out;
}

// Intersections past every pixel's last composited one: zero gradient records (gather sums all).
fn zero_tail(end: u32, range_end: u32, li: u32, threads: u32) {
  for (var i = end + li; i < range_end; i += threads) {
    let e = emit_index[i];
    grads0[e] = vec4f(0.0);
    grads1[e] = vec4f(0.0);
    grads2[e] = vec4f(0.0);
    if (OUT_NORMALS) {
      grads3[e] = vec4f(0.0);
    }
  }
}

// The tile's back-to-front walk ends at the largest `last` of its pixels (workgroup-uniform).
fn tile_end(li: u32, range_start: u32, my_last: u32) -> u32 {
  if (li == 0u) {
    atomicStore(&max_last, range_start);
  }
  workgroupBarrier();
  atomicMax(&max_last, my_last);
  workgroupBarrier();
  if (li == 0u) {
    max_last_snapshot = atomicLoad(&max_last);
  }
  return workgroupUniformLoad(&max_last_snapshot);
}

// The backward's batch lives in its own arrays, BATCH_B long (the forward's are 256 long):
// less workgroup memory, more workgroups per multiprocessor.
var<workgroup> b_xy: array<vec2f, BATCH_B>;
var<workgroup> b_conic_opacity: array<vec4f, BATCH_B>;
var<workgroup> b_color_depth: array<vec4f, BATCH_B>;
var<workgroup> b_emit: array<u32, BATCH_B>;
var<workgroup> b_normal: array<vec4f, NORMAL_SLOTS>;

fn load_backward_batch(li: u32, count: u32, batch_start: u32, threads: u32) {
  for (var slot = li; slot < count; slot += threads) {
    let i = batch_start + slot;
    let k = sorted_rank[i];
    b_xy[slot] = bitcast<vec2f>(rank_xy[k]);
    b_conic_opacity[slot] = rank_conic_opacity[k];
    b_color_depth[slot] = rank_color_depth[k];
    b_emit[slot] = emit_index[i];
    if (OUT_NORMALS) {
      b_normal[slot] = rank_normal[k];
    }
  }
}

#if SUBGROUPS
enable subgroups;
diagnostic(off, subgroup_uniformity);
// One float per (subgroup, batch slot, gradient value): RECORDS vec4s of values per intersection.
var<workgroup> partials: array<f32, MAX_SUBGROUPS * BATCH_B * RECORDS * 4u>;

struct LaneSum {
  value: f32,
  index: u32, // which of the 16 values (4 x record + component) this lane holds the sum of
  write: bool, // the one lane of each group of lanes holding the same sum
}

// Sum over the subgroup of 16 values per lane (records a, b, c, d) by recursive halving: at each
// of the offsets sg/2, sg/4, sg/8, sg/16 a lane keeps half of its values and sends the other half
// to its partner, so 8 + 4 + 2 + 1 shuffles (+ one per further halving of sg/16) leave every lane
// with the full sum of one value, instead of 5 shuffles per value (80) for 16 subgroupAdds.
// Needs sg >= 16 and every lane of the subgroup active (the caller's branch is subgroup-uniform).
fn subgroup_sum16(a: vec4f, b: vec4f, c: vec4f, d: vec4f, lane: u32, sg: u32) -> LaneSum {
  let h1 = sg >> 1u;
  let h2 = sg >> 2u;
  let h3 = sg >> 3u;
  let h4 = sg >> 4u;
  let b1 = (lane & h1) != 0u;
  let x = select(a, c, b1) + subgroupShuffleXor(select(c, a, b1), h1);
  let y = select(b, d, b1) + subgroupShuffleXor(select(d, b, b1), h1);
  let b2 = (lane & h2) != 0u;
  let z = select(x, y, b2) + subgroupShuffleXor(select(y, x, b2), h2);
  let b3 = (lane & h3) != 0u;
  let w = select(z.xy, z.zw, b3) + subgroupShuffleXor(select(z.zw, z.xy, b3), h3);
  let b4 = (lane & h4) != 0u;
  var v = select(w.x, w.y, b4) + subgroupShuffleXor(select(w.y, w.x, b4), h4);
  for (var o = h4 >> 1u; o > 0u; o >>= 1u) {
    v += subgroupShuffleXor(v, o);
  }
  let index = 4u * (2u * u32(b1) + u32(b2)) + 2u * u32(b3) + u32(b4);
  return LaneSum(v, index, (lane & (h4 - 1u)) == 0u);
}

// Pixels per thread of the subgroup backward (1 or 2): with 2, a 16x8 workgroup, each thread
// the vertically adjacent pixels (x, 2y) and (x, 2y + 1) of its tile; the thread adds its two
// pixels' gradients before the subgroup sum, so a tile needs half as many subgroup reductions.
override PPT: u32 = 1u;

@compute @workgroup_size(TILE, TILE / PPT, 1)
fn rasterize_backward(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(local_invocation_id) lid: vec3u,
  @builtin(local_invocation_index) li: u32,
  @builtin(subgroup_invocation_id) lane: u32,
  @builtin(subgroup_size) sg_size: u32,
) {
  let threads = WG / PPT;
  let tile = wid.y * cam.tiles.x + wid.x;
  let range = tile_ranges[tile];
  let px = wid.xy * TILE + vec2u(lid.x, lid.y * PPT);
  var ps = pixel_state(px, range.x);
  var ps2 = ps;
  var my_last = ps.last;
  if (PPT > 1u) {
    ps2 = pixel_state(px + vec2u(0u, 1u), range.x);
    my_last = max(my_last, ps2.last);
  }
  let end = tile_end(li, range.x, my_last);
  zero_tail(end, range.y, li, threads);
  let batches = (end - range.x + BATCH_B - 1u) / BATCH_B;
  let values = RECORDS * 4u;
  for (var b = 0u; b < batches; b++) {
    let batch_end = end - b * BATCH_B;
    let batch_start = max(range.x, batch_end - min(batch_end, BATCH_B));
    let count = batch_end - batch_start;
    workgroupBarrier();
    load_backward_batch(li, count, batch_start, threads);
    // Subgroups that composite nothing of an intersection skip its reduction (most do, for
    // splats that cover part of the tile): their partial slots must read zero.
    for (var z = li; z < MAX_SUBGROUPS * BATCH_B * values; z += threads) {
      partials[z] = 0.0;
    }
    workgroupBarrier();
    for (var jj = 0u; jj < count; jj++) {
      let j = count - 1u - jj;
      var g = pixel_grad(&ps, j, batch_start + j);
      if (PPT > 1u) {
        let h = pixel_grad(&ps2, j, batch_start + j);
        g.g0 += h.g0;
        g.g1 += h.g1;
        g.g2 += h.g2;
        g.g3 += h.g3;
        g.hit = g.hit || h.hit;
      }
      if (subgroupAny(g.hit)) {
        var g1 = g.g1;
        var g2 = g.g2;
        if (!ABSGRAD) {
          g1.w = 0.0;
          g2.w = 0.0;
        }
        let at = ((li / sg_size) * BATCH_B + j) * values;
        if (sg_size >= 16u) {
          let r = subgroup_sum16(g.g0, g1, g2, g.g3, lane, sg_size);
          if (r.write && r.index < values) {
            partials[at + r.index] = r.value;
          }
        } else {
          let r0 = subgroupAdd(g.g0);
          let r1 = subgroupAdd(g1);
          let r2 = subgroupAdd(g2);
          var r3 = vec4f(0.0);
          if (OUT_NORMALS) {
            r3 = subgroupAdd(g.g3);
          }
          if (lane == 0u) {
            for (var k = 0u; k < 4u; k++) {
              partials[at + k] = r0[k];
              partials[at + 4u + k] = r1[k];
              partials[at + 8u + k] = r2[k];
              if (OUT_NORMALS) {
                partials[at + 12u + k] = r3[k];
              }
            }
          }
        }
      }
    }
    workgroupBarrier();
    let groups = threads / sg_size;
    for (var t = li; t < count * RECORDS; t += threads) {
      let j = t / RECORDS;
      let c = t % RECORDS;
      var sum = vec4f(0.0);
      for (var g = 0u; g < groups; g++) {
        let at = (g * BATCH_B + j) * values + 4u * c;
        sum += vec4f(partials[at], partials[at + 1u], partials[at + 2u], partials[at + 3u]);
      }
      put_grad(b_emit[j], c, sum);
    }
  }
}

// Variant of the subgroup backward without per-subgroup partials: each subgroup adds its sums
// into one accumulator per (intersection, value) in workgroup memory with a compare-exchange
// loop (12 lanes at once, one value each), so a batch needs 48 B of workgroup memory per
// intersection instead of 48 B x subgroups, and batches can be long (BATCH_CAS).
override BATCH_CAS: u32 = 128u;
var<workgroup> cas_acc: array<atomic<u32>, BATCH_CAS * 12u>;
var<workgroup> c_xy: array<vec2f, BATCH_CAS>;
var<workgroup> c_conic_opacity: array<vec4f, BATCH_CAS>;
var<workgroup> c_color_depth: array<vec4f, BATCH_CAS>;
var<workgroup> c_emit: array<u32, BATCH_CAS>;

fn cas_add(index: u32, value: f32) {
  var old = atomicLoad(&cas_acc[index]);
  loop {
    let r = atomicCompareExchangeWeak(&cas_acc[index], old, bitcast<u32>(bitcast<f32>(old) + value));
    if (r.exchanged) {
      break;
    }
    old = r.old_value;
  }
}

@compute @workgroup_size(TILE, TILE, 1)
fn rasterize_backward_cas(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(local_invocation_id) lid: vec3u,
  @builtin(local_invocation_index) li: u32,
  @builtin(subgroup_invocation_id) lane: u32,
) {
  let tile = wid.y * cam.tiles.x + wid.x;
  let range = tile_ranges[tile];
  var ps = pixel_state(tile_pixel(wid, lid), range.x);
  let end = tile_end(li, range.x, ps.last);
  zero_tail(end, range.y, li, WG);
  let batches = (end - range.x + BATCH_CAS - 1u) / BATCH_CAS;
  for (var b = 0u; b < batches; b++) {
    let batch_end = end - b * BATCH_CAS;
    let batch_start = max(range.x, batch_end - min(batch_end, BATCH_CAS));
    let count = batch_end - batch_start;
    workgroupBarrier();
    for (var slot = li; slot < count; slot += WG) {
      let i = batch_start + slot;
      let k = sorted_rank[i];
      c_xy[slot] = bitcast<vec2f>(rank_xy[k]);
      c_conic_opacity[slot] = rank_conic_opacity[k];
      c_color_depth[slot] = rank_color_depth[k];
      c_emit[slot] = emit_index[i];
    }
    for (var z = li; z < count * 12u; z += WG) {
      atomicStore(&cas_acc[z], 0u);
    }
    workgroupBarrier();
    for (var jj = 0u; jj < count; jj++) {
      let j = count - 1u - jj;
      let g = pixel_grad_of(&ps, batch_start + j, c_xy[j], c_conic_opacity[j], c_color_depth[j], vec3f(0.0)); // no optional outputs here
      if (subgroupAny(g.hit)) {
        let r0 = subgroupAdd(g.g0);
        let r1 = subgroupAdd(g.g1);
        let r2 = subgroupAdd(g.g2);
        if (lane < 12u) {
          let q = lane & 3u;
          let v = select(select(r2[q], r1[q], lane < 8u), r0[q], lane < 4u);
          cas_add(j * 12u + lane, v);
        }
      }
    }
    workgroupBarrier();
    for (var t = li; t < count * 3u; t += WG) {
      let j = t / 3u;
      let c = t % 3u;
      let at = j * 12u + 4u * c;
      let v = vec4f(bitcast<f32>(atomicLoad(&cas_acc[at])), bitcast<f32>(atomicLoad(&cas_acc[at + 1u])), bitcast<f32>(atomicLoad(&cas_acc[at + 2u])), bitcast<f32>(atomicLoad(&cas_acc[at + 3u])));
      put_grad(c_emit[j], c, v);
    }
  }
}
#else
const PORTABLE_THREADS: u32 = 64u; // 8 x 8, each a 2 x 2 pixel block
// Intersections reduced at a time: 2 (or 1) where 4 would not fit the device's workgroup storage
// (with normals 4 take 16 KiB, all WebGPU guarantees); fewer cost more barriers.
override REDUCE_SPLATS: u32 = 4u;
var<workgroup> reduce_scratch: array<vec4f, PORTABLE_THREADS * REDUCE_SPLATS * RECORDS>;

@compute @workgroup_size(8, 8, 1)
fn rasterize_backward(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(local_invocation_id) lid: vec3u,
  @builtin(local_invocation_index) li: u32,
) {
  let tile = wid.y * cam.tiles.x + wid.x;
  let range = tile_ranges[tile];
  let base = wid.xy * TILE + lid.xy * 2u;
  var ps: array<PixelState, 4>;
  var my_last = range.x;
  for (var q = 0u; q < 4u; q++) {
    ps[q] = pixel_state(base + vec2u(q & 1u, q >> 1u), range.x);
    my_last = max(my_last, ps[q].last);
  }
  let end = tile_end(li, range.x, my_last);
  zero_tail(end, range.y, li, PORTABLE_THREADS);
  let batches = (end - range.x + BATCH_B - 1u) / BATCH_B;
  for (var b = 0u; b < batches; b++) {
    let batch_end = end - b * BATCH_B;
    let batch_start = max(range.x, batch_end - min(batch_end, BATCH_B));
    let count = batch_end - batch_start;
    workgroupBarrier();
    load_backward_batch(li, count, batch_start, PORTABLE_THREADS);
    workgroupBarrier();
    for (var r0 = 0u; r0 < count; r0 += REDUCE_SPLATS) {
      let rn = min(REDUCE_SPLATS, count - r0);
      for (var r = 0u; r < REDUCE_SPLATS; r++) {
        var g = SplatGrad(vec4f(0.0), vec4f(0.0), vec4f(0.0), vec4f(0.0), false);
        if (r < rn) {
          let j = count - 1u - (r0 + r);
          for (var q = 0u; q < 4u; q++) {
            var state = ps[q];
            let h = pixel_grad(&state, j, batch_start + j);
            ps[q] = state;
            g.g0 += h.g0;
            g.g1 += h.g1;
            g.g2 += h.g2;
            g.g3 += h.g3;
          }
        }
        let at = (li * REDUCE_SPLATS + r) * RECORDS;
        reduce_scratch[at] = g.g0;
        reduce_scratch[at + 1u] = g.g1;
        reduce_scratch[at + 2u] = g.g2;
        if (OUT_NORMALS) {
          reduce_scratch[at + 3u] = g.g3;
        }
      }
      workgroupBarrier();
      for (var stride = PORTABLE_THREADS / 2u; stride > 0u; stride >>= 1u) {
        if (li < stride) {
          for (var k = 0u; k < REDUCE_SPLATS * RECORDS; k++) {
            reduce_scratch[li * REDUCE_SPLATS * RECORDS + k] += reduce_scratch[(li + stride) * REDUCE_SPLATS * RECORDS + k];
          }
        }
        workgroupBarrier();
      }
      if (li < rn * RECORDS) {
        let r = li / RECORDS;
        let j = count - 1u - (r0 + r);
        put_grad(b_emit[j], li % RECORDS, reduce_scratch[li]);
      }
      workgroupBarrier();
    }
  }
}
#endif
