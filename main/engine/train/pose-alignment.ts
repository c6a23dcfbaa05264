/**
 * Test-time pose alignment for evaluating a model trained with camera refinement: the training
 * cameras moved (refinement), the held-out ones did not, so a held-out view renders from a pose a
 * little off the frame the splats now sit in and its plain PSNR understates the model. Each
 * held-out camera is aligned by a short pose-only optimisation with the splats frozen (the same
 * camera gradient as training, Adam on the host), and the aligned PSNR is reported beside the
 * plain one (as nerfstudio and gsplat-based trainers report "with test-time optimisation").
 */
import { correctCamera, poseCorrectionGradient, type PoseCorrection } from '../../../shared/scene/camera-correction.js';
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import { adamStep, block } from './camera-refine.js';
import type { Evaluation, Trainer } from './trainer.js';

export interface PoseAlignmentOptions {
  /** Optimisation steps per view (each one render, backward and readback). */
  steps: number;
  /** Peak Adam rates: rotation (radians), translation (x scene scale); decayed to a tenth. */
  rotationRate: number;
  translationRate: number;
}

export const POSE_ALIGNMENT_DEFAULTS: PoseAlignmentOptions = { steps: 100, rotationRate: 5e-3, translationRate: 5e-3 };

/** The evaluation of `trainer`'s held-out views after aligning each one's camera; the cameras it used. */
export async function evaluateWithPoseAlignment(trainer: Trainer, options: PoseAlignmentOptions = POSE_ALIGNMENT_DEFAULTS): Promise<{ evaluation: Evaluation; cameras: Map<number, PinholeCamera> }> {
  const cameras = new Map<number, PinholeCamera>();
  const scale = trainer.data.sceneScale;
  for (const view of trainer.evaluationViews) {
    const base = trainer.cameraOf(view);
    const state = block(6);
    const pose = (): PoseCorrection => ({ rotation: [state.value[0], state.value[1], state.value[2]], translation: [state.value[3], state.value[4], state.value[5]] });
    for (let k = 0; k < options.steps; k++) {
      const at = pose();
      const gradient = await trainer.cameraGradient(view, correctCamera(base, at));
      const d = poseCorrectionGradient(gradient, at);
      const g = [...d.rotation, ...d.translation];
      if (!g.every(Number.isFinite)) break;
      const decay = 0.1 ** (k / Math.max(1, options.steps - 1));
      const r = options.rotationRate * decay;
      const t = options.translationRate * scale * decay;
      adamStep(state, g, [r, r, r, t, t, t], 0);
    }
    cameras.set(view, correctCamera(base, pose()));
  }
  const evaluation = await trainer.evaluate(trainer.evaluationViews, cameras);
  return { evaluation, cameras };
}
