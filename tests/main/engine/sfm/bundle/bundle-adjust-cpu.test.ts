import { describe, expect, it } from 'vitest';
import { BA_DEFAULTS, bundleAdjustCpu } from '../../../../../main/engine/sfm/bundle/bundle-adjust-cpu.js';
import { BA_CAMERA_MODELS } from '../../../../../main/engine/sfm/bundle/camera-models.js';
import type { BaOptions, BaProblem } from '../../../../../main/engine/sfm/bundle/problem.js';
import { squaredResiduals } from '../../../../../main/engine/sfm/bundle/reference.js';
import { median } from '../../../../../shared/math/median.js';
import { Random } from '../../../../../shared/random.js';
import { freshSeed } from '../../../../helpers/random.js';
import { rotationErrorsDeg } from '../global/alignment.js';
import { perturbed, syntheticScene } from './ba-scenes.js';

const seed = freshSeed();
const TRUE_CAMERA = Float64Array.from([800, 400, 300, -0.05]);

/**
 * 30 cameras sharing one SIMPLE_RADIAL camera (k = -0.05) around 1,200 points, 0.5 px noise, 5%
 * of the observations replaced by outliers 5-40 px off; the start: focal 3% off, k = 0, poses
 * 0.5 deg and 1% off, points 1% of the scene off.
 */
function outlierScene(random: Random): { truth: BaProblem; start: BaProblem; outlier: Uint8Array } {
  const truth = syntheticScene(random, { images: 30, points: 1200, models: ['SIMPLE_RADIAL'], params: [TRUE_CAMERA], visibility: 0.4, noisePx: 0.5 });
  const outlier = new Uint8Array(truth.obsImage.length);
  const obsXY = truth.obsXY.slice();
  for (let o = 0; o < outlier.length; o++) {
    if (random.next() >= 0.05) continue;
    outlier[o] = 1;
    const [distance, angle] = [5 + 35 * random.next(), 2 * Math.PI * random.next()];
    obsXY[2 * o] += distance * Math.cos(angle);
    obsXY[2 * o + 1] += distance * Math.sin(angle);
  }
  const noisy = { ...truth, obsXY };
  const start = perturbed(noisy, random, { rotationDeg: 0.5, translationFraction: 0.01, pointSigma: 0.01, focalFraction: 0.03 });
  start.cameras[0].params[3] = 0;
  return { truth, start, outlier };
}

function inlierMeanErrorPx(problem: BaProblem, outlier: Uint8Array): number {
  const squared = squaredResiduals(problem);
  let [sum, count] = [0, 0];
  squared.forEach((s, o) => {
    if (outlier[o]) return;
    sum += Math.sqrt(s);
    count++;
  });
  return sum / count;
}

function rotationsOf(problem: BaProblem) {
  return Array.from({ length: problem.rotations.length / 9 }, (_, i) => problem.rotations.slice(9 * i, 9 * i + 9));
}

