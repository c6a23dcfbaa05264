// bundle-common: the data every bundle-adjustment kernel shares (kernels/bundle-*.wgsl; host:
// main/engine/sfm/bundle/gpu/). The formulation is /docs/sfm.md "Bundle adjustment on the GPU"
// (the team's spec): residual r = (u, v) - observed, IRLS weight w, Jacobians per observation,
// Schur complement over points, PCG on the reduced ("camera") variables.
// Buffers (element offsets from BaParams, so each kernel binds few storage buffers):
//   model   f32: per image 12 (R row-major world-to-camera, then t), from 0; per camera 8
//           intrinsics (COLMAP order) from intrinsics_at; per point 4 (x, y, z, 0) from points_at
//   topo    u32: per image 2 (camera, pose variable or NONE) at image_info_at; per camera
//           CAMERA_WORDS (model id, refined count k, intrinsic variable, 0, then the k refined
//           parameter indices) at camera_info_at; per observation its image at obs_image_at and
//           its point at obs_point_at (observations sorted by point); per point its first
//           observation (points + 1) at point_first_at; per segment SEGMENT_WORDS at segment_at;
//           each segment's observations at seg_obs_at + first; per chunk CHUNK_WORDS at chunk_at
//           (a segment's observations in runs of at most CHUNK_OBS, bundle-gpu's layout: a camera
//           shared by a whole video is many workgroups' work, not one's)
//   lin     f32: LIN_STRIDE per observation (LIN_* below), written by bundle-linearise
//   vectors f32: slots of `variables` floats (VEC_*), then dp (3 per point), then CHUNK_SUMS per chunk
// A segment is one block of the reduced vector: a free image's pose (6) or a camera's refined
// intrinsics (k <= 8); segment reductions run a workgroup per segment over its observations.
// Float32 throughout; the host puts the scene in a normalised frame (points' median at the
// origin, median distance 1) so that coordinates and their products stay near 1.

const NONE: u32 = 0xffffffffu;
const LIN_STRIDE: u32 = 40u;
const LIN_R: u32 = 0u;      // residual u, v
const LIN_W: u32 = 2u;      // IRLS weight rho'(s)
const LIN_RHO: u32 = 3u;    // rho(s) (the robust cost is 1/2 the sum)
const LIN_POSE: u32 = 4u;   // 2x6 row-major: d(u, v) / d(dw, dt)
const LIN_INTR: u32 = 16u;  // 2x8 row-major: d(u, v) / d(refined intrinsics), zero past k
const LIN_POINT: u32 = 32u; // 2x3 row-major: d(u, v) / dX
const CAMERA_WORDS: u32 = 12u;
const SEGMENT_WORDS: u32 = 8u; // kind (0 pose, 1 intrinsics), size n, variable, first, count, owner, first chunk, chunks
const CHUNK_WORDS: u32 = 4u;   // segment, first (into the segments' observation lists), count, 0
const CHUNK_SUMS: u32 = 8u;    // floats per chunk in `vectors`, after dp
const SEG_STRIDE: u32 = 144u;  // per segment in `blocks`: SEG_MINV (8x8), SEG_D (8), SEG_G (8), SEG_A (8x8)
const SEG_MINV: u32 = 0u;
const SEG_D: u32 = 64u;
const SEG_G: u32 = 72u;
const SEG_A: u32 = 80u;
const POINT_STRIDE: u32 = 16u; // per point in `pblocks`: V (6: 00 01 02 11 12 22), V^-1 damped (6), g_p (3), 0
// vector slots, each `variables` long
const VEC_B: u32 = 0u;
const VEC_X: u32 = 1u;
const VEC_R: u32 = 2u;
const VEC_Z: u32 = 3u;
const VEC_P: u32 = 4u;
const VEC_Q: u32 = 5u;
const VEC_G: u32 = 6u;
const VEC_T: u32 = 7u; // a free slot (tests' S x input)
const VEC_SLOTS: u32 = 8u; // dp (3 per point) after the slots

struct BaParams {
  observations: u32,
  points: u32,
  images: u32,
  cameras: u32,
  segments: u32,
  variables: u32,
  mode: u32,      // schur kernels: 0 S x (x in slot vec_in), 1 the right-hand side b, 2 S x inside PCG
  loss: u32,      // 0 trivial, 1 huber, 2 cauchy
  lambda: f32,
  loss_scale: f32, // c, pixels
  pcg_tolerance: f32,
  vec_in: u32,    // slot numbers
  vec_out: u32,
  image_info_at: u32,
  camera_info_at: u32,
  obs_image_at: u32,
  obs_point_at: u32,
  point_first_at: u32,
  segment_at: u32,
  seg_obs_at: u32,
  intrinsics_at: u32,
  points_at: u32,
  partials: u32,  // step_total: how many workgroup partials to reduce
  chunks: u32,
  chunk_at: u32,
  _pad0: u32,
  _pad1: u32,
  _pad2: u32,
}

// Ceres' rule for the LM diagonal: diag(H) clamped to [1e-6, 1e32].
fn lm_diagonal(h: f32) -> f32 {
  return clamp(h, 1e-6, 1e32);
}

// rho(s) and rho'(s) of the robust loss at s = |r|^2 (scale c).
fn robust(s: f32, loss: u32, c: f32) -> vec2f {
  let c2 = c * c;
  if (loss == 1u) {
    if (s <= c2) {
      return vec2f(s, 1.0);
    }
    let root = sqrt(s);
    return vec2f(2.0 * c * root - c2, c / root);
  }
  if (loss == 2u) {
    return vec2f(c2 * log(1.0 + s / c2), 1.0 / (1.0 + s / c2));
  }
  return vec2f(s, 1.0);
}

// A symmetric 3x3 from its upper triangle (the point blocks' order: 00 01 02 11 12 22).
fn sym3(s00: f32, s01: f32, s02: f32, s11: f32, s12: f32, s22: f32) -> mat3x3f {
  return mat3x3f(vec3f(s00, s01, s02), vec3f(s01, s11, s12), vec3f(s02, s12, s22));
}
