import { formatProfileTable } from '../../../shared/contract/profile.js';
import { openGpu } from '../../engine/gpu/context.js';
import { benchLoss } from '../../engine/train/bench-loss.js';
import { trainParamValues } from '../../engine/train/trainer-config.js';
import { benchImageSize, benchStamp, writeResult } from '../bench-result.js';
import type { CommandContext } from '../command.js';
import { resolveTrainParams } from '../training.js';

/**
 * `bench loss`: the training loss (L1 + SSIM forward and backward) on a fixed image pair at
 * --width x --height, and the evaluation's colour-corrected PSNR on it (train/bench-loss.ts).
 */
export async function benchLossCommand(context: CommandContext): Promise<void> {
  const { options, out } = context;
  const { width, height } = benchImageSize('loss', options);
  const padding = trainParamValues(resolveTrainParams(context))['train.ssimPadding']; // --ssim-padding, as training resolves it
  out.progress({ stage: 'generate', message: `loss load ${width}x${height} (${padding} SSIM)` }, true);
  const gpu = await openGpu({ ...context.engineOptions, profile: true });
  try {
    const r = await benchLoss(gpu, { width, height, padding });
    const result = { bench: 'loss', ...r, ...benchStamp(gpu) };
    await writeResult(options.out as string | undefined, result);
    const human = [
      `loss load ${r.width}x${r.height} (${r.padding} SSIM): loss ${r.loss.toFixed(6)}, SSIM ${r.ssim.toFixed(6)}`,
      `L1 + SSIM forward and backward ${r.loss_ms.toFixed(3)} ms (median of ${r.loss_samples_ms.length}, ${r.timing}; ${r.variant} kernels); colour-corrected PSNR ${r.colour_correct_ms.toFixed(2)} ms per view (host, two readbacks)`,
      '',
      formatProfileTable({ source: r.timing, rows: r.kernels, gpuMs: r.kernels_gpu_ms, wallMs: r.kernels_gpu_ms }),
      '',
      'workgroup memory per pipeline:',
      ...Object.entries(r.workgroup_memory_bytes).map(([k, v]) => `  ${k.padEnd(40)} ${v} B`),
    ].join('\n');
    out.result(result, human);
  } finally {
    gpu.destroy();
  }
}
