/**
 * Times one encoded stage at a time for the fixed-load benchmarks (bench raster, bench loss): GPU
 * timestamps around the stage's commands where the device has them, else the host's clock from
 * submit to the queue's idle (which also counts the submission). The queue is drained before
 * each stage, so one stage's time never holds another's.
 */
import { readBuffer } from './buffers.js';
import type { GpuCommands } from './commands.js';
import type { GpuContext } from './context.js';

export interface StageTimer {
  readonly timing: 'timestamps' | 'host';
  /** Milliseconds the stage `encode` records took on the GPU. */
  time(encode: (commands: GpuCommands) => void): Promise<number>;
  destroy(): void;
}

export function createStageTimer(ctx: GpuContext, label: string): StageTimer {
  const { device } = ctx;
  const timestamps = device.features.has('timestamp-query');
  const querySet = timestamps ? device.createQuerySet({ type: 'timestamp', count: 2 }) : undefined;
  const resolve = timestamps ? device.createBuffer({ label: `${label}.stamps`, size: 16, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC }) : undefined;
  return {
    timing: timestamps ? 'timestamps' : 'host',
    async time(encode) {
      await device.queue.onSubmittedWorkDone();
      const c = ctx.commands(label);
      if (querySet) c.timestamp(querySet, 0);
      encode(c);
      if (querySet && resolve) {
        c.timestamp(querySet, 1);
        c.commandEncoder.resolveQuerySet(querySet, 0, 2, resolve, 0);
      }
      const t0 = performance.now();
      await c.submit();
      if (!resolve) {
        await device.queue.onSubmittedWorkDone();
        return performance.now() - t0;
      }
      const stamps = new BigUint64Array(await readBuffer(device, resolve, 16));
      return Number(stamps[1] - stamps[0]) / 1e6;
    },
    destroy() {
      querySet?.destroy();
      resolve?.destroy();
    },
  };
}
