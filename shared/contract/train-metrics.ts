import { z } from 'zod';

/**
 * The metric tuple of one training step, declared once: the trainer's progress events carry it,
 * a project run records it (`MetricsPointSchema` in shared/project/manifest.ts), the contract's
 * `progress` and `metrics` events carry it and the studio's charts are keyed by it. It imports
 * nothing but zod so the project schema can use it without depending on the rest of the contract.
 */
export const TrainMetricsSchema = z.object({
  /** The newest step's training loss (L1 + D-SSIM). */
  loss: z.number().optional(),
  /** The newest step's PSNR on its training view (dB). */
  psnr: z.number().optional(),
  splats: z.number().int().min(0).optional(),
  /** Training steps per second (paused and snapshot time excluded). */
  itPerS: z.number().optional(),
});
export type TrainMetrics = z.infer<typeof TrainMetricsSchema>;

/** What an evaluation on the test views adds to a run's metrics. */
export const EvaluationMetricsSchema = z.object({
  testPsnr: z.number().optional(),
  testSsim: z.number().optional(),
  /** Test PSNR after each view's best affine colour fit to its image (gsplat's color_correct idea). */
  testCcPsnr: z.number().optional(),
});

/**
 * One test view's scores in an evaluation: its name (the image's, as the dataset names it), PSNR
 * (dB), colour-corrected PSNR (absent from engines before it) and SSIM. The evaluation event, the
 * contract's `evaluation` event and a project run's recorded evaluation all carry it.
 */
export const EvaluationViewSchema = z.object({ name: z.string(), psnr: z.number(), ssim: z.number(), ccPsnr: z.number().optional() }).strict();
export type EvaluationView = z.infer<typeof EvaluationViewSchema>;

/** Every metric a `metrics` event may carry, by name. */
export const MetricValuesSchema = TrainMetricsSchema.extend(EvaluationMetricsSchema.shape).strict();
export type MetricValues = z.infer<typeof MetricValuesSchema>;
export type MetricKey = keyof MetricValues;

/** The training metrics of anything that carries them (a progress event), without the rest. */
export function trainMetricsOf(source: TrainMetrics): TrainMetrics {
  const metrics: TrainMetrics = {};
  for (const key of Object.keys(TrainMetricsSchema.shape) as (keyof TrainMetrics)[]) {
    const value = source[key];
    if (value !== undefined) metrics[key] = value;
  }
  return metrics;
}
