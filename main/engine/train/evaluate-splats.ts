/**
 * Splats trained elsewhere scored on a dataset's held-out views by the same code as a run's final
 * evaluation (Trainer.evaluate -> evaluate-views.ts: PSNR, SSIM, colour-corrected PSNR), so the
 * numbers compare with a whole run's. Used by a partitioned run's merge (partition/merge.ts): the
 * joined blocks have no trainer of their own.
 *
 * The trainer is built as a warm start (trainer-config.ts warmStartConfig: every SH band the
 * splats carry is rendered; bands the blocks never trained are zero) and trains no step; its fresh
 * per-image colour models, where the run uses them, are the identity.
 */
import type { ParamValue } from '../../../shared/params/index.js';
import type { SplatSet } from '../../../shared/scene/splats.js';
import type { GpuContext } from '../gpu/context.js';
import { loadTrainingData, withShDegree, type TrainingSource } from './job.js';
import { Trainer, type Evaluation } from './trainer.js';
import { trainerConfigFromParams, trainParamValues, warmStartConfig } from './trainer-config.js';

export interface EvaluateSplatsOptions {
  source: TrainingSource;
  /** The run's registry values (`train.*`): the data's downscale, background, masks and the render settings follow them. */
  params: Readonly<Record<string, ParamValue>>;
  splats: SplatSet;
  warn?: (message: string) => void;
}

/** The held-out views' scores of `splats` (the training views when the data holds none out, as Trainer.evaluationViews). */
export async function evaluateSplats(ctx: GpuContext, options: EvaluateSplatsOptions): Promise<Evaluation> {
  const values = trainParamValues(options.params);
  const config = warmStartConfig(trainerConfigFromParams(values));
  const data = await loadTrainingData(options.source, ctx, values, undefined, options.warn);
  let trainer: Trainer | undefined;
  try {
    trainer = await Trainer.create(ctx, data, config, { initial: withShDegree(options.splats, config.shDegree) });
    return await trainer.evaluate();
  } finally {
    trainer?.destroy();
    data.dispose?.();
  }
}
