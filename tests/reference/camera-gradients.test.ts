/**
 * Camera refinement's gradients in the float64 reference (projection-backward.ts `cameraGrad`,
 * chained to the stored corrections by shared/scene/camera-correction.ts) against central finite
 * differences of the full forward, on fresh random scenes at a random non-zero correction (so the
 * left Jacobian and the translation's coupling are exercised). A camera step moves every splat,
 * so an entry is skipped when any pixel's discrete decision changes; each case pools several
 * scenes so enough entries are checked.
 */
import { describe, expect, it } from 'vitest';
import { cameraGradientOf } from '../../main/engine/render/camera-grads.js';
import { correctCamera, intrinsicsCorrectionGradient, poseCorrectionGradient, type IntrinsicsCorrection, type PoseCorrection } from '../../shared/scene/camera-correction.js';
import { freshSeed, rng } from '../helpers/random.js';
import { rasterizeBackward, rasterizeForward, type RasterizeOptions } from './rasterize.js';
import { finiteDifferenceCheck, linearLoss, randomLossWeights, randomScene, range, uniform, type SplatKind } from './scenes.js';

const EPS = 1e-6;
const TOLERANCE = 2e-5;
const KINDS: readonly SplatKind[] = ['ordinary', 'ordinary', 'ordinary', 'tiny', 'huge', 'transparent', 'opaque', 'behind', 'offscreen'];
const NAMES = ['rot x', 'rot y', 'rot z', 'trans x', 'trans y', 'trans z', 'log fx', 'log fy', 'cx', 'cy'];

/** The 10 stored numbers: rotation, translation, log focal, principal shift. */
function unpack(v: ArrayLike<number>): { pose: PoseCorrection; intrinsics: IntrinsicsCorrection } {
  return {
    pose: { rotation: [v[0], v[1], v[2]], translation: [v[3], v[4], v[5]] },
    intrinsics: { logFocal: [v[6], v[7]], principal: [v[8], v[9]] },
  };
}

function checkScene(seed: number, options: RasterizeOptions) {
  const rand = rng(seed);
  const input = randomScene(rand, { count: 16, width: 33, height: 27, setDegree: 2, shDegree: 2, options, kinds: KINDS });
  const weights = randomLossWeights(rand, input.camera.width * input.camera.height, options);
  const stored = Float64Array.from([...range(3).map(() => uniform(rand, -0.03, 0.03)), ...range(3).map(() => uniform(rand, -0.05, 0.05)), ...range(2).map(() => uniform(rand, -0.05, 0.05)), ...range(2).map(() => uniform(rand, -0.02, 0.02))]);
  const cameraOf = () => {
    const { pose, intrinsics } = unpack(stored);
    return correctCamera(input.camera, pose, intrinsics);
  };
  const local = new Float64Array(12);
  rasterizeBackward({ ...input, camera: cameraOf() }, weights, local);
  const { pose, intrinsics } = unpack(stored);
  const g = cameraGradientOf(local);
  const dPose = poseCorrectionGradient(g, pose);
  const dIntrinsics = intrinsicsCorrectionGradient(g, input.camera, intrinsics);
  const analytic = [...dPose.rotation, ...dPose.translation, ...dIntrinsics.logFocal, ...dIntrinsics.principal];
  const evaluate = () => {
    const r = rasterizeForward({ ...input, camera: cameraOf() });
    return { loss: linearLoss(r, weights), signature: r.branchSignature };
  };
  return { stored, analytic, evaluate, local };
}

describe('camera refinement gradients (reference) match finite differences', () => {
  const cases: { name: string; options: RasterizeOptions }[] = [
    { name: 'classic, rgb + alpha + depth', options: { antialiased: false } },
    { name: 'antialiased, rgb + alpha + depth', options: { antialiased: true } },
    { name: 'with median depth, normals and distortion', options: { antialiased: false, medianDepth: true, normals: true, distortion: true } },
  ];
  for (const { name, options } of cases) {
    it(name, () => {
      const seed = freshSeed();
      let checked = 0;
      let skipped = 0;
      const diff2 = new Float64Array(10);
      const fd2 = new Float64Array(10);
      for (let scene = 0; scene < 4; scene++) {
        const { stored, analytic, evaluate } = checkScene((seed + scene * 7919) >>> 0, options);
        for (let j = 0; j < 10; j++) {
          const report = finiteDifferenceCheck(stored, analytic, [j], EPS, evaluate);
          checked += report.checked;
          skipped += report.skipped;
          if (report.checked) {
            diff2[j] += (analytic[j] - report.worst.fd) ** 2;
            fd2[j] += report.worst.fd ** 2;
          }
        }
      }
      const context = `seed ${seed}: ${checked} checked, ${skipped} skipped; rel error per parameter ${NAMES.map((n, j) => `${n} ${(Math.sqrt(diff2[j]) / Math.max(Math.sqrt(fd2[j]), 1e-300)).toExponential(2)}`).join(', ')}`;
      if (process.env.ARGONAUT_FD_VERBOSE) console.log(context);
      expect(checked, context).toBeGreaterThanOrEqual(30);
      for (let j = 0; j < 10; j++) {
        expect(fd2[j], `${context}: the loss does not depend on ${NAMES[j]}`).toBeGreaterThan(1e-16);
        expect(Math.sqrt(diff2[j] / fd2[j]), `${context}: ${NAMES[j]}`).toBeLessThan(TOLERANCE);
      }
    });
  }
});
