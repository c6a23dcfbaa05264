import { describe, expect, it } from 'vitest';
import {
  BA_CAMERA_MODELS,
  CAMERA_MODELS,
  generalIntrinsics,
  linearizeObservation,
  observationJacobiansScratch,
  projectWorldPoint,
  refinedParameterIndices,
  type BaCameraModel,
} from '../../../../../main/engine/sfm/bundle/camera-models.js';
import { multiply3 } from '../../../../../main/engine/sfm/verify/dense.js';
import { rotationFromVector } from '../../../../../main/engine/sfm/verify/rotation.js';
import { Random } from '../../../../../shared/random.js';
import { freshSeed } from '../../../../helpers/random.js';

const seed = freshSeed();

/** Plausible parameters of a model: focal 500-1500 px, principal point near 400, 300, distortion of a real lens's size. */
function randomParams(model: BaCameraModel, random: Random): Float64Array {
  const value: Record<string, () => number> = {
    f: () => 500 + 1000 * random.next(),
    fx: () => 500 + 1000 * random.next(),
    fy: () => 500 + 1000 * random.next(),
    cx: () => 400 + 50 * random.normal(),
    cy: () => 300 + 50 * random.normal(),
    k: () => 0.2 * random.normal(),
    k1: () => 0.2 * random.normal(),
    k2: () => 0.05 * random.normal(),
    p1: () => 0.01 * random.normal(),
    p2: () => 0.01 * random.normal(),
  };
  return Float64Array.from(CAMERA_MODELS[model].parameterNames.map((name) => value[name]()));
}

