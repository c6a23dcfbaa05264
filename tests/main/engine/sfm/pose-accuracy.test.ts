import { describe, expect, it } from 'vitest';
import { centreOf, poseAccuracy, umeyama } from '../../../../main/engine/sfm/pose-accuracy.js';
import { freshSeed, rng } from '../../../helpers/random.js';
import { apply, axisAngle, moved, mul, orbit, pose, randomAxis, type V3 } from './pose-rigs.js';

/**
 * What a least-squares similarity leaves of a unit move d of point k alone, to first order: d less
 * what the fit takes up (its leverage), the translation d / n, the scale (q_k . d) / sum |q|^2 and
 * the rotation J^-1 (q_k x d) about the centroid, q the points less their centroid and
 * J = sum |q|^2 I - q q^T.
 */
function residualAfterFit(points: readonly V3[], k: number, d: V3): number {
  const n = points.length;
  const centroid = [0, 1, 2].map((a) => points.reduce((s, p) => s + p[a], 0) / n);
  const q = points.map((p) => p.map((v, a) => v - centroid[a]) as V3);
  const cross = (a: readonly number[], b: readonly number[]): V3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
  const dot = (a: readonly number[], b: readonly number[]) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  const j = [0, 0, 0, 0, 0, 0, 0, 0, 0];
  for (const p of q) for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) j[3 * r + c] += (r === c ? dot(p, p) : 0) - p[r] * p[c];
  const det = j[0] * (j[4] * j[8] - j[5] * j[7]) - j[1] * (j[3] * j[8] - j[5] * j[6]) + j[2] * (j[3] * j[7] - j[4] * j[6]);
  const torque = cross(q[k], d);
  // Cramer's rule for J omega = torque
  const omega = [0, 1, 2].map((c) => {
    const m = j.map((v, i) => (i % 3 === c ? torque[Math.floor(i / 3)] : v));
    return (m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6])) / det;
  });
  const scale = dot(q[k], d) / q.reduce((s, p) => s + dot(p, p), 0);
  const turned = cross(omega, q[k]);
  return Math.hypot(...[0, 1, 2].map((a) => d[a] - d[a] / n - scale * q[k][a] - turned[a]));
}

