import { Matrix, inverse } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { applyStep, initialLmState, lmIteration } from '../../../../../main/engine/sfm/bundle/lm-iteration.js';
import { fromNormalisedFrame, normalisingSimilarity, toNormalisedFrame } from '../../../../../main/engine/sfm/bundle/normalisation.js';
import { BA_DEFAULTS, type BaOptions, type BaProblem } from '../../../../../main/engine/sfm/bundle/problem.js';
import {
  backSubstitute,
  linearise,
  lossValue,
  lossWeight,
  pcg,
  reducedRightHandSide,
  robustCost,
  schurMatVec,
  schurSystem,
  squaredResiduals,
  type SchurSystem,
} from '../../../../../main/engine/sfm/bundle/reference.js';
import { Random } from '../../../../../shared/random.js';
import { freshSeed } from '../../../../helpers/random.js';
import { denseJacobian, denseNormalEquations, denseSolve, maxRelativeDifference, perturbed, syntheticScene } from './ba-scenes.js';

const seed = freshSeed();
const ALL_INTRINSICS: BaOptions = { ...BA_DEFAULTS, refinePrincipalPoint: true };

/** A tiny problem: 5 images over 3 cameras of different models (the first image held), 25 points, 1 px noise, parameters perturbed from the truth. */
function tinyProblem(random: Random, loss: BaOptions['loss'] = 'cauchy'): { problem: BaProblem; truth: BaProblem; options: BaOptions } {
  const truth = syntheticScene(random, { images: 5, points: 25, models: ['SIMPLE_RADIAL', 'OPENCV', 'PINHOLE'], visibility: 0.7, noisePx: 1 });
  const problem = perturbed({ ...truth, fixedImages: Uint8Array.from([1, 0, 0, 0, 0]) }, random, { rotationDeg: 0.5, translationFraction: 0.01, pointSigma: 0.01, focalFraction: 0.01 });
  return { problem, truth: { ...truth, fixedImages: problem.fixedImages }, options: { ...ALL_INTRINSICS, loss, lossScalePx: 2 } };
}

/** The dense S = (Hcc + lambda Dc) - Hcp (Hpp + lambda Dp)^-1 Hpc and b, from the dense normal equations. */
function denseSchur(system: SchurSystem) {
  const { h, g, d } = denseNormalEquations(system.lin);
  const n = system.lin.layout.reducedSize;
  const total = h.rows;
  const damped = h.clone();
  for (let k = 0; k < total; k++) damped.set(k, k, damped.get(k, k) + system.lambda * d[k]);
  const hcc = damped.subMatrix(0, n - 1, 0, n - 1);
  const hcp = damped.subMatrix(0, n - 1, n, total - 1);
  const hppInverse = inverse(damped.subMatrix(n, total - 1, n, total - 1));
  const s = hcc.sub(hcp.mmul(hppInverse).mmul(hcp.transpose()));
  const gc = Matrix.columnVector(Array.from(g.subarray(0, n)));
  const gp = Matrix.columnVector(Array.from(g.subarray(n)));
  const b = gc.mul(-1).add(hcp.mmul(hppInverse).mmul(gp));
  return { s, b: Float64Array.from(b.to1DArray()), damped, g, d, h };
}

