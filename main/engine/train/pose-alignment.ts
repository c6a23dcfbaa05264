/**
 * Test-time pose alignment for evaluating a model trained with camera refinement: the training
 * cameras moved (refinement), the held-out ones did not, so a held-out view renders from a pose a
 * little off the frame the splats now sit in and its plain PSNR understates the model. Each
 * held-out camera is aligned by a short pose-only optimisation with the splats frozen (the same
 * camera gradient as training, Adam on the host), and the aligned PSNR is reported beside the
 * plain one (as nerfstudio and gsplat-based trainers report "with test-time optimisation").
 */
import { correctCamera, poseCorrectionGradient } from '../../../shared/scene/camera-correction.js';
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import { poseOfVector, poseVector } from './camera-refine.js';
import { adamStep, block } from './host-adam.js';
import { exponentialDecay } from './schedule.js';
import type { Evaluation, Trainer } from './trainer.js';

export interface PoseAlignmentOptions {
  /** Optimisation steps per view (each one render, backward and readback). */
  steps: number;
  /** Peak Adam rates: rotation (radians), translation (x scene scale); decayed to POSE_ALIGNMENT_FINAL_RATIO of them at the last step. */
  rotationRate: number;
  translationRate: number;
}

export const POSE_ALIGNMENT_DEFAULTS: PoseAlignmentOptions = { steps: 100, rotationRate: 5e-3, translationRate: 5e-3 };

/** The rates' exponential decay over a view's steps ends at this fraction of the peak. */
export const POSE_ALIGNMENT_FINAL_RATIO = 0.1;

/** The evaluation of `trainer`'s held-out views after aligning each one's camera; the cameras it used. */
export async function evaluateWithPoseAlignment(trainer: Trainer, options: PoseAlignmentOptions = POSE_ALIGNMENT_DEFAULTS): Promise<{ evaluation: Evaluation; cameras: Map<number, PinholeCamera> }> {
  const cameras = new Map<number, PinholeCamera>();
  const scale = trainer.data.sceneScale;
  for (const view of trainer.evaluationViews) {
    const base = trainer.cameraOf(view);
    const state = block(6);
    for (let k = 0; k < options.steps; k++) {
      const at = poseOfVector(state.value);
      const gradient = await trainer.cameraGradient(view, correctCamera(base, at));
      const g = poseVector(poseCorrectionGradient(gradient, at));
      if (!g.every(Number.isFinite)) break;
      const decay = exponentialDecay(k, Math.max(1, options.steps - 1), POSE_ALIGNMENT_FINAL_RATIO);
      const r = options.rotationRate * decay;
      const t = options.translationRate * scale * decay;
      adamStep(state, g, [r, r, r, t, t, t], 0);
    }
    cameras.set(view, correctCamera(base, poseOfVector(state.value)));
  }
  const evaluation = await trainer.evaluate(trainer.evaluationViews, cameras);
  return { evaluation, cameras };
}
