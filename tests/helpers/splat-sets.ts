import { emptySplats, shCoefficientCount, type SplatSet } from '../../shared/scene/splats.js';
import { rng } from './random.js';

/** Random splats in the ranges trained scenes have (positions +-50, log scales -7..1, SH DC +-1.5, rest +-0.9). */
export function randomSplats(count: number, degree: number, seed = 1): SplatSet {
  const random = rng(seed);
  const s = emptySplats(count, degree);
  const u = (a: number, b: number) => a + (b - a) * random();
  for (let i = 0; i < count * 3; i++) s.means[i] = u(-50, 50);
  for (let i = 0; i < count * 3; i++) s.logScales[i] = u(-7, 1);
  for (let i = 0; i < count * 4; i++) s.quats[i] = u(-1, 1);
  for (let i = 0; i < count; i++) s.opacityLogits[i] = u(-5, 5);
  const K = shCoefficientCount(degree);
  for (let i = 0; i < count; i++) for (let k = 0; k < K; k++) for (let c = 0; c < 3; c++) s.sh[(i * K + k) * 3 + c] = k === 0 ? u(-1.5, 1.5) : u(-0.9, 0.9);
  return s;
}

export const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/** |qa . qb| of quaternion i of `a` and j of `b`, normalized: 1 for the same rotation (q and -q). */
export function rotationAgreement(a: Float32Array, i: number, b: Float32Array, j = i): number {
  const qa = a.subarray(4 * i, 4 * i + 4);
  const qb = b.subarray(4 * j, 4 * j + 4);
  return Math.abs(qa[0] * qb[0] + qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3]) / (Math.hypot(...qa) * Math.hypot(...qb));
}
