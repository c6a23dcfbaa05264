// composite-forward: the front-to-back alpha compositing of one tile, written once for every
// kernel that walks a tile's depth-ordered list the way the image does: rasterize_forward
// (rasterize.wgsl) and depth_forward (mesh-depth.wgsl), so the ray depth's weights are exactly the
// image's.
//
// composite_front_to_back(li, inside, center, range, pixel): one 16x16 workgroup per tile, one
//   thread per pixel (li = local_invocation_index). The intersections [range.x, range.y) are
//   loaded COMPOSITE_BATCH at a time into workgroup memory (an override: 256, one per thread, or
//   fewer where the includer's arrays would not fit the device: ray-depth.ts); each pixel composites
//   alpha = min(0.99, o exp(-power)), skipping alpha < 1/255 and stopping before transmittance
//   would fall to 1e-4; the tile stops when every pixel is done. Returns the pixel's final
//   transmittance and 1 + list index of its last composited intersection.
// The includer defines the per-sample body and its batch data (WGSL has no generics; these hook
// functions are called like any other, so the compiled loop is the one the includer would write):
//   struct ForwardPixel                    what one pixel carries and sums (its own fields)
//   fn begin_batch(li: u32, start: u32, end: u32)
//       every thread, before the batch's barrier: when li < COMPOSITE_BATCH and start + li < end,
//       load intersection start + li into slot li (s_xy and s_conic_opacity below, and the
//       includer's own arrays)
//   fn composite_splat(pixel: ptr<function, ForwardPixel>, j: u32, index: u32, alpha: f32, t: f32, next_t: f32)
//       one composited intersection: batch slot j, list index `index`, its alpha, the
//       transmittance in front of it (t, so its weight is alpha t) and behind it (next_t)
//   fn end_batch(li: u32, start: u32, batch: u32)
//       every thread (workgroup-uniform control flow, barriers allowed) after the batch's loop
// Requires: called from workgroup-uniform control flow (barriers inside); `range` uniform.

#include "splat-common"

override COMPOSITE_BATCH: u32 = 256u; // <= TILE * TILE: at most one intersection loaded per thread

var<workgroup> s_xy: array<vec2f, COMPOSITE_BATCH>;
var<workgroup> s_conic_opacity: array<vec4f, COMPOSITE_BATCH>;
var<workgroup> done_count: atomic<u32>;
var<workgroup> done_snapshot: u32;

struct CompositeEnd {
  t: f32, // final transmittance
  last: u32, // 1 + list index of the last composited intersection (range.x: none)
}

fn composite_front_to_back(li: u32, inside: bool, center: vec2f, range: vec2u, pixel: ptr<function, ForwardPixel>) -> CompositeEnd {
  if (li == 0u) {
    atomicStore(&done_count, 0u);
  }
  workgroupBarrier();
  var done = !inside;
  if (done) {
    atomicAdd(&done_count, 1u);
  }
  var t = 1.0;
  var last_index = range.x;
  for (var start = range.x; start < range.y; start += COMPOSITE_BATCH) {
    workgroupBarrier();
    if (li == 0u) {
      done_snapshot = atomicLoad(&done_count);
    }
    if (workgroupUniformLoad(&done_snapshot) >= TILE * TILE) {
      break;
    }
    begin_batch(li, start, range.y);
    workgroupBarrier();
    let batch = min(COMPOSITE_BATCH, range.y - start);
    for (var j = 0u; j < batch && !done; j++) {
      let co = s_conic_opacity[j];
      let pw = splat_power(s_xy[j], co.xyz, center);
      if (pw.x < 0.0) {
        continue;
      }
      let alpha = min(ALPHA_MAX, co.w * exp(-pw.x));
      if (alpha < ALPHA_MIN) {
        continue;
      }
      let next_t = t * (1.0 - alpha);
      if (next_t <= T_MIN) {
        done = true;
        atomicAdd(&done_count, 1u);
        break;
      }
      composite_splat(pixel, j, start + j, alpha, t, next_t);
      t = next_t;
      last_index = start + j + 1u;
    }
    end_batch(li, start, batch);
  }
  return CompositeEnd(t, last_index);
}
