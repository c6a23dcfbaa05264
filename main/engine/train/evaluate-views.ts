/**
 * Evaluation of a trainer's splats on a set of views: PSNR and SSIM of the clamped renders
 * (with appearance compensation, through each view's colour model), and the PSNR after each
 * view's best affine colour fit to its image (colour-correct.ts). Reads back once a view.
 */
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import { createStorage, readBuffer } from '../gpu/buffers.js';
import type { GpuContext } from '../gpu/context.js';
import type { Rasterizer, RasterFrame } from '../render/rasterizer.js';
import { neighbourBlend, type Appearance } from './appearance.js';
import { GpuColourCorrection } from './colour-correct.js';
import type { TrainingData } from './data.js';
import type { LossFrame, TrainingLoss } from './loss.js';
import { activeShDegree } from './schedule.js';
import type { GpuTargets } from './targets.js';
import { renderSettings } from './train-step.js';
import type { TrainerConfig } from './trainer-config.js';

export interface Evaluation {
  step: number;
  psnr: number;
  ssim: number;
  /** PSNR after each view's best affine colour fit to its image (colour-correct.ts). */
  ccPsnr: number;
  views: { name: string; psnr: number; ssim: number; ccPsnr: number }[];
}

/** The trainer's parts an evaluation renders and scores with. */
export interface EvaluationParts {
  ctx: GpuContext;
  data: TrainingData;
  config: TrainerConfig;
  rasterizer: Rasterizer;
  loss: TrainingLoss;
  lossFrame: LossFrame;
  frame: RasterFrame;
  targets: GpuTargets;
  appearance: Appearance | undefined;
  trainViews: readonly number[];
  step: number;
  /** A view's camera as training renders it (refined when camera refinement is on). */
  cameraOf: (view: number) => PinholeCamera;
}

/** Scores `views`, each from `cameras`' camera where given (pose alignment), else its training camera. */
export async function evaluateViews(parts: EvaluationParts, views: readonly number[], cameras?: ReadonlyMap<number, PinholeCamera>): Promise<Evaluation> {
  const { ctx, data, config, rasterizer, loss, lossFrame, frame, targets, appearance, trainViews } = parts;
  const scratch = createStorage(ctx.device, 'eval.clamped', frame.width * frame.height * 16);
  // the colour fit scores what the plain PSNR scores: the kept pixels, the target composited as the loss composites it
  const colourCorrection = await GpuColourCorrection.create(ctx, frame.width * frame.height, { randomBackground: config.randomBackground });
  const results: Evaluation['views'] = [];
  const degree = activeShDegree(Math.max(0, parts.step - 1), config.shDegree, config.shDegreeEvery);
  let grids: Float32Array | undefined; // the colour models, read once
  try {
    for (const view of views) {
      const camera = cameras?.get(view) ?? parts.cameraOf(view);
      const commands = ctx.commands('eval');
      // with appearance compensation a training view renders through its own colour model, a
      // held-out one through its neighbours' in the capture's order (appearance.ts neighbourBlend)
      const slot = trainViews.indexOf(view);
      if (appearance) appearance.setHeldOutModel(slot >= 0 ? [{ slot, weight: 1 }] : neighbourBlend(view, trainViews), (grids ??= await appearance.readGrids()));
      rasterizer.encodeForward(commands, frame, camera, { ...renderSettings(data, config, 0), shDegree: degree });
      const image = appearance?.encodeHeldOutForward(commands, frame.image, camera.width, camera.height) ?? frame.image;
      const loc = targets.location[view];
      const counts = loc.masked?.[config.ssimPadding];
      loss.encodeEvaluation(commands, lossFrame, image, scratch, targets.buffer(view), loc.offset, camera.width, camera.height, counts, data.background);
      colourCorrection.encodeMoments(commands, scratch, targets.buffer(view), loc.offset, camera.width * camera.height, data.background);
      await commands.submit();
      const sums = new Float32Array(await readBuffer(ctx.device, lossFrame.sums, lossFrame.activeSumsBytes));
      const v = loss.value(sums, camera.width, camera.height, counts);
      const { psnr: ccPsnr } = await colourCorrection.psnr();
      results.push({ name: data.views[view].name, psnr: v.psnr, ssim: v.ssim, ccPsnr });
    }
  } finally {
    colourCorrection.destroy();
    scratch.destroy();
  }
  const mean = (k: 'psnr' | 'ssim' | 'ccPsnr') => results.reduce((s, r) => s + r[k], 0) / Math.max(1, results.length);
  return { step: parts.step, psnr: mean('psnr'), ssim: mean('ssim'), ccPsnr: mean('ccPsnr'), views: results };
}
