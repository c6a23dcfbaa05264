import { describe, expect, it } from 'vitest';
import { rotateShInPlace, shRotationMatrices } from '../../../../main/engine/edit/sh-rotation.js';
import { wxyzToMatrix as quatToMatrix } from '../../../../shared/math/quaternion.js';
import { freshSeed, rng } from '../../../helpers/random.js';
import { shBasis } from '../../../reference/sh.js';

/** A uniformly random unit quaternion (w, x, y, z). */
function randomQuat(random: () => number): [number, number, number, number] {
  const g = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const q = [g(), g(), g(), g()];
  const n = Math.hypot(...q);
  return [q[0] / n, q[1] / n, q[2] / n, q[3] / n];
}

function randomDirection(random: () => number): [number, number, number] {
  const z = 2 * random() - 1;
  const phi = 2 * Math.PI * random();
  const r = Math.sqrt(1 - z * z);
  return [r * Math.cos(phi), r * Math.sin(phi), z];
}

/** One channel's colour (the SH sum, float64) in direction d, by the independent reference basis. */
function colour(coefficients: Float64Array | Float32Array, degree: number, channel: number, d: readonly number[]): number {
  const K = (degree + 1) ** 2;
  const basis = new Float64Array(K);
  shBasis(degree, d[0], d[1], d[2], basis);
  let sum = 0;
  for (let k = 0; k < K; k++) sum += basis[k] * coefficients[k * 3 + channel];
  return sum;
}

describe('SH rotation (degrees 1-3)', () => {
  const seed = freshSeed();
  for (const degree of [1, 2, 3]) {
    it(`degree ${degree}: the colour along R d after equals the colour along d before (seed ${seed})`, () => {
      const random = rng(seed + degree);
      const K = (degree + 1) ** 2;
      for (let trial = 0; trial < 20; trial++) {
        const quat = randomQuat(random);
        const R = quatToMatrix(quat);
        const before = new Float64Array(K * 3).map(() => 2 * random() - 1);
        // float64 end to end: rotate a float64 copy by the same matrices the engine uses
        const matrices = shRotationMatrices(R, degree);
        const after = Float64Array.from(before);
        for (let l = 1; l <= degree; l++) {
          const n = 2 * l + 1;
          for (let c = 0; c < 3; c++) {
            const old = Array.from({ length: n }, (_, k) => before[(l * l + k) * 3 + c]);
            for (let r = 0; r < n; r++) after[(l * l + r) * 3 + c] = old.reduce((s, v, k) => s + matrices[l - 1][r * n + k] * v, 0);
          }
        }
        for (let probe = 0; probe < 10; probe++) {
          const d = randomDirection(random);
          const rd = [R[0] * d[0] + R[1] * d[1] + R[2] * d[2], R[3] * d[0] + R[4] * d[1] + R[5] * d[2], R[6] * d[0] + R[7] * d[1] + R[8] * d[2]];
          for (let c = 0; c < 3; c++) expect(Math.abs(colour(after, degree, c, rd) - colour(before, degree, c, d))).toBeLessThan(1e-12);
        }
        expect(Array.from(after.subarray(0, 3))).toEqual(Array.from(before.subarray(0, 3))); // DC unchanged
      }
    });
  }

  it(`rotates float32 splat SH in place to float32 accuracy, each band orthogonal (seed ${seed})`, () => {
    const random = rng(seed ^ 0x5a5a);
    const degree = 3;
    const K = 16;
    const count = 50;
    const sh = new Float32Array(count * K * 3).map(() => 2 * random() - 1);
    const original = Float32Array.from(sh);
    const R = quatToMatrix(randomQuat(random));
    const matrices = shRotationMatrices(R, degree);
    for (const [l, d] of matrices.entries()) {
      const n = 2 * (l + 1) + 1;
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
        let dot = 0;
        for (let k = 0; k < n; k++) dot += d[i * n + k] * d[j * n + k];
        expect(Math.abs(dot - (i === j ? 1 : 0))).toBeLessThan(1e-12);
      }
    }
    rotateShInPlace(sh, count, degree, matrices);
    for (let i = 0; i < count; i++) {
      const d = randomDirection(random);
      const rd = [R[0] * d[0] + R[1] * d[1] + R[2] * d[2], R[3] * d[0] + R[4] * d[1] + R[5] * d[2], R[6] * d[0] + R[7] * d[1] + R[8] * d[2]];
      for (let c = 0; c < 3; c++) {
        expect(Math.abs(colour(sh.subarray(i * K * 3, (i + 1) * K * 3), degree, c, rd) - colour(original.subarray(i * K * 3, (i + 1) * K * 3), degree, c, d))).toBeLessThan(1e-5);
      }
    }
  });

  it('the identity leaves every coefficient as it was', () => {
    for (const d of shRotationMatrices(quatToMatrix([1, 0, 0, 0]), 3)) {
      const n = Math.sqrt(d.length);
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) expect(Math.abs(d[i * n + j] - (i === j ? 1 : 0))).toBeLessThan(1e-13);
    }
  });
});
