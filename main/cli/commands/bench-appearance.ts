import { formatProfileTable } from '../../../shared/contract/profile.js';
import { openGpu } from '../../engine/gpu/context.js';
import { benchAppearance } from '../../engine/train/bench-appearance.js';
import { benchImageSize, benchStamp, writeResult } from '../bench-result.js';
import type { CommandContext } from '../command.js';

/**
 * `bench appearance`: one training step's bilateral-grid colour model (apply, its backward, TV,
 * the grid gradient) on a fixed load at --width x --height (train/bench-appearance.ts); 1920x1440
 * unless told.
 */
export async function benchAppearanceCommand(context: CommandContext): Promise<void> {
  const { options, out } = context;
  const { width, height } = benchImageSize('appearance', options);
  out.progress({ stage: 'generate', message: `colour-model load ${width}x${height} (bilagrid)` }, true);
  const gpu = await openGpu({ ...context.engineOptions, profile: true });
  try {
    const r = await benchAppearance(gpu, { width, height });
    const result = { bench: 'appearance', ...r, ...benchStamp(gpu) };
    await writeResult(options.out as string | undefined, result);
    const c = r.checks;
    const human = [
      `colour-model load ${r.width}x${r.height}, ${r.images} bilateral grids: out sum ${c.out_sum.toFixed(4)}, dL/d image sum ${c.v_image_sum.toExponential(6)}, grad L2 ${c.grad_slot_l2.toExponential(6)} (frame's grid) / ${c.grad_others_l2.toExponential(6)} (others)`,
      `forward, backward, TV and grid gradient ${r.appearance_ms.toFixed(3)} ms (median of ${r.appearance_samples_ms.length}, ${r.timing}; ${r.variant} kernels)`,
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