describe('pose accuracy after a similarity alignment', () => {
  it('umeyama recovers a known similarity exactly (float64)', () => {
    const seed = freshSeed();
    const random = rng(seed);
    const source: V3[] = Array.from({ length: 12 }, () => [random() * 10 - 5, random() * 10 - 5, random() * 10 - 5]);
    const Q = axisAngle(randomAxis(random), 0.1 + random() * 3);
    const s = 0.2 + random() * 5;
    const t: V3 = [random() * 20, random() * 20, random() * 20];
    const target = source.map((p) => apply(Q, p).map((v, k) => s * v + t[k]) as V3);
    const fit = umeyama(source, target);
    expect(Math.abs(fit.scale - s) / s, `seed ${seed}`).toBeLessThan(1e-10);
    for (let i = 0; i < 9; i++) expect(Math.abs(fit.rotation[i] - Q[i]), `seed ${seed}`).toBeLessThan(1e-10);
    for (let k = 0; k < 3; k++) expect(Math.abs(fit.translation[k] - t[k]), `seed ${seed}`).toBeLessThan(1e-8);
    // points on a line have no unique similarity
    expect(() => umeyama([[0, 0, 0], [1, 0, 0], [2, 0, 0]], [[0, 0, 0], [1, 0, 0], [2, 0, 0]])).toThrow(/on a line/);
  });

  it('a recovered rig that is the reference moved by a similarity has zero error; a camera turned by 0.7 degrees and one moved show exactly that', () => {
    const seed = freshSeed();
    const random = rng(seed);
    const reference = orbit(random, 30);
    const s = 0.05 + random();
    const Q = axisAngle(randomAxis(random), random() * Math.PI);
    const recovered = moved(reference, s, Q, [random() * 3, random() * 3, random() * 3]);
    const exact = poseAccuracy(recovered, reference);
    expect(exact.paired).toBe(30);
    expect(exact.rotationDeg.max, `seed ${seed}`).toBeLessThan(1e-6);
    expect(exact.centre.max, `seed ${seed}`).toBeLessThan(1e-9);
    // scene size: RMS distance of the reference centres from their centroid
    const centres = reference.map((p) => centreOf(p.worldToCamera));
    const centroid = [0, 1, 2].map((k) => centres.reduce((a, c) => a + c[k], 0) / centres.length);
    expect(exact.sceneSize).toBeCloseTo(Math.sqrt(centres.reduce((a, c) => a + (c[0] - centroid[0]) ** 2 + (c[1] - centroid[1]) ** 2 + (c[2] - centroid[2]) ** 2, 0) / centres.length), 12);
    expect(Math.abs(exact.alignment.scale - 1 / s) * s, `seed ${seed}`).toBeLessThan(1e-10);

    // camera 3 turned by 0.7 degrees about a random axis, centre kept: the alignment is unchanged, so exactly that
    const R3 = (m: readonly number[]) => [m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]];
    const turned = recovered.map((p, i) => (i === 3 ? { name: p.name, worldToCamera: pose(mul(axisAngle(randomAxis(random), (0.7 * Math.PI) / 180), R3(p.worldToCamera)), centreOf(p.worldToCamera)) } : p));
    const rotated = poseAccuracy(turned, reference);
    expect(rotated.cameras[3].rotationDeg, `seed ${seed}`).toBeCloseTo(0.7, 6);
    expect(rotated.rotationDeg.max).toBeCloseTo(0.7, 6);
    expect(rotated.rotationDeg.median, `seed ${seed}`).toBeLessThan(1e-6);
    expect(rotated.centre.max, `seed ${seed}`).toBeLessThan(1e-9);
    // camera 5's centre off by 0.02 of the scene size: one of 30 pulls the alignment a little, so
    // near 0.02 less its leverage, the rest far below. The leverage depends on where the orbit put
    // camera 5 (0.0165-0.0191 left over 300 seeds: a fixed bound of 0.018 failed 6 runs in 40), so
    // the first-order value is computed; the measured error was within 3.3e-5 of it.
    const shifted = recovered.map((p, i) => (i === 5 ? { name: p.name, worldToCamera: pose(R3(p.worldToCamera), centreOf(p.worldToCamera).map((v, k) => v + (k === 0 ? (0.02 * exact.sceneSize) / exact.alignment.scale : 0)) as V3) } : p));
    const moved5 = poseAccuracy(shifted, reference);
    const direction: V3 = [exact.alignment.rotation[0], exact.alignment.rotation[3], exact.alignment.rotation[6]]; // x of the recovered frame, in the reference's
    const expected = 0.02 * residualAfterFit(centres, 5, direction);
    expect(Math.abs(moved5.cameras[5].centreError - expected), `seed ${seed}: ${moved5.cameras[5].centreError} against ${expected}`).toBeLessThan(2e-4);
    expect(moved5.cameras[5].centreError, `seed ${seed}`).toBeLessThan(0.0201);
    expect(moved5.centre.median, `seed ${seed}`).toBeLessThan(0.002);
  });

  it('pairs cameras by name, reports the unpaired, and refuses fewer than 3 pairs naming both sides', () => {
    const random = rng(freshSeed());
    const reference = orbit(random, 6);
    const recovered = [...reference.slice(1), { name: 'stray', worldToCamera: reference[0].worldToCamera }];
    const result = poseAccuracy(recovered, reference);
    expect(result.paired).toBe(5);
    expect(result.missing).toEqual(['r_0']);
    expect(result.extra).toEqual(['stray']);
    expect(() => poseAccuracy(reference.slice(0, 2).map((p) => ({ ...p, name: `x/${p.name}` })), reference)).toThrow(/0 cameras are in both sets; a similarity needs 3 \(reference names like r_0, r_1; estimated like x\/r_0, x\/r_1\)/);
  });
});
