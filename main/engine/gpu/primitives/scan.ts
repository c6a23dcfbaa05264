import { bindBuffers, createStorage, createUniform, type GpuRange } from '../buffers.js';
import type { GpuCommands } from '../commands.js';
import type { GpuContext } from '../context.js';
import type { CompiledPipeline, KernelVariant } from '../kernels.js';
import { UniformStruct } from '../uniforms.js';

export interface ScanOptions {
  /** Threads per workgroup (override WG). */
  workgroupSize?: number;
  /** Elements per thread (override ITEMS). */
  itemsPerThread?: number;
  variant?: KernelVariant;
}

/** Where the element count lives: a u32 in a GPU buffer, so GPU-computed counts drive the scan. */
export interface CountSource {
  buffer: GPUBuffer;
  /** Index of the u32 inside `buffer`. */
  index: number;
}

interface Level {
  blocks: number;
  reduce?: GPUBindGroup;
  scan: GPUBindGroup;
}

export interface ScanPlan {
  readonly capacity: number;
  readonly levels: readonly Level[];
  readonly buffers: readonly GPUBuffer[];
  destroy(): void;
}

/**
 * Exclusive prefix sum over u32 (kernels/scan.wgsl). Buffers and bind groups are made once per
 * plan (a capacity); encoding only records dispatches, and the element count is read on the GPU.
 * `output` needs capacity + 1 words: output[n] receives the total.
 */
export class ExclusiveScan {
  private constructor(
    private readonly ctx: GpuContext,
    private readonly reduce: CompiledPipeline,
    private readonly scan: CompiledPipeline,
    readonly blockSize: number,
  ) {}

  static async create(ctx: GpuContext, options: ScanOptions = {}): Promise<ExclusiveScan> {
    const WG = options.workgroupSize ?? 256;
    const ITEMS = options.itemsPerThread ?? 4;
    const constants = { WG, ITEMS };
    const [reduce, scan] = await ctx.kernels.preload([
      { kernel: 'scan', entryPoint: 'reduce_blocks', constants, variant: options.variant },
      { kernel: 'scan', entryPoint: 'scan_blocks', constants, variant: options.variant },
    ]);
    return new ExclusiveScan(ctx, reduce, scan, WG * ITEMS);
  }

  get variant(): KernelVariant {
    return this.scan.variant;
  }

  /**
   * `totalIndex`: also write the total into `count.buffer[totalIndex]` (the count of a later stage).
   */
  createPlan(capacity: number, input: GpuRange, output: GPUBuffer, count: CountSource, totalIndex?: number): ScanPlan {
    const { device } = this.ctx;
    const B = this.blockSize;
    if (output.size < (capacity + 1) * 4) throw new Error(`scan: output holds ${output.size / 4} words, needs capacity + 1 = ${capacity + 1}`);
    const owned: GPUBuffer[] = [];
    const zeros = createStorage(device, 'scan.zeros', 16);
    owned.push(zeros);
    // inputs[k], outputs[k]: level k scans inputs[k] into outputs[k]
    const inputs: GpuRange[] = [input];
    const outputs: GPUBuffer[] = [output];
    const blocks: number[] = [];
    let size = capacity;
    for (;;) {
      const nb = Math.ceil((size + 1) / B);
      blocks.push(nb);
      if (nb <= 1) break;
      const sums = createStorage(device, `scan.sums${blocks.length}`, nb * 4);
      const scanned = createStorage(device, `scan.scanned${blocks.length}`, (nb + 1) * 4);
      owned.push(sums, scanned);
      inputs.push(sums);
      outputs.push(scanned);
      size = nb;
    }
    const top = blocks.length - 1;
    const levels: Level[] = blocks.map((nb, k) => {
      const params = UniformStruct.of('scan', 'ScanParams');
      const uniform = createUniform(device, `scan.params${k}`, params.size);
      device.queue.writeBuffer(uniform, 0, params.pack({ level: k, count_index: count.index, total_index: k === 0 && totalIndex !== undefined ? totalIndex : 0xffffffff }));
      owned.push(uniform);
      const countBinding = { buffer: count.buffer };
      return {
        blocks: nb,
        reduce: k < top ? bindBuffers(device, this.reduce.pipeline, [uniform, countBinding, inputs[k], null, inputs[k + 1], null]) : undefined,
        scan: bindBuffers(device, this.scan.pipeline, [uniform, countBinding, inputs[k], outputs[k], null, k < top ? outputs[k + 1] : zeros]),
      };
    });
    return {
      capacity,
      levels,
      buffers: owned,
      destroy: () => owned.forEach((b) => b.destroy()),
    };
  }

  encode(commands: GpuCommands, plan: ScanPlan): void {
    const { levels } = plan;
    for (let k = 0; k < levels.length - 1; k++) this.dispatch(commands, this.reduce, levels[k].reduce!, levels[k].blocks);
    for (let k = levels.length - 1; k >= 0; k--) this.dispatch(commands, this.scan, levels[k].scan, levels[k].blocks);
  }

  private dispatch(commands: GpuCommands, pipeline: CompiledPipeline, group: GPUBindGroup, blocks: number) {
    const limit = this.ctx.device.limits.maxComputeWorkgroupsPerDimension;
    const x = Math.min(blocks, limit);
    commands.dispatch(pipeline, [group], x, Math.ceil(blocks / x));
  }
}
