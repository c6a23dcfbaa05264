// sh: spherical harmonics colour (3DGS basis and signs) and its backward, written once for the
// projection (project.wgsl) and the fused SH Adam (sh-adam.wgsl), so both differentiate exactly
// what the forward computed.
// Requires: splat-common (Camera, SH_C0, SH_C1), `cam: Camera`, `sh: array<f32>` (planar: value
// j = 3k + c of splat s at j * cam.sh_plane + s), and the sink `fn sh_coeff_grad(s: u32, k: u32,
// g: vec3f)`, which takes dL/d(coefficient k of splat s) per channel: the projection stores it,
// the fused Adam applies it. The sink may update coefficient k (only k) of splat s: each term reads
// its coefficient before handing its gradient over, and sh_color is the caller's to compute first.

// ---- spherical harmonics (3DGS basis and signs), written out term by term so every value
// stays in registers (arrays indexed in loops would live in local memory) ----

const SH_C2_0: f32 = 1.0925484305920792;
const SH_C2_2: f32 = 0.31539156525252005;
const SH_C2_4: f32 = 0.5462742152960396;
const SH_C3_0: f32 = -0.5900435899266435;
const SH_C3_1: f32 = 2.890611442640554;
const SH_C3_2: f32 = -0.4570457994644658;
const SH_C3_3: f32 = 0.3731763325901154;
const SH_C3_5: f32 = 1.445305721320277;

// SH is planar (value j = 3k + c of splat s at j * cam.sh_plane + s): `base` is s.
fn coeff(base: u32, k: u32) -> vec3f {
  let p = cam.sh_plane;
  let i = 3u * k * p + base;
  return vec3f(sh[i], sh[i + p], sh[i + 2u * p]);
}

// SH(dir) + 0.5 (before the clamp at 0) with the active degree.
fn sh_color(s: u32, d: vec3f) -> vec3f {
  let base = s;
  let deg = cam.sh_degree;
  var c = SH_C0 * coeff(base, 0u);
  if (deg >= 1u) {
    c += SH_C1 * (-d.y * coeff(base, 1u) + d.z * coeff(base, 2u) - d.x * coeff(base, 3u));
    if (deg >= 2u) {
      let xx = d.x * d.x; let yy = d.y * d.y; let zz = d.z * d.z;
      c += SH_C2_0 * d.x * d.y * coeff(base, 4u) - SH_C2_0 * d.y * d.z * coeff(base, 5u)
        + SH_C2_2 * (2.0 * zz - xx - yy) * coeff(base, 6u) - SH_C2_0 * d.x * d.z * coeff(base, 7u)
        + SH_C2_4 * (xx - yy) * coeff(base, 8u);
      if (deg >= 3u) {
        c += SH_C3_0 * d.y * (3.0 * xx - yy) * coeff(base, 9u) + SH_C3_1 * d.x * d.y * d.z * coeff(base, 10u)
          + SH_C3_2 * d.y * (4.0 * zz - xx - yy) * coeff(base, 11u) + SH_C3_3 * d.z * (2.0 * zz - 3.0 * xx - 3.0 * yy) * coeff(base, 12u)
          + SH_C3_2 * d.x * (4.0 * zz - xx - yy) * coeff(base, 13u) + SH_C3_5 * d.z * (xx - yy) * coeff(base, 14u)
          + SH_C3_0 * d.x * (xx - 3.0 * yy) * coeff(base, 15u);
      }
    }
  }
  return c + vec3f(0.5);
}

// One coefficient's backward: its share of dL/d(direction) (coefficient . dL/dcolour times
// d(basis)/d(direction)), read before the sink may update the coefficient, and its gradient
// (basis value b times dL/dcolour) handed to the sink.
fn sh_term_backward(base: u32, k: u32, b: f32, g: vec3f, v: vec3f, v_dir: ptr<function, vec3f>) {
  *v_dir += dot(coeff(base, k), v) * g;
  sh_coeff_grad(base, k, b * v);
}