describe(`bundle adjustment reference (seed ${seed})`, () => {
  const random = new Random(seed);

  it('losses: rho at the scale, IRLS weights as rho\'(s) by central differences', () => {
    for (const loss of ['trivial', 'huber', 'cauchy'] as const) {
      const o = { loss, lossScalePx: 1.5 };
      for (const s of [0.1, 1, 2.2, 9, 100]) {
        const h = 1e-6 * s;
        expect(lossWeight(s, o)).toBeCloseTo((lossValue(s + h, o) - lossValue(s - h, o)) / (2 * h), 6);
      }
      expect(lossValue(0.5, o)).toBeCloseTo(loss === 'cauchy' ? 2.25 * Math.log1p(0.5 / 2.25) : 0.5, 12);
    }
    expect(lossValue(9, { loss: 'huber', lossScalePx: 1 })).toBeCloseTo(2 * 3 - 1, 12);
  });

  it('linearise: the Jacobians are the derivatives of the residuals through applyStep (every reduced and point variable)', () => {
    const { problem, options } = tinyProblem(random);
    const lin = linearise(problem, options);
    const n = lin.layout.reducedSize;
    const total = n + problem.points.length;
    const { j } = denseJacobian(lin);
    const residualsAt = (k: number, step: number) => {
      const dc = new Float64Array(n);
      const dp = new Float64Array(problem.points.length);
      if (k < n) dc[k] = step;
      else dp[k - n] = step;
      return linearise(applyStep(problem, lin.layout, dc, dp), options).residuals;
    };
    expect(lin.cost).toBeCloseTo(robustCost(problem, options), 9);
    expect(squaredResiduals(problem)[0]).toBeCloseTo(lin.residuals[0] ** 2 + lin.residuals[1] ** 2, 9);
    for (let k = 0; k < total; k++) {
      // Intrinsics are in pixels (focal ~800): a larger step for the same relative change.
      const step = k >= lin.layout.intrinsicOffset[0] && k < n ? 1e-4 : 1e-6;
      const [plus, minus] = [residualsAt(k, step), residualsAt(k, -step)];
      const numeric = plus.map((v, row) => (v - minus[row]) / (2 * step));
      const analytic = j.getColumn(k);
      expect(maxRelativeDifference(analytic, numeric), `variable ${k}`).toBeLessThan(1e-6);
    }
  });

  it('pointBlocks and cameraBlocks are the diagonal blocks and gradient of the dense normal equations', () => {
    const { problem, options } = tinyProblem(random);
    const lambda = 0.3;
    const system = schurSystem(linearise(problem, options), lambda);
    const { h, g, d, s } = denseSchur(system);
    const { layout } = system.lin;
    const n = layout.reducedSize;
    for (let j = 0; j < problem.points.length / 3; j++) {
      for (let r = 0; r < 3; r++) {
        expect(system.points.gradient[3 * j + r]).toBeCloseTo(g[n + 3 * j + r], 8);
        expect(system.points.diagonal[3 * j + r]).toBeCloseTo(d[n + 3 * j + r], 8);
        for (let c = 0; c < 3; c++) expect(system.points.v[9 * j + 3 * r + c]).toBeCloseTo(h.get(n + 3 * j + r, n + 3 * j + c), 6);
      }
    }
    expect(maxRelativeDifference(system.cameras.gradient, g.subarray(0, n))).toBeLessThan(1e-12);
    expect(maxRelativeDifference(system.cameras.diagonal, d.subarray(0, n))).toBeLessThan(1e-12);
    layout.poseOffset.forEach((offset, i) => {
      if (offset < 0) return;
      const block = Float64Array.from({ length: 36 }, (_, k) => h.get(offset + Math.floor(k / 6), offset + (k % 6)));
      expect(maxRelativeDifference(system.cameras.poseBlocks.subarray(6 * offset, 6 * offset + 36), block), `image ${i}`).toBeLessThan(1e-12);
      // The pose preconditioner is S's own diagonal block.
      const schurBlock = Float64Array.from({ length: 36 }, (_, k) => s.get(offset + Math.floor(k / 6), offset + (k % 6)));
      expect(maxRelativeDifference(system.cameras.posePreconditioner.subarray(6 * offset, 6 * offset + 36), schurBlock), `image ${i}`).toBeLessThan(1e-9);
    });
    layout.refined.forEach((indices, c) => {
      const k = indices.length;
      const offset = layout.intrinsicOffset[c];
      const block = Float64Array.from({ length: k * k }, (_, q) => h.get(offset + Math.floor(q / k), offset + (q % k)) + (q % (k + 1) === 0 ? lambda * d[offset + q / (k + 1)] : 0));
      const at = system.cameras.intrinsicBlockOffset[c];
      expect(maxRelativeDifference(system.cameras.intrinsicPreconditioner.subarray(at, at + k * k), block), `camera ${c}`).toBeLessThan(1e-12);
    });
  });

  it('schurMatVec equals the explicitly formed S, and the right-hand side equals -g_c + W V^-1 g_p', () => {
    const { problem, options } = tinyProblem(random);
    const system = schurSystem(linearise(problem, options), 0.05);
    const { s, b } = denseSchur(system);
    for (let trial = 0; trial < 3; trial++) {
      const x = Float64Array.from({ length: s.rows }, () => random.normal());
      const dense = Float64Array.from(s.mmul(Matrix.columnVector(Array.from(x))).to1DArray());
      expect(maxRelativeDifference(schurMatVec(system, x), dense)).toBeLessThan(1e-9);
    }
    expect(maxRelativeDifference(reducedRightHandSide(system), b)).toBeLessThan(1e-9);
  });

  it('pcg to convergence equals the dense solve of S dc = b; a fixed count runs exactly that many iterations', () => {
    const { problem, options } = tinyProblem(random);
    const system = schurSystem(linearise(problem, options), 1e-3);
    const { s, b } = denseSchur(system);
    const exact = denseSolve(s, b);
    const solved = pcg(system, reducedRightHandSide(system), 500, 1e-13);
    expect(solved.relativeResidual).toBeLessThan(1e-12);
    expect(maxRelativeDifference(solved.x, exact)).toBeLessThan(1e-7);
    const three = pcg(system, reducedRightHandSide(system), 3, 0);
    expect(three.iterations).toBe(3);
    // Three CG steps from 0 minimise the S-norm error over a Krylov space: better than none, short of exact.
    expect(three.relativeResidual).toBeGreaterThan(solved.relativeResidual);
    expect(three.relativeResidual).toBeLessThan(1);
  });

  it('back-substitution completes the full dense (H + lambda D) delta = -g solve', () => {
    const { problem, options } = tinyProblem(random, 'huber');
    const system = schurSystem(linearise(problem, options), 0.02);
    const { damped, g } = denseSchur(system);
    const exact = denseSolve(damped, g.map((v) => -v));
    const dc = pcg(system, reducedRightHandSide(system), 500, 1e-14).x;
    const dp = backSubstitute(system, dc);
    const n = dc.length;
    expect(maxRelativeDifference(dc, exact.subarray(0, n))).toBeLessThan(1e-7);
    expect(maxRelativeDifference(dp, exact.subarray(n))).toBeLessThan(1e-7);
  });

  it('one lmIteration lowers the robust cost as its model predicts (gain ratio near 1 for a short step)', () => {
    const { problem, options } = tinyProblem(random);
    const step = lmIteration(problem, initialLmState(options), options);
    expect(step.accepted).toBe(true);
    expect(step.cost).toBeLessThan(0.5 * step.previousCost);
    expect(step.cost).toBeCloseTo(robustCost(step.problem, options), 9);
    expect(step.state.lambda).toBeLessThan(options.initialLambda);
    // A second step from there, damped (lambda 1: about half the Gauss-Newton step): the quadratic
    // model's error shrinks faster than the step, so a short step must gain about what the model
    // predicts. Measured 1.06-1.24 over 200 seeds. The undamped second step (lambda ~3e-5) is not
    // short: where the first one stopped far from the optimum its ratio fell to 0.07-0.29 on about
    // 1 seed in 50 (seeds 3451867389, 2654759368), however right the model.
    const next = lmIteration(step.problem, { ...step.state, lambda: 1 }, options);
    expect(next.accepted, `seed ${seed}`).toBe(true);
    expect(next.gainRatio, `seed ${seed}`).toBeGreaterThan(0.5);
    expect(next.gainRatio, `seed ${seed}`).toBeLessThan(1.5);
  });

  it('a step that raises the cost is rejected: x kept, lambda times nu, nu doubled, the linearisation kept', () => {
    const { problem, truth, options } = tinyProblem(random);
    // The step solved from the perturbed problem's linearisation moves the truth (near the optimum) away from it.
    const stale = linearise(problem, options);
    const step = lmIteration(truth, { lambda: 1e-3, nu: 4, linearisation: { ...stale, cost: robustCost(truth, options) } }, options);
    expect(step.accepted).toBe(false);
    expect(step.problem).toBe(truth);
    expect(step.cost).toBe(step.previousCost);
    expect(step.state.lambda).toBeCloseTo(4e-3, 15);
    expect(step.state.nu).toBe(8);
    expect(step.state.linearisation).toBeDefined();
  });

  it('normalisation: the points\' median to the origin at median distance 1, pixels unchanged, and back exactly', () => {
    const { problem, options } = tinyProblem(random);
    const shifted = { ...problem, points: problem.points.map((v, k) => 3 * v + [10, -5, 2][k % 3]) };
    // Moving the points alone changes the residuals: give the cameras the same similarity through a frame change.
    const similarity = normalisingSimilarity(shifted.points);
    const normalised = toNormalisedFrame(shifted, similarity);
    const distances = Array.from({ length: normalised.points.length / 3 }, (_, j) => Math.hypot(normalised.points[3 * j], normalised.points[3 * j + 1], normalised.points[3 * j + 2])).sort((a, b) => a - b);
    const medianDistance = distances.length % 2 ? distances[distances.length >> 1] : (distances[distances.length / 2 - 1] + distances[distances.length / 2]) / 2;
    expect(medianDistance).toBeCloseTo(1, 12);
    expect(robustCost(normalised, options)).toBeCloseTo(robustCost(shifted, options), 8);
    const back = fromNormalisedFrame(normalised, similarity);
    expect(maxRelativeDifference(back.points, shifted.points)).toBeLessThan(1e-13);
    expect(maxRelativeDifference(back.translations, shifted.translations)).toBeLessThan(1e-12);
  });
});