describe(`camera models (seed ${seed})`, () => {
  const random = new Random(seed);

  it('refines the parameters COLMAP names by kind, in its order', () => {
    const all = { refineFocal: true, refinePrincipalPoint: true, refineExtra: true };
    const colmap = { refineFocal: true, refinePrincipalPoint: false, refineExtra: true };
    expect(refinedParameterIndices('SIMPLE_PINHOLE', colmap)).toEqual([0]);
    expect(refinedParameterIndices('PINHOLE', colmap)).toEqual([0, 1]);
    expect(refinedParameterIndices('SIMPLE_RADIAL', colmap)).toEqual([0, 3]);
    expect(refinedParameterIndices('RADIAL', colmap)).toEqual([0, 3, 4]);
    expect(refinedParameterIndices('OPENCV', colmap)).toEqual([0, 1, 4, 5, 6, 7]);
    expect(refinedParameterIndices('OPENCV', all)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(refinedParameterIndices('RADIAL', { refineFocal: false, refinePrincipalPoint: true, refineExtra: false })).toEqual([1, 2]);
    expect(() => refinedParameterIndices('FISHEYE' as BaCameraModel, all)).toThrow(/camera-models\.ts: unknown camera model 'FISHEYE'/);
  });

  it('projects as the written model does (SIMPLE_RADIAL and OPENCV by hand)', () => {
    const rotation = rotationFromVector([0.1, -0.2, 0.05]);
    const translation = [0.3, -0.1, 4];
    const point = [0.5, 0.7, 1];
    const xc = [0, 1, 2].map((r) => rotation[3 * r] * point[0] + rotation[3 * r + 1] * point[1] + rotation[3 * r + 2] * point[2] + translation[r]);
    const [x, y] = [xc[0] / xc[2], xc[1] / xc[2]];
    const r2 = x * x + y * y;
    const [u, v] = projectWorldPoint('SIMPLE_RADIAL', [800, 400, 300, -0.05], rotation, translation, point);
    expect(u).toBeCloseTo(800 * x * (1 - 0.05 * r2) + 400, 10);
    expect(v).toBeCloseTo(800 * y * (1 - 0.05 * r2) + 300, 10);
    const [k1, k2, p1, p2] = [-0.1, 0.02, 0.003, -0.002];
    const radial = 1 + k1 * r2 + k2 * r2 * r2;
    const [u2, v2] = projectWorldPoint('OPENCV', [810, 790, 401, 299, k1, k2, p1, p2], rotation, translation, point);
    expect(u2).toBeCloseTo(810 * (x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)) + 401, 10);
    expect(v2).toBeCloseTo(790 * (y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y) + 299, 10);
  });

  for (const model of BA_CAMERA_MODELS) {
    it(`${model}: every Jacobian (pose dw, dt, point, each intrinsic) matches central differences`, () => {
      const all = refinedParameterIndices(model, { refineFocal: true, refinePrincipalPoint: true, refineExtra: true });
      for (let trial = 0; trial < 5; trial++) {
        const params = randomParams(model, random);
        const rotation = rotationFromVector([random.normal(), random.normal(), random.normal()]);
        // A point 2-6 units in front, within a ~60 degree field of view.
        const depth = 2 + 4 * random.next();
        const xc = [depth * 0.5 * (random.next() - 0.5), depth * 0.5 * (random.next() - 0.5), depth];
        const translation = Float64Array.from([random.normal(), random.normal(), random.normal()]);
        // X = R^T (X_c - t).
        const point = Float64Array.from([0, 1, 2].map((c) => rotation[c] * (xc[0] - translation[0]) + rotation[3 + c] * (xc[1] - translation[1]) + rotation[6 + c] * (xc[2] - translation[2])));
        const obs = [300 * random.next(), 200 * random.next()];
        const out = observationJacobiansScratch();
        const residualAt = (p: Float64Array, r: Float64Array, t: Float64Array, x: Float64Array): [number, number] => {
          const scratch = observationJacobiansScratch();
          linearizeObservation(model, generalIntrinsics(model, p), all, r, 0, t, 0, x, 0, obs[0], obs[1], scratch);
          return [scratch.residual[0], scratch.residual[1]];
        };
        linearizeObservation(model, generalIntrinsics(model, params), all, rotation, 0, translation, 0, point, 0, obs[0], obs[1], out);
        const [u, v] = projectWorldPoint(model, params, rotation, translation, point);
        expect(out.residual[0]).toBeCloseTo(u - obs[0], 9);
        expect(out.residual[1]).toBeCloseTo(v - obs[1], 9);
        const expectDerivative = (analytic: [number, number], perturbed: (h: number) => [number, number], h: number, what: string) => {
          const [plus, minus] = [perturbed(h), perturbed(-h)];
          for (let row = 0; row < 2; row++) {
            const numeric = (plus[row] - minus[row]) / (2 * h);
            const error = Math.abs(analytic[row] - numeric);
            if (error > 1e-6 * (1 + Math.abs(numeric))) throw new Error(`${model} ${what} row ${row}: analytic ${analytic[row]}, numeric ${numeric}`);
          }
        };
        for (let c = 0; c < 3; c++) {
          const e = [0, 0, 0];
          e[c] = 1;
          expectDerivative([out.jPose[c], out.jPose[6 + c]], (h) => residualAt(params, multiply3(rotationFromVector([h * e[0], h * e[1], h * e[2]]), rotation), translation, point), 1e-6, `dw${c}`);
          expectDerivative([out.jPose[3 + c], out.jPose[9 + c]], (h) => residualAt(params, rotation, translation.map((t, k) => (k === c ? t + h : t)), point), 1e-6, `dt${c}`);
          expectDerivative([out.jPoint[c], out.jPoint[3 + c]], (h) => residualAt(params, rotation, translation, point.map((x, k) => (k === c ? x + h : x))), 1e-6, `dX${c}`);
        }
        all.forEach((index, m) => {
          const step = index < 4 && CAMERA_MODELS[model].kinds[index] !== 'extra' ? 1e-3 : 1e-7;
          expectDerivative([out.jIntrinsics[m], out.jIntrinsics[all.length + m]], (h) => residualAt(params.map((p, k) => (k === index ? p + h : p)), rotation, translation, point), step, CAMERA_MODELS[model].parameterNames[index]);
        });
      }
    });
  }

  it('a refined subset gives the same columns as the full set', () => {
    const params = randomParams('OPENCV', random);
    const rotation = rotationFromVector([0.2, 0.1, -0.3]);
    const [t, x] = [Float64Array.from([0.1, 0.2, 3]), Float64Array.from([0.2, -0.1, 0.5])];
    const full = observationJacobiansScratch();
    const subset = observationJacobiansScratch();
    const all = [0, 1, 2, 3, 4, 5, 6, 7];
    const some = [0, 1, 4, 5, 6, 7];
    linearizeObservation('OPENCV', generalIntrinsics('OPENCV', params), all, rotation, 0, t, 0, x, 0, 1, 2, full);
    linearizeObservation('OPENCV', generalIntrinsics('OPENCV', params), some, rotation, 0, t, 0, x, 0, 1, 2, subset);
    some.forEach((index, m) => {
      expect(subset.jIntrinsics[m]).toBe(full.jIntrinsics[index]);
      expect(subset.jIntrinsics[some.length + m]).toBe(full.jIntrinsics[all.length + index]);
    });
  });
});