// Hands every SH gradient of splat s to the sink (zero past the active degree); returns dL/d(direction).
fn sh_backward(s: u32, d: vec3f, v: vec3f) -> vec3f {
  let base = s;
  let deg = cam.sh_degree;
  var v_dir = vec3f(0.0);
  sh_term_backward(base, 0u, SH_C0, vec3f(0.0), v, &v_dir);
  let x = d.x; let y = d.y; let z = d.z;
  if (deg >= 1u) {
    sh_term_backward(base, 1u, -SH_C1 * y, vec3f(0.0, -SH_C1, 0.0), v, &v_dir);
    sh_term_backward(base, 2u, SH_C1 * z, vec3f(0.0, 0.0, SH_C1), v, &v_dir);
    sh_term_backward(base, 3u, -SH_C1 * x, vec3f(-SH_C1, 0.0, 0.0), v, &v_dir);
  }
  if (deg >= 2u) {
    let xx = x * x; let yy = y * y; let zz = z * z;
    sh_term_backward(base, 4u, SH_C2_0 * x * y, SH_C2_0 * vec3f(y, x, 0.0), v, &v_dir);
    sh_term_backward(base, 5u, -SH_C2_0 * y * z, -SH_C2_0 * vec3f(0.0, z, y), v, &v_dir);
    sh_term_backward(base, 6u, SH_C2_2 * (2.0 * zz - xx - yy), SH_C2_2 * vec3f(-2.0 * x, -2.0 * y, 4.0 * z), v, &v_dir);
    sh_term_backward(base, 7u, -SH_C2_0 * x * z, -SH_C2_0 * vec3f(z, 0.0, x), v, &v_dir);
    sh_term_backward(base, 8u, SH_C2_4 * (xx - yy), SH_C2_4 * vec3f(2.0 * x, -2.0 * y, 0.0), v, &v_dir);
  }
  if (deg >= 3u) {
    let xx = x * x; let yy = y * y; let zz = z * z;
    sh_term_backward(base, 9u, SH_C3_0 * y * (3.0 * xx - yy), SH_C3_0 * vec3f(6.0 * x * y, 3.0 * xx - 3.0 * yy, 0.0), v, &v_dir);
    sh_term_backward(base, 10u, SH_C3_1 * x * y * z, SH_C3_1 * vec3f(y * z, x * z, x * y), v, &v_dir);
    sh_term_backward(base, 11u, SH_C3_2 * y * (4.0 * zz - xx - yy), SH_C3_2 * vec3f(-2.0 * x * y, 4.0 * zz - xx - 3.0 * yy, 8.0 * y * z), v, &v_dir);
    sh_term_backward(base, 12u, SH_C3_3 * z * (2.0 * zz - 3.0 * xx - 3.0 * yy), SH_C3_3 * vec3f(-6.0 * x * z, -6.0 * y * z, 6.0 * zz - 3.0 * xx - 3.0 * yy), v, &v_dir);
    sh_term_backward(base, 13u, SH_C3_2 * x * (4.0 * zz - xx - yy), SH_C3_2 * vec3f(4.0 * zz - 3.0 * xx - yy, -2.0 * x * y, 8.0 * x * z), v, &v_dir);
    sh_term_backward(base, 14u, SH_C3_5 * z * (xx - yy), SH_C3_5 * vec3f(2.0 * x * z, -2.0 * y * z, xx - yy), v, &v_dir);
    sh_term_backward(base, 15u, SH_C3_0 * x * (xx - 3.0 * yy), SH_C3_0 * vec3f(3.0 * xx - 3.0 * yy, -6.0 * x * y, 0.0), v, &v_dir);
  }
  // coefficients past the active degree get zero gradients
  for (var k = (deg + 1u) * (deg + 1u); k < cam.sh_coeffs; k++) {
    sh_coeff_grad(s, k, vec3f(0.0));
  }
  return v_dir;
}

