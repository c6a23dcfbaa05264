/**
 * The SH basis of the reference: orthonormal on the sphere, equal to gsplat's independently
 * written "fast" polynomials (so the signs match gsplat's), and its Jacobian matches finite
 * differences.
 */
import { describe, expect, it } from 'vitest';
import { freshSeed, rng } from '../helpers/random.js';
import { shBasis } from './sh.js';

/** gsplat `sh_coeffs_to_color_fast` basis (gsplat/cuda/include/spherical_harmonics.cuh), as written there. */
function gsplatBasis(x: number, y: number, z: number): number[] {
  const out = new Array<number>(16);
  out[0] = 0.2820947917738781;
  out[1] = -0.48860251190292 * y;
  out[2] = 0.48860251190292 * z;
  out[3] = -0.48860251190292 * x;
  const z2 = z * z;
  const fTmp0B = -1.092548430592079 * z;
  const fC1 = x * x - y * y;
  const fS1 = 2 * x * y;
  out[6] = 0.9461746957575601 * z2 - 0.3153915652525201;
  out[7] = fTmp0B * x;
  out[5] = fTmp0B * y;
  out[8] = 0.5462742152960395 * fC1;
  out[4] = 0.5462742152960395 * fS1;
  const fTmp0C = -2.285228997322329 * z2 + 0.4570457994644658;
  const fTmp1B = 1.445305721320277 * z;
  const fC2 = x * fC1 - y * fS1;
  const fS2 = x * fS1 + y * fC1;
  out[12] = z * (1.865881662950577 * z2 - 1.119528997770346);
  out[13] = fTmp0C * x;
  out[11] = fTmp0C * y;
  out[14] = fTmp1B * fC1;
  out[10] = fTmp1B * fS1;
  out[15] = -0.5900435899266435 * fC2;
  out[9] = -0.5900435899266435 * fS2;
  return out;
}

function randomUnit(rand: () => number): [number, number, number] {
  const z = 2 * rand() - 1;
  const phi = 2 * Math.PI * rand();
  const r = Math.sqrt(1 - z * z);
  return [r * Math.cos(phi), r * Math.sin(phi), z];
}

describe('SH basis', () => {
  it('equals gsplat fast polynomials at random unit directions, every degree', () => {
    const seed = freshSeed();
    const rand = rng(seed);
    const basis = new Float64Array(16);
    for (let t = 0; t < 200; t++) {
      const [x, y, z] = randomUnit(rand);
      const ref = gsplatBasis(x, y, z);
      for (const degree of [0, 1, 2, 3]) {
        basis.fill(NaN);
        shBasis(degree, x, y, z, basis);
        const K = (degree + 1) ** 2;
        for (let k = 0; k < 16; k++) {
          if (k < K) expect(basis[k], `seed ${seed} degree ${degree} k ${k}`).toBeCloseTo(ref[k], 13);
          else expect(basis[k], `seed ${seed}: degree ${degree} must not write k ${k}`).toBeNaN();
        }
      }
    }
  });

  it('is orthonormal on the sphere (midpoint quadrature)', () => {
    const nz = 600;
    const nphi = 64;
    const gram = new Float64Array(256);
    const basis = new Float64Array(16);
    const dA = (2 / nz) * ((2 * Math.PI) / nphi);
    for (let i = 0; i < nz; i++) {
      const z = -1 + (2 * (i + 0.5)) / nz;
      const r = Math.sqrt(1 - z * z);
      for (let j = 0; j < nphi; j++) {
        const phi = (2 * Math.PI * (j + 0.5)) / nphi;
        shBasis(3, r * Math.cos(phi), r * Math.sin(phi), z, basis);
        for (let a = 0; a < 16; a++) for (let b = 0; b < 16; b++) gram[16 * a + b] += basis[a] * basis[b] * dA;
      }
    }
    for (let a = 0; a < 16; a++) {
      for (let b = 0; b < 16; b++) expect(gram[16 * a + b], `<Y${a}, Y${b}>`).toBeCloseTo(a === b ? 1 : 0, 4);
    }
  });

  it('has a Jacobian that matches central differences', () => {
    const seed = freshSeed();
    const rand = rng(seed);
    const basis = new Float64Array(16);
    const jac = new Float64Array(48);
    const plus = new Float64Array(16);
    const minus = new Float64Array(16);
    const eps = 1e-6;
    for (let t = 0; t < 50; t++) {
      const p = [uniform(rand), uniform(rand), uniform(rand)];
      shBasis(3, p[0], p[1], p[2], basis, jac);
      for (let d = 0; d < 3; d++) {
        const hi = [...p];
        const lo = [...p];
        hi[d] += eps;
        lo[d] -= eps;
        shBasis(3, hi[0], hi[1], hi[2], plus);
        shBasis(3, lo[0], lo[1], lo[2], minus);
        for (let k = 0; k < 16; k++) expect(jac[3 * k + d], `seed ${seed} k ${k} d ${d}`).toBeCloseTo((plus[k] - minus[k]) / (2 * eps), 7);
      }
    }
  });

  it('rejects degrees outside 0..3', () => {
    expect(() => shBasis(4, 0, 0, 1, new Float64Array(25))).toThrow(/degree/);
  });
});

function uniform(rand: () => number): number {
  return 2 * rand() - 1;
}