describe(`bundleAdjustCpu (seed ${seed})`, () => {
  const random = new Random(seed);
  const scene = outlierScene(random);

  it('recovers a shared SIMPLE_RADIAL camera, the poses and a noise-level fit through 5% outliers (Cauchy, the default)', async () => {
    const progress: number[] = [];
    const result = await bundleAdjustCpu(scene.start, BA_DEFAULTS, { onProgress: (iteration) => progress.push(iteration) });
    const [f, , , k] = result.problem.cameras[0].params;
    const rotationErrors = rotationErrorsDeg(rotationsOf(result.problem), rotationsOf(scene.truth));
    const meanErrorPx = inlierMeanErrorPx(result.problem, scene.outlier);
    console.log(
      `BA synthetic (30 images, ${scene.start.obsImage.length} observations, cauchy): ${result.iterations} iterations (${result.reason}), ${result.seconds.toFixed(2)} s, ` +
        `cost ${result.initialCost.toFixed(0)} -> ${result.finalCost.toFixed(1)}, focal ${f.toFixed(2)} (true 800), k ${k.toFixed(4)}, ` +
        `rotation error median ${median(rotationErrors).toFixed(4)} deg, inlier mean error ${meanErrorPx.toFixed(3)} px, pcg ${result.perIteration.map((r) => r.pcgIterations).join(',')}`,
    );
    expect(Math.abs(f / 800 - 1)).toBeLessThan(0.003);
    expect(Math.abs(k - -0.05)).toBeLessThan(0.01);
    expect(median(rotationErrors)).toBeLessThan(0.05);
    // 2D Gaussian noise of 0.5 px per axis: mean |r| = 0.5 sqrt(pi / 2) = 0.63 px, a little less after fitting.
    expect(meanErrorPx).toBeLessThan(0.7);
    expect(result.finalCost).toBeLessThan(result.initialCost);
    expect(progress).toEqual(result.perIteration.map((_, i) => i + 1));
    expect(result.perIteration.filter((r) => r.accepted).length).toBeGreaterThan(0);
    // The input is left as it was.
    expect(scene.start.cameras[0].params[3]).toBe(0);
  });

  it('the robust loss fits the inliers better than the trivial one does with the outliers in', async () => {
    const options: BaOptions = { ...BA_DEFAULTS, maxIterations: 30 };
    const [robust, trivial] = await Promise.all([bundleAdjustCpu(scene.start, options), bundleAdjustCpu(scene.start, { ...options, loss: 'trivial' })]);
    const robustError = inlierMeanErrorPx(robust.problem, scene.outlier);
    const trivialError = inlierMeanErrorPx(trivial.problem, scene.outlier);
    const focalError = (p: BaProblem) => Math.abs(p.cameras[0].params[0] / 800 - 1);
    console.log(`BA synthetic, inlier mean error: cauchy ${robustError.toFixed(3)} px, trivial ${trivialError.toFixed(3)} px; focal error ${focalError(robust.problem).toExponential(2)} vs ${focalError(trivial.problem).toExponential(2)}`);
    expect(robustError).toBeLessThan(trivialError);
    expect(trivialError - robustError).toBeGreaterThan(0.05);
  });

  for (const model of BA_CAMERA_MODELS) {
    it(`${model}: from perturbed poses, points and focals, exact observations are fitted exactly (every intrinsic refined)`, async () => {
      const truth = syntheticScene(random, { images: 8, points: 150, models: [model, model], visibility: 0.7, noisePx: 0 });
      const start = perturbed(truth, random, { rotationDeg: 0.3, translationFraction: 0.005, pointSigma: 0.005, focalFraction: 0.01 });
      const options = { ...BA_DEFAULTS, refinePrincipalPoint: true, functionTolerance: 1e-12, loss: 'trivial' as const };
      const result = await bundleAdjustCpu(start, options);
      const meanError = inlierMeanErrorPx(result.problem, new Uint8Array(truth.obsImage.length));
      expect(result.initialCost).toBeGreaterThan(100);
      expect(meanError, `${model}: ${result.iterations} iterations (${result.reason})`).toBeLessThan(1e-4);
      // With 8 images around the points every intrinsic is determined: focal to 1e-5 of itself.
      result.problem.cameras.forEach((camera, c) => expect(Math.abs(camera.params[0] / truth.cameras[c].params[0] - 1)).toBeLessThan(1e-5));
    });
  }

  it('stops when cancelled, between iterations, with the signal\'s reason', async () => {
    const controller = new AbortController();
    const run = bundleAdjustCpu(scene.start, BA_DEFAULTS, { signal: controller.signal, onProgress: () => controller.abort(new Error('stop here')) });
    await expect(run).rejects.toThrow('stop here');
  });

  it('refuses degenerate input by name: no observations, a point seen once, a NaN, an index out of range', async () => {
    const base = syntheticScene(random, { images: 3, points: 5, models: ['PINHOLE'], visibility: 1, noisePx: 0 });
    const none = { ...base, obsImage: new Uint32Array(0), obsPoint: new Uint32Array(0), obsXY: new Float64Array(0) };
    await expect(bundleAdjustCpu(none)).rejects.toThrow(/bundle\/problem\.ts: no observations/);
    // Point 0 keeps only its first observation.
    const keep = Array.from(base.obsPoint, (j, o) => j !== 0 || o === 0);
    const once = {
      ...base,
      obsImage: base.obsImage.filter((_, o) => keep[o]),
      obsPoint: base.obsPoint.filter((_, o) => keep[o]),
      obsXY: base.obsXY.filter((_, k) => keep[k >> 1]),
    };
    await expect(bundleAdjustCpu(once)).rejects.toThrow(/bundle\/problem\.ts: point 0 has 1 observation\(s\)/);
    const nan = { ...base, points: base.points.map((v, k) => (k === 4 ? NaN : v)) };
    await expect(bundleAdjustCpu(nan)).rejects.toThrow(/bundle\/problem\.ts: points\[4\] is NaN/);
    const outOfRange = { ...base, obsImage: base.obsImage.map((v, o) => (o === 2 ? 7 : v)) };
    await expect(bundleAdjustCpu(outOfRange)).rejects.toThrow(/bundle\/problem\.ts: observation 2: image 7, but there are 3/);
    const twice = { ...base, obsImage: base.obsImage.map((v, o) => (o === 1 ? base.obsImage[0] : v)) };
    await expect(bundleAdjustCpu(twice)).rejects.toThrow(/observed twice by image/);
    const wrongParams = { ...base, cameras: [{ model: 'OPENCV' as const, params: Float64Array.from([800, 800, 400, 300]) }] };
    await expect(bundleAdjustCpu(wrongParams)).rejects.toThrow(/camera 0 \(OPENCV\): 4 params, expected 8/);
    await expect(bundleAdjustCpu({ ...base, fixedImages: new Uint8Array(2) })).rejects.toThrow(/fixedImages: 2 entries, expected one per image \(3\)/);
    // A fourth image, free, that sees nothing.
    const blind = { ...base, rotations: Float64Array.from([...base.rotations, ...base.rotations.subarray(0, 9)]), translations: Float64Array.from([...base.translations, 0, 0, 5]), imageCamera: new Uint32Array(4) };
    await expect(bundleAdjustCpu(blind)).rejects.toThrow(/image 3 observes no point/);
    await expect(bundleAdjustCpu({ ...blind, fixedImages: Uint8Array.from([1, 0, 0, 1]) })).resolves.toBeDefined();
  });
});
