// adam-common: one Adam element update and the bf16 moment roundings, written once for the Adam
// kernel (adam.wgsl, one dispatch a parameter group) and the fused SH Adam (sh-adam.wgsl, whose
// SH gradient is applied where it is computed and never stored): both must be the same math.
// Requires: moments.wgsl, `ap: AdamParams` (uniform) and `flags: array<atomic<u32>>` ([0] all, [1 + group]).

struct AdamParams {
  lr_head: f32,
  lr_tail: f32,
  beta1: f32,
  beta2: f32,
  epsilon: f32,
  bias1: f32, // 1 - beta1^t
  bias2: f32, // 1 - beta2^t
  stride: u32,
  head: u32,
  count_index: u32,
  group_index: u32, // which flags slot counts this group's non-finite gradients
  plane: u32, // 0: element i is value i % stride of splat i / stride; else planar (SH): value i / plane of splat i % plane
  moment_shift: u32, // 0: f32 moments; 1: bf16 pairs
  step: u32, // t: the stochastic rounding's counter
  lane_end: u32, // lanes >= lane_end are left as they are this step
  sparse: u32, // 1: skip the splats not visible in this step's view
  moment_plane: u32, // moments.wgsl: 0 moments as the values (interleaved f32); else planar words of this plane length
  _pad0: u32,
  _pad1: u32,
  _pad2: u32,
}

fn is_finite(x: f32) -> bool {
  return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u;
}

// bf16 bits of a finite f32, rounded to the nearest (ties to even).
fn bf16_nearest(x: f32) -> u32 {
  let b = bitcast<u32>(x);
  return (b + 0x7fffu + ((b >> 16u) & 1u)) >> 16u;
}

// bf16 bits of a finite f32 >= 0, rounded up with probability (x - down) / (up - down). The
// counter is (step, splat, lane), never a buffer index: a run resumed at another capacity draws
// what it would have.
fn bf16_stochastic(x: f32, s: u32, lane: u32) -> u32 {
  let r = hash_u32(ap.step ^ hash_u32(s ^ hash_u32(lane ^ 0x9e3779b9u))) & 0xffffu;
  return min((bitcast<u32>(x) + r) >> 16u, 0x7f7fu); // never rounds up into Inf
}

fn bf16_value(bits: u32) -> f32 {
  return bitcast<f32>(bits << 16u);
}

// One element's update: (parameter, m, v) after the step from the parameter `p`, its gradient and
// moments. `lane` picks the learning rate.
fn adam_update(p: f32, lane: u32, g: f32, m0: f32, v0: f32) -> vec3f {
  let m1 = ap.beta1 * m0 + (1.0 - ap.beta1) * g;
  let v1 = ap.beta2 * v0 + (1.0 - ap.beta2) * g * g;
  let lr = select(ap.lr_tail, ap.lr_head, lane < ap.head);
  return vec3f(p - lr * (m1 / ap.bias1) / (sqrt(v1 / ap.bias2) + ap.epsilon), m1, v1);
}

// A value's parameter and moment bits after its step.
struct AdamElement {
  p: f32,
  m: u32,
  v: u32,
}

// One value's whole step, as every Adam kernel takes it: `m_bits`, `v_bits` are its moments' words
// (f32 bits with moment_shift 0; with moment_shift 1 bf16 pairs, this value in half `half` of its
// word, the other half kept), of lane `lane` of splat `s`. The caller skips non-finite gradients
// (count_non_finite).
fn adam_element(p: f32, s: u32, lane: u32, g: f32, m_bits: u32, v_bits: u32, half: u32) -> AdamElement {
  if (ap.moment_shift == 0u) {
    let pmv = adam_update(p, lane, g, bitcast<f32>(m_bits), bitcast<f32>(v_bits));
    return AdamElement(pmv.x, bitcast<u32>(pmv.y), bitcast<u32>(pmv.z));
  }
  let shift = 16u * half;
  let pmv = adam_update(p, lane, g, bf16_value((m_bits >> shift) & 0xffffu), bf16_value((v_bits >> shift) & 0xffffu));
  let keep = 0xffff0000u >> shift; // the other lane's half
  return AdamElement(pmv.x, (m_bits & keep) | (bf16_nearest(pmv.y) << shift), (v_bits & keep) | (bf16_stochastic(pmv.z, s, lane) << shift));
}

fn count_non_finite() {
  atomicAdd(&flags[0], 1u); // never let a NaN or Inf reach the parameters or the moments
  atomicAdd(&flags[1u + ap.group_index], 1u);
}
