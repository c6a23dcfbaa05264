/**
 * Camera refinement end to end on the procedural sample scene: the training views' poses are
 * perturbed (1.5 degrees about a random axis, 2% of the scene scale along a random direction) and
 * their shared focal length scaled by 1.05; training with `poses+intrinsics` must bring each
 * camera back to within a tenth of its perturbation and reach the test PSNR of a run on the exact
 * cameras within 0.5 dB. The full measurement (more steps, larger images) is in the report of the
 * commit; ARGONAUT_REFINE_STEPS / ARGONAUT_REFINE_WIDTH scale this run.
 */
import { describe, expect, it } from 'vitest';
import type { TrainingData } from '../../../../main/engine/train/data.js';
import { sampleScene } from '../../../../main/engine/train/sample-scene.js';
import { defaultTrainerConfig, Trainer } from '../../../../main/engine/train/trainer.js';
import { CAMERA_REFINE_DEFAULTS } from '../../../../main/engine/train/camera-refine.js';
import { correctCamera, so3Exp } from '../../../../shared/scene/camera-correction.js';
import { invertRigid, type PinholeCamera } from '../../../../shared/scene/camera.js';
import { Random } from '../../../../shared/random.js';
import { testGpu } from '../../../helpers/gpu.js';

const STEPS = Number(process.env.ARGONAUT_REFINE_STEPS ?? 1500);
const WIDTH = Number(process.env.ARGONAUT_REFINE_WIDTH ?? 96);
const ANGLE = (1.5 * Math.PI) / 180;
const SHIFT = 0.02; // x scene scale
const FOCAL = 1.05;

function unit(random: Random): [number, number, number] {
  for (;;) {
    const v = [random.next() * 2 - 1, random.next() * 2 - 1, random.next() * 2 - 1];
    const l = Math.hypot(v[0], v[1], v[2]);
    if (l > 0.1 && l <= 1) return [v[0] / l, v[1] / l, v[2] / l];
  }
}

/** The camera with its pose turned by `angle` about a random axis and moved `shift` along a random direction (world-to-camera, left). */
function perturbed(camera: PinholeCamera, random: Random, shift: number): PinholeCamera {
  const axis = unit(random);
  const dir = unit(random);
  return {
    ...correctCamera(camera, { rotation: [axis[0] * ANGLE, axis[1] * ANGLE, axis[2] * ANGLE], translation: [dir[0] * shift, dir[1] * shift, dir[2] * shift] }),
    fx: camera.fx * FOCAL,
    fy: camera.fy * FOCAL,
  };
}

function centre(c: PinholeCamera): number[] {
  const m = invertRigid(c.worldToCamera);
  return [m[3], m[7], m[11]];
}

/** Angle (radians) of R_a R_b^T. */
function rotationError(a: PinholeCamera, b: PinholeCamera): number {
  const A = a.worldToCamera;
  const B = b.worldToCamera;
  let trace = 0;
  for (let r = 0; r < 3; r++) for (let k = 0; k < 3; k++) trace += A[4 * r + k] * B[4 * r + k];
  return Math.acos(Math.min(1, Math.max(-1, (trace - 1) / 2)));
}

describe('camera refinement recovers perturbed training cameras', () => {
  it(`poses+intrinsics on the sample scene (${STEPS} steps, ${WIDTH}px)`, async () => {
    const ctx = await testGpu();
    const height = Math.round((WIDTH * 3) / 4);
    const truth = await sampleScene(ctx, { width: WIDTH, height, views: 24, splats: 1500 });
    const random = new Random(11);
    const shift = SHIFT * truth.sceneScale;
    const given: TrainingData = { ...truth, views: truth.views.map((v) => (v.split === 'train' ? { ...v, camera: perturbed(v.camera, random, shift) } : v)), posesEstimated: true };
    const base = { iterations: STEPS, shDegree: 0, initPoints: 1500, seed: 3 };
    const run = async (data: TrainingData, mode: 'off' | 'poses+intrinsics') => {
      const refine = { ...CAMERA_REFINE_DEFAULTS, mode, start: Math.round(STEPS * 0.1), ramp: Math.round(STEPS * 0.1), rates: { rotation: 2e-3, translation: 2e-3, logFocal: 5e-4, principal: 2e-4 } };
      const trainer = await Trainer.create(ctx, data, defaultTrainerConfig({ ...base, cameraRefine: refine, adc: { ...defaultTrainerConfig().adc, refineStart: Math.round(STEPS * 0.1), refineEvery: 100, refineStop: Math.round(STEPS * 0.6) } }));
      for (let i = 0; i < STEPS; i++) await trainer.trainStep();
      const evaluation = await trainer.evaluate();
      const cameras = trainer.refinedCameras();
      trainer.destroy();
      return { psnr: evaluation.psnr, cameras };
    };
    const exact = await run(truth, 'off');
    const refined = await run(given, 'poses+intrinsics');
    const unrefined = await run(given, 'off');
    const train = truth.views.flatMap((v, i) => (v.split === 'train' ? [i] : []));
    const worst = { angle: 0, centre: 0, focal: 0 };
    const before = { angle: 0, centre: 0 };
    for (const i of train) {
      const c = refined.cameras![i];
      const t = truth.views[i].camera;
      worst.angle = Math.max(worst.angle, rotationError(c, t));
      worst.centre = Math.max(worst.centre, Math.hypot(...centre(c).map((x, k) => x - centre(t)[k])));
      worst.focal = Math.max(worst.focal, Math.abs(c.fx / t.fx - 1), Math.abs(c.fy / t.fy - 1));
      before.angle = Math.max(before.angle, rotationError(given.views[i].camera, t));
      before.centre = Math.max(before.centre, Math.hypot(...centre(given.views[i].camera).map((x, k) => x - centre(t)[k])));
    }
    const deg = (r: number) => ((r * 180) / Math.PI).toFixed(3);
    const report = `test PSNR exact ${exact.psnr.toFixed(2)}, perturbed+refined ${refined.psnr.toFixed(2)}, perturbed unrefined ${unrefined.psnr.toFixed(2)} dB; worst rotation ${deg(worst.angle)} deg (given ${deg(before.angle)}), centre ${worst.centre.toFixed(4)} (given ${before.centre.toFixed(4)}, scale ${truth.sceneScale.toFixed(2)}), focal ${(worst.focal * 100).toFixed(2)}% (given 5%)`;
    console.log(report);
    void so3Exp;
    expect(worst.angle, report).toBeLessThan(ANGLE / 10);
    expect(worst.centre, report).toBeLessThan(shift / 10);
    expect(worst.focal, report).toBeLessThan((FOCAL - 1) / 10);
    expect(refined.psnr, report).toBeGreaterThan(exact.psnr - 0.5);
  }, 1_200_000);
});
