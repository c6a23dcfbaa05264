import { describe, expect, it } from 'vitest';
import { positionNodes, type DirectionConstraint } from '../../../../../main/engine/sfm/global/global-positioning.js';
import { refinePositions } from '../../../../../main/engine/sfm/global/position-refinement.js';
import { normalise3, type Vec3 } from '../../../../../main/engine/sfm/verify/dense.js';
import { rotationFromVector } from '../../../../../main/engine/sfm/verify/rotation.js';
import { applyMat3 } from '../../../../../main/engine/sfm/verify/dense.js';
import { Random } from '../../../../../shared/random.js';
import { freshSeed } from '../../../../helpers/random.js';
import { similarityAligned } from './alignment.js';

const seed = freshSeed();
const OPTIONS = { iterations: 400, loss: 0.1, ludIterations: 50, convergence: 1e-6 };

function relativeErrors(estimated: Float64Array, truth: readonly Vec3[]): number[] {
  const est = truth.map((_, v) => [estimated[3 * v], estimated[3 * v + 1], estimated[3 * v + 2]] as Vec3);
  const aligned = similarityAligned(est, truth);
  let size = 0;
  for (const a of truth) for (const b of truth) size = Math.max(size, Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]));
  return aligned.map((p, k) => Math.hypot(p[0] - truth[k][0], p[1] - truth[k][1], p[2] - truth[k][2]) / size);
}

/**
 * Random centres and a random 40% of the pairs' directions, `wrongRatio` of them random. A draw in
 * which some camera has fewer than two right directions is drawn again: with one ray its distance
 * along it is free (any answer fits), so no positioning can recover it. In 25 cameras that happens
 * about once in 1,000 draws (seed 3536 left camera positions 43% of the scene off).
 */
function scene(random: Random, cameras: number, noiseDeg: number, wrongRatio: number) {
  for (;;) {
    const truth: Vec3[] = Array.from({ length: cameras }, () => [3 * random.normal(), random.normal(), 3 * random.normal()]);
    const constraints: DirectionConstraint[] = [];
    const rightDirections = new Array<number>(cameras).fill(0);
    const noise = (noiseDeg * Math.PI) / 180;
    for (let a = 0; a < cameras; a++) {
      for (let b = a + 1; b < cameras; b++) {
        if (random.next() > 0.4) continue;
        const exact = normalise3([truth[b][0] - truth[a][0], truth[b][1] - truth[a][1], truth[b][2] - truth[a][2]]);
        const wrong = random.next() < wrongRatio;
        const direction = wrong ? normalise3([random.normal(), random.normal(), random.normal()]) : normalise3(applyMat3(rotationFromVector([noise * random.normal(), noise * random.normal(), noise * random.normal()]), exact));
        constraints.push({ from: a, to: b, direction, weight: 1 });
        if (!wrong) {
          rightDirections[a]++;
          rightDirections[b]++;
        }
      }
    }
    if (rightDirections.every((n) => n >= 2)) return { truth, constraints };
  }
}

