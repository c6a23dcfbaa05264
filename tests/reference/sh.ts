/**
 * Real spherical harmonics up to degree 3, with the constants and sign conventions of 3DGS /
 * gsplat (`SH_C0..SH_C3`, polynomial forms of the original 3DGS CUDA code). Float64 reference.
 *
 * The basis is written as polynomials in the components of a unit direction. Their partial
 * derivatives are taken as if x, y, z were independent; the caller maps them through the
 * normalization of the direction, which keeps only the tangential part, where every polynomial
 * form that agrees on the sphere (3DGS's `2zz - xx - yy` or gsplat's `3zz - 1`) gives the same
 * gradient.
 */
import { SH_C0 } from '../../shared/scene/splats.js';

export { SH_C0 };
export const SH_C1 = 0.4886025119029199;
export const SH_C2 = [1.0925484305920792, -1.0925484305920792, 0.31539156525252005, -1.0925484305920792, 0.5462742152960396] as const;
export const SH_C3 = [
  -0.5900435899266435, 2.890611442640554, -0.4570457994644658, 0.3731763325901154, -0.4570457994644658, 1.445305721320277,
  -0.5900435899266435,
] as const;

export const SH_MAX_DEGREE = 3;

/**
 * Writes the (degree+1)^2 basis values at the unit direction (x, y, z) into basis[0..K) and, when
 * `jacobian` is given, d basis_k / d(x, y, z) into jacobian[3k .. 3k+2].
 */
export function shBasis(degree: number, x: number, y: number, z: number, basis: Float64Array, jacobian?: Float64Array): void {
  if (!(degree >= 0 && degree <= SH_MAX_DEGREE && Number.isInteger(degree))) {
    throw new Error(`shBasis: degree must be an integer in 0..${SH_MAX_DEGREE}, got ${degree}`);
  }
  const j = jacobian;
  basis[0] = SH_C0;
  if (j) j[0] = j[1] = j[2] = 0;
  if (degree < 1) return;

  basis[1] = -SH_C1 * y;
  basis[2] = SH_C1 * z;
  basis[3] = -SH_C1 * x;
  if (j) {
    set3(j, 1, 0, -SH_C1, 0);
    set3(j, 2, 0, 0, SH_C1);
    set3(j, 3, -SH_C1, 0, 0);
  }
  if (degree < 2) return;

  const xx = x * x;
  const yy = y * y;
  const zz = z * z;
  const [c20, c21, c22, c23, c24] = SH_C2;
  basis[4] = c20 * x * y;
  basis[5] = c21 * y * z;
  basis[6] = c22 * (2 * zz - xx - yy);
  basis[7] = c23 * x * z;
  basis[8] = c24 * (xx - yy);
  if (j) {
    set3(j, 4, c20 * y, c20 * x, 0);
    set3(j, 5, 0, c21 * z, c21 * y);
    set3(j, 6, -2 * c22 * x, -2 * c22 * y, 4 * c22 * z);
    set3(j, 7, c23 * z, 0, c23 * x);
    set3(j, 8, 2 * c24 * x, -2 * c24 * y, 0);
  }
  if (degree < 3) return;

  const [c30, c31, c32, c33, c34, c35, c36] = SH_C3;
  basis[9] = c30 * y * (3 * xx - yy);
  basis[10] = c31 * x * y * z;
  basis[11] = c32 * y * (4 * zz - xx - yy);
  basis[12] = c33 * z * (2 * zz - 3 * xx - 3 * yy);
  basis[13] = c34 * x * (4 * zz - xx - yy);
  basis[14] = c35 * z * (xx - yy);
  basis[15] = c36 * x * (xx - 3 * yy);
  if (j) {
    set3(j, 9, 6 * c30 * x * y, 3 * c30 * (xx - yy), 0);
    set3(j, 10, c31 * y * z, c31 * x * z, c31 * x * y);
    set3(j, 11, -2 * c32 * x * y, c32 * (4 * zz - xx - 3 * yy), 8 * c32 * y * z);
    set3(j, 12, -6 * c33 * x * z, -6 * c33 * y * z, c33 * (6 * zz - 3 * xx - 3 * yy));
    set3(j, 13, c34 * (4 * zz - 3 * xx - yy), -2 * c34 * x * y, 8 * c34 * x * z);
    set3(j, 14, 2 * c35 * x * z, -2 * c35 * y * z, c35 * (xx - yy));
    set3(j, 15, 3 * c36 * (xx - yy), -6 * c36 * x * y, 0);
  }
}

function set3(out: Float64Array, k: number, a: number, b: number, c: number): void {
  out[3 * k] = a;
  out[3 * k + 1] = b;
  out[3 * k + 2] = c;
}
