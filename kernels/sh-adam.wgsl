// sh-adam: the SH group's Adam step fused with the SH part of the projection backward, so the SH
// gradient (48 floats a splat at degree 3) is never stored: per splat, dL/d(colour) is read from
// the gathered screen-space gradients, the SH backward (sh.wgsl, the projection's own) turns it
// into each coefficient's gradient and each is applied at once by adam-common's step, the one
// adam.wgsl takes. Same math, same order, same roundings as project_backward + adam.wgsl.
//   in:  cam (the step's camera: position, active degree, sh_plane), ap (the SH group's
//        AdamParams; plane = the capacity), counts[ap.count_index] (the splat count), means,
//        rank_of_splat, v2d (its vec4 2k + 0..3 as project_backward reads them: (v_rgb, .) is
//        the third), visible (this view's)
//   in/out: sh (planar), m, v (the group's moments, planar words of moments.wgsl: f32, or bf16
//        pairs with moment_shift 1), flags (non-finite gradients skipped)
//   A splat not visible in the view has zero SH gradients (project_backward's write_zero_grads):
//   a dense step applies them (momentum), a sparse one (ap.sparse) leaves the splat as it was.
//   Only lanes below ap.lane_end are updated (the SH rest bands between train.shRestEvery steps);
//   the others' gradients are dropped, as the separate Adam never read them either.
// Workgroup: WG threads, one splat each, 2D dispatch over the capacity (threads past the count exit).
// Invariant: one thread owns every lane of its splat, so the bf16 words' read-modify-writes of
// one half never race with the other half's.

#include "splat-common"
#include "dispatch"
#include "random"
#include "moments"
#include "adam-common"
#include "sh"

override WG: u32 = 256u;

@group(0) @binding(0) var<uniform> cam: Camera;
@group(0) @binding(1) var<uniform> ap: AdamParams;
@group(0) @binding(2) var<storage, read> counts: array<u32>;
@group(0) @binding(3) var<storage, read> means: array<f32>; // arena splat_params.means
@group(0) @binding(4) var<storage, read_write> sh: array<f32>; // arena splat_params.sh
@group(0) @binding(5) var<storage, read> rank_of_splat: array<u32>; // arena rank_counts.rankOfSplat
@group(0) @binding(6) var<storage, read> v2d: array<vec4f>;
@group(0) @binding(7) var<storage, read> visible: array<u32>;
@group(0) @binding(8) var<storage, read_write> m: array<u32>;
@group(0) @binding(9) var<storage, read_write> v: array<u32>;
@group(0) @binding(10) var<storage, read_write> flags: array<atomic<u32>>;

// The sink of sh.wgsl: lanes 3k .. 3k + 2 of splat s take their Adam step with gradient g.
fn sh_coeff_grad(s: u32, k: u32, g: vec3f) {
  for (var c = 0u; c < 3u; c++) {
    let lane = 3u * k + c;
    if (lane >= ap.lane_end) {
      return;
    }
    let gc = g[c];
    if (!is_finite(gc)) {
      count_non_finite();
      continue;
    }
    let at = lane * ap.plane + s;
    let word = moment_word(s, lane, ap.stride, ap.moment_plane, ap.moment_shift);
    let e = adam_element(sh[at], s, lane, gc, m[word], v[word], lane & 1u);
    sh[at] = e.p;
    m[word] = e.m;
    v[word] = e.v;
  }
}

@compute @workgroup_size(WG)
fn sh_adam(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let s = thread_id(gid, nwg);
  if (s >= counts[ap.count_index]) {
    return;
  }
  if (visible[s] == 0u) {
    if (ap.sparse != 0u) {
      return;
    }
    for (var k = 0u; k < cam.sh_coeffs; k++) {
      sh_coeff_grad(s, k, vec3f(0.0));
    }
    return;
  }
  let v_rgb = v2d[4u * rank_of_splat[s] + 2u].xyz;
  let mean = vec3f(means[3u * s], means[3u * s + 1u], means[3u * s + 2u]);
  let u = mean - cam.position.xyz;
  let dir = u / length(u);
  let raw = sh_color(s, dir);
  let v_raw = select(vec3f(0.0), v_rgb, raw > vec3f(0.0));
  _ = sh_backward(s, dir, v_raw);
}
