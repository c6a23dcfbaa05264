/**
 * Issue 14 item 2's criterion on a scene where it is well posed (tests/helpers/refine-scene.ts):
 * the training cameras perturbed per camera (1 to 2 degrees about a random axis, the centre moved
 * by 2% of the scene scale, each of the two physical cameras' focal +5% / -5%), `poses+intrinsics`
 * must leave at most a tenth of each (the median over cameras, as "recovers them to within a
 * tenth" reads for a set of cameras; the max is printed) and reach the held-out PSNR of a run on
 * the exact cameras trained the same way within 0.5 dB (the refined model's held-out views after
 * test-time pose alignment: its frame is the given rig's, within the gauge the images cannot see).
 * ARGONAUT_REFINE_STEPS scales it.
 *
 * Not met yet (docs/architecture.md's camera-refinement table): at 1200 steps a tenth of the
 * rotation and of the focal is not reached, and the centre error left is mostly along each
 * camera's optical axis, the dolly that carries the focal error left. It takes about 15 minutes
 * of llvmpipe CPU (two 1200-step runs of about 400 s each, and alignment), so it runs only with
 * ARGONAUT_REFINE_CRITERION=1. It fails today: it is the bar, not a bound fitted to what
 * the code reaches (camera-refine-training.test.ts is that).
 */
import { describe, expect, it } from 'vitest';
import type { TrainingData } from '../../../../main/engine/train/data.js';
import { defaultTrainerConfig, Trainer } from '../../../../main/engine/train/trainer.js';
import { evaluateWithPoseAlignment, POSE_ALIGNMENT_DEFAULTS } from '../../../../main/engine/train/pose-alignment.js';
import { testGpu } from '../../../helpers/gpu.js';
import { refineScene } from '../../../helpers/refine-scene.js';
import { CRITERION, CRITERION_RUN, describeRecovery, perturbTraining, recovery } from '../../../helpers/refine-criterion.js';

const STEPS = Number(process.env.ARGONAUT_REFINE_STEPS ?? CRITERION_RUN.steps);

describe.runIf(process.env.ARGONAUT_REFINE_CRITERION === '1')('camera refinement meets issue 14 item 2', () => {
  it(`recovers perturbed cameras to a tenth and the exact cameras' PSNR within 0.5 dB (${STEPS} steps)`, async () => {
    const ctx = await testGpu();
    const truth = await refineScene(ctx, CRITERION_RUN.scene);
    const perturbation = perturbTraining(truth);
    const run = async (data: TrainingData, refine: boolean) => {
      const trainer = await Trainer.create(ctx, data, defaultTrainerConfig(CRITERION_RUN.config(STEPS, refine)));
      for (let i = 0; i < STEPS; i++) await trainer.trainStep();
      const cameras = trainer.refinedCameras() ?? data.views.map((v) => v.camera);
      const plain = (await trainer.evaluate()).psnr;
      const aligned = refine ? (await evaluateWithPoseAlignment(trainer, { ...POSE_ALIGNMENT_DEFAULTS, steps: CRITERION_RUN.alignSteps })).evaluation.psnr : plain;
      trainer.destroy();
      return { plain, aligned, cameras };
    };
    const refined = await run(perturbation.given, true);
    const exact = await run(truth, false);
    const r = recovery(truth, perturbation, refined.cameras);
    const report = `${describeRecovery(r)}; held-out PSNR refined ${refined.aligned.toFixed(2)} dB aligned (${refined.plain.toFixed(2)} plain), exact cameras ${exact.plain.toFixed(2)} dB`;
    console.log(report);
    expect(r.median.rotation, report).toBeLessThan(CRITERION.fraction);
    expect(r.median.centre, report).toBeLessThan(CRITERION.fraction);
    expect(r.median.focal, report).toBeLessThan(CRITERION.fraction);
    expect(exact.plain - refined.aligned, report).toBeLessThan(0.5);
  }, 1_800_000);
});
