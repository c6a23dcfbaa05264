import { describe, expect, it } from 'vitest';
import { averageRotations, rotationResiduals, spanningTreeRotations, ROTATION_CONVERGENCE_RAD, type RotationEdge } from '../../../../../main/engine/sfm/global/rotation-averaging.js';
import { rotationFromVector, rotationToVector } from '../../../../../main/engine/sfm/global/so3.js';
import { multiply3, transpose3, type Mat3, type Vec3 } from '../../../../../main/engine/sfm/verify/dense.js';
import { Random } from '../../../../../shared/random.js';
import { freshSeed } from '../../../../helpers/random.js';
import { angleDeg, median, rotationErrorsDeg } from './alignment.js';

const seed = freshSeed();
const OPTIONS = { l1Iterations: 50, irlsIterations: 100, lossDeg: 2, convergence: ROTATION_CONVERGENCE_RAD };
/** Twice the 5 degrees a wrong edge's residual must exceed, so the estimates' own error cannot bring it under. */
const WRONG_EDGE_MIN_DEG = 10;

function randomRotation(random: Random): Mat3 {
  return rotationFromVector([random.normal(), random.normal(), random.normal()]);
}

/**
 * n rotations, every pair within `neighbours` of each other an edge, `wrongRatio` of them random,
 * but never more than a third of one rotation's edges: a rotation whose edges are mostly wrong is
 * not determined by the graph (seed 2346840630 drew 4 of 8 wrong at a chain's end), which no robust
 * averaging can be asked to recover. A wrong edge is drawn again while it lies within
 * WRONG_EDGE_MIN_DEG of the true relative rotation: such an edge is not wrong, and no averaging
 * can give it a large residual (2 runs in 100 drew one 3.9 and 4.6 degrees off, seeds 55262306
 * and 2841182499, against the 5 degrees asked of a wrong edge's residual).
 */
function problem(random: Random, n: number, neighbours: number, noiseDeg: number, wrongRatio: number) {
  const truth = Array.from({ length: n }, () => randomRotation(random));
  const edges: RotationEdge[] = [];
  const wrong: number[] = [];
  const noise = (noiseDeg * Math.PI) / 180;
  const degree = (i: number) => Math.min(i, neighbours) + Math.min(n - 1 - i, neighbours);
  const wrongAt = new Array<number>(n).fill(0);
  const roomFor = (i: number) => wrongAt[i] + 1 <= degree(i) / 3;
  for (let a = 0; a < n; a++) {
    for (let b = a + 1; b < n && b <= a + neighbours; b++) {
      const isWrong = random.next() < wrongRatio && roomFor(a) && roomFor(b);
      if (isWrong) {
        wrongAt[a]++;
        wrongAt[b]++;
      }
      const exact = multiply3(truth[b], transpose3(truth[a]));
      let rotation = isWrong ? randomRotation(random) : multiply3(rotationFromVector([noise * random.normal(), noise * random.normal(), noise * random.normal()]), exact);
      while (isWrong && angleDeg(rotation, exact) < WRONG_EDGE_MIN_DEG) rotation = randomRotation(random);
      if (isWrong) wrong.push(edges.length);
      edges.push({ a, b, rotation, weight: 50 + Math.floor(200 * random.next()) });
    }
  }
  return { truth, edges, wrong };
}

describe(`rotation averaging (seed ${seed})`, () => {
  it('log and exp are inverses, near 0, in general and near pi', () => {
    const random = new Random(seed);
    for (const angle of [1e-9, 1e-3, 0.7, 2.5, Math.PI - 1e-3, Math.PI - 1e-6]) {
      const axis = [random.normal(), random.normal(), random.normal()];
      const n = Math.hypot(...axis);
      const w = axis.map((v) => (v / n) * angle) as Vec3;
      const back = rotationToVector(rotationFromVector(w));
      // Near pi the axis is recovered up to sign from R + I: compare the rotations instead.
      expect(angleDeg(rotationFromVector(back), rotationFromVector(w))).toBeLessThan(1e-4);
      if (angle < 3) for (let c = 0; c < 3; c++) expect(back[c]).toBeCloseTo(w[c], 9);
    }
  });

  it('the spanning tree reproduces exact rotations, up to the root', () => {
    const random = new Random(seed);
    const { truth, edges } = problem(random, 12, 3, 0, 0);
    const { root, rotations } = spanningTreeRotations(12, edges);
    const errors = rotationErrorsDeg(rotations, truth);
    expect(Math.max(...errors)).toBeLessThan(1e-5); // acos near 1 resolves ~1e-8 rad
    expect(angleDeg(rotations[root], Float64Array.from([1, 0, 0, 0, 1, 0, 0, 0, 1]))).toBe(0);
  });

  it('averages 50 noisy rotations with 20% wrong edges: median < 0.1 deg, max < 0.5 deg; the wrong edges keep large residuals', () => {
    const random = new Random(seed);
    const { truth, edges, wrong } = problem(random, 50, 8, 0.1, 0.2);
    const tree = spanningTreeRotations(50, edges);
    const { rotations, l1Iterations, irlsIterations } = averageRotations(tree.rotations, edges, tree.root, OPTIONS);
    const errors = rotationErrorsDeg(rotations, truth);
    const residualsDeg = Array.from(rotationResiduals(rotations, edges), (r) => (r * 180) / Math.PI);
    console.log(`rotation averaging: ${edges.length} edges (${wrong.length} wrong), error median ${median(errors).toFixed(4)} max ${Math.max(...errors).toFixed(4)} deg, L1 ${l1Iterations}, IRLS ${irlsIterations}`);
    expect(median(errors)).toBeLessThan(0.1);
    expect(Math.max(...errors)).toBeLessThan(0.5);
    for (const k of wrong) expect(residualsDeg[k]).toBeGreaterThan(5);
    const right = residualsDeg.filter((_, k) => !wrong.includes(k));
    expect(Math.max(...right)).toBeLessThan(2);
  });

  it('is deterministic: the same edges give the same rotations bit for bit', () => {
    const run = () => {
      const { edges } = problem(new Random(seed), 20, 4, 0.2, 0.1);
      const tree = spanningTreeRotations(20, edges);
      return averageRotations(tree.rotations, edges, tree.root, OPTIONS).rotations.flatMap((r) => Array.from(r));
    };
    expect(run()).toEqual(run());
  });

  it('says so when the graph is not connected', () => {
    const edges: RotationEdge[] = [{ a: 0, b: 1, rotation: Float64Array.from([1, 0, 0, 0, 1, 0, 0, 0, 1]), weight: 20 }];
    expect(() => spanningTreeRotations(3, edges)).toThrow(/rotation-averaging\.ts: the view graph is not connected/);
  });
});