describe(`global positioning (seed ${seed})`, () => {
  it('recovers centres from exact directions up to a similarity, from a random start', () => {
    const random = new Random(seed);
    const { truth, constraints } = scene(random, 25, 0, 0);
    const start = Float64Array.from({ length: 75 }, () => random.next() * 2 - 1);
    const result = positionNodes(25, 25, constraints, start, 0, OPTIONS);
    console.log(`positioning, exact: error max ${Math.max(...relativeErrors(result.positions, truth)).toExponential(2)} after ${result.iterations} rounds`);
    // The fixed-point rounds (s from the last round) converge linearly: 250 rounds measured
    // 5e-6 to 9e-4 of the scene on most starts, but 2.0e-2 on one (seed 106096151) and 5.4e-2
    // at their cap on another (seed 2435658375): the rounds' job is the basin, the mapper's LM
    // (position-refinement.ts) takes the last digits, so what is checked is the two composed, as
    // the mapper composes them: from the rounds' result the LM lands on the truth
    const refined = refinePositions(25, constraints, result.positions, 0, { iterations: 30, loss: 0.1 });
    expect(Math.max(...relativeErrors(refined.positions, truth)), `after ${refined.iterations} LM steps`).toBeLessThan(1e-6);
    expect([result.positions[0], result.positions[1], result.positions[2]]).toEqual([0, 0, 0]);
    // The gauge's scale: mean distance 1 from the fixed camera.
    let sum = 0;
    for (let v = 1; v < 25; v++) sum += Math.hypot(result.positions[3 * v], result.positions[3 * v + 1], result.positions[3 * v + 2]);
    expect(sum / 24).toBeCloseTo(1, 9);
  });

  // 5%: at 15% wrong directions (rotations right, directions random) one start in three left a
  // camera 37% of the scene off while its right constraints fit to 0.02 (docs/sfm.md); in the
  // mapper most wrong pairs go with the rotation filter first. Even at 5% the robust optimum is
  // not always within 1% everywhere: over 1,500 draws 7.4% left some camera past 1% of the scene
  // (one to five cameras in most of those; without wrong directions the worst of 300 draws was
  // 0.9%), and 4 landed in a wrong basin from the random start (13 to 35 of the 40 cameras off;
  // 2 with more than half). So the check is the median camera's, which the wrong directions
  // leave within 0.61% in every draw but those 2; the worst camera is printed.
  it('keeps the median camera within 1% of the scene with 0.3 deg noise (per axis) and 5% wrong directions', () => {
    const random = new Random(seed ^ 0x9e3779b9);
    const { truth, constraints } = scene(random, 40, 0.3, 0.05);
    const start = Float64Array.from({ length: 120 }, () => random.next() * 2 - 1);
    const result = positionNodes(40, 40, constraints, start, 3, OPTIONS);
    const errors = relativeErrors(result.positions, truth).sort((a, b) => a - b);
    console.log(`positioning: ${constraints.length} directions, error median ${(100 * errors[20]).toFixed(3)}% max ${(100 * errors[39]).toFixed(3)}% of the scene, ${errors.filter((e) => e >= 0.01).length} cameras past 1%, ${result.iterations} rounds`);
    expect(errors[20]).toBeLessThan(0.01);
  });

  it('places points with the cameras from camera-to-point rays (joint positioning)', () => {
    const random = new Random(seed ^ 0x1234567);
    const cameras: Vec3[] = Array.from({ length: 8 }, (_, i) => [4 * Math.cos(i), 0.3 * random.normal(), 4 * Math.sin(i)]);
    const points: Vec3[] = Array.from({ length: 60 }, () => [random.normal(), random.normal(), random.normal()]);
    const constraints: DirectionConstraint[] = [];
    points.forEach((p, k) => cameras.forEach((c, i) => constraints.push({ from: i, to: 8 + k, direction: normalise3([p[0] - c[0], p[1] - c[1], p[2] - c[2]]), weight: 1 })));
    // The mapper's points stage starts from the cameras' stage (here the truth 5% off, as the
    // camera positioning leaves them) and its rays; the points start anywhere. From an all-random
    // start 11 of 1,000 draws ended in another basin (seed 3057249160: 60% of the scene off).
    // The rounds then LM, as the mapper composes them: 0 of 1,000 draws past 1e-14.
    const start = Float64Array.from([...cameras.flatMap((c) => c.map((v) => v + 0.2 * random.normal())), ...points.flatMap(() => [0, 1, 2].map(() => random.next() * 2 - 1))]);
    const rounds = positionNodes(8, 68, constraints, start, 0, OPTIONS);
    const result = refinePositions(8, constraints, rounds.positions, 0, { iterations: 30, loss: 0.1 });
    expect(Math.max(...relativeErrors(result.positions, [...cameras, ...points])), `rounds ${Math.max(...relativeErrors(rounds.positions, [...cameras, ...points])).toExponential(2)}`).toBeLessThan(1e-6);
  });

  // The crash capture met on 8 statue photos (/tmp/sfmp-laplacian-singular.db): in the points
  // stage a point drifted to 1e-7 of a camera's centre, s = 1 / |x_b - x_a| reached 1e7, its
  // weight s^2 1e14, and the Schur complement onto the cameras cancelled to a matrix that is not
  // positive definite: "the weighted normal matrix is singular" with a connected graph.
  it('keeps solving when a point starts on a camera centre (s bounded, no singular normal matrix)', () => {
    const random = new Random(seed ^ 0x51a6);
    const cameras: Vec3[] = Array.from({ length: 8 }, (_, i) => [4 * Math.cos(i), 0.3 * random.normal(), 4 * Math.sin(i)]);
    const points: Vec3[] = Array.from({ length: 40 }, () => [random.normal(), random.normal(), random.normal()]);
    const constraints: DirectionConstraint[] = [];
    points.forEach((p, k) => cameras.forEach((c, i) => constraints.push({ from: i, to: 8 + k, direction: normalise3([p[0] - c[0], p[1] - c[1], p[2] - c[2]]), weight: 1 })));
    // A wrong track (random rays, as a bad match gives) whose start is 1e-12 from camera 3.
    const wrong = 8 + points.length;
    for (let i = 0; i < 8; i += 2) constraints.push({ from: i, to: wrong, direction: normalise3([random.normal(), random.normal(), random.normal()]), weight: 1 });
    constraints.push({ from: 3, to: wrong, direction: normalise3([random.normal(), random.normal(), random.normal()]), weight: 1 });
    const start = [...cameras, ...points].flatMap((p) => p.map((v) => v + 0.2 * random.normal()));
    start.push(start[9] + 1e-12, start[10], start[11]);
    const result = positionNodes(8, wrong + 1, constraints, Float64Array.from(start), 0, { ...OPTIONS, ludIterations: 0 });
    expect(result.positions.every(Number.isFinite)).toBe(true);
    // One wrong track in 41 (5 of 325 rays) costs ~0.15% of the scene, measured.
    expect(Math.max(...relativeErrors(result.positions, cameras))).toBeLessThan(0.01);
  });

  it('Levenberg-Marquardt on the bounded residual lands on exact positions from a start 10% off, with camera-camera and camera-point constraints', () => {
    const random = new Random(seed ^ 0x7777);
    const cameras: Vec3[] = Array.from({ length: 9 }, (_, i) => [4 * Math.cos(0.5 * i), 0.3 * random.normal(), 4 * Math.sin(0.5 * i)]);
    const points: Vec3[] = Array.from({ length: 80 }, () => [random.normal(), random.normal(), random.normal()]);
    const nodes = [...cameras, ...points];
    const constraints: DirectionConstraint[] = [];
    const towards = (a: number, b: number) => normalise3([nodes[b][0] - nodes[a][0], nodes[b][1] - nodes[a][1], nodes[b][2] - nodes[a][2]]);
    for (let a = 0; a < 9; a++) for (let b = a + 1; b < 9; b++) if (random.next() < 0.5) constraints.push({ from: a, to: b, direction: towards(a, b), weight: 1 });
    points.forEach((_, k) => cameras.forEach((__, i) => { if (random.next() < 0.6 || i === k % 9 || i === (k + 4) % 9) constraints.push({ from: i, to: 9 + k, direction: towards(i, 9 + k), weight: 1 }); }));
    const start = Float64Array.from(nodes.flatMap((p) => p.map((v) => v + 0.4 * random.normal()))); // 10% of the 4-unit radius
    // Every point on two rays at least (one ray leaves its depth free: zero cost anywhere on it).
    const result = refinePositions(9, constraints, start, 2, { iterations: 50, loss: 0.1 });
    const errors = relativeErrors(result.positions, nodes);
    console.log(`refinement: ${constraints.length} constraints, error max ${Math.max(...errors).toExponential(2)} after ${result.iterations} steps, cost ${result.initialCost.toExponential(2)} -> ${result.finalCost.toExponential(2)}`);
    expect(Math.max(...errors)).toBeLessThan(1e-6);
    expect(result.finalCost).toBeLessThan(1e-12 * Math.max(1, result.initialCost));
    expect([result.positions[6], result.positions[7], result.positions[8]]).toEqual([0, 0, 0]);
  });
});
