import { createStorage, uploadStorage } from '../../main/engine/gpu/buffers.js';
import { openGpu, type OpenGpuOptions } from '../../main/engine/gpu/context.js';
import { ExclusiveScan } from '../../main/engine/gpu/primitives/scan.js';
import type { ProfileReport } from '../../shared/contract/profile.js';

/**
 * Profiles `rounds` scans of n elements on a fresh profiled device and returns the report and
 * the number of dispatches recorded, so callers check that the table accounts for every dispatch
 * and that its rows sum to the measured GPU time.
 */
export async function profileScans(options: OpenGpuOptions, n: number, rounds: number): Promise<{ report: ProfileReport; dispatches: number; levels: number }> {
  const ctx = await openGpu({ validate: true, ...options, profile: true });
  try {
    const scan = await ExclusiveScan.create(ctx);
    const input = uploadStorage(ctx.device, 'p.in', new Uint32Array(n).fill(1));
    const output = createStorage(ctx.device, 'p.out', (n + 1) * 4);
    const count = uploadStorage(ctx.device, 'p.n', new Uint32Array([n]));
    const plan = scan.createPlan(n, input, output, { buffer: count, index: 0 });
    ctx.profiler.reset();
    for (let r = 0; r < rounds; r++) {
      const commands = ctx.commands('profile');
      scan.encode(commands, plan);
      await commands.submit();
    }
    const report = await ctx.profiler.report();
    const levels = plan.levels.length;
    return { report, dispatches: rounds * (2 * levels - 1), levels };
  } finally {
    ctx.destroy();
  }
}
