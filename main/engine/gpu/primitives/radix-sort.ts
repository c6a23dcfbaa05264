import { bindBuffers, createStorage, createUniform } from '../buffers.js';
import type { GpuCommands } from '../commands.js';
import type { GpuContext } from '../context.js';
import type { CompiledPipeline, KernelVariant } from '../kernels.js';
import { UniformStruct } from '../uniforms.js';
import { ExclusiveScan, type CountSource, type ScanPlan } from './scan.js';

export interface RadixSortOptions {
  workgroupSize?: number;
  itemsPerThread?: number;
  variant?: KernelVariant;
}

const BINS = 256;
/**
 * SortState (radix-sort.wgsl), which rs_setup writes on the GPU: its size, the indirect dispatch
 * arguments (`count_dispatch`) and the histogram scan's count (`hist_size`) are read where the
 * WGSL declares them.
 */
const sortState = () => UniformStruct.of('radix-sort', 'SortState');

export interface SortPlan {
  readonly capacity: number;
  readonly bits: number;
  /** Where the sorted keys/values end up (the input pair or the scratch pair, by pass parity). */
  readonly resultKeys: GPUBuffer;
  readonly resultVals: GPUBuffer;
  destroy(): void;
}

interface PlanInternals extends SortPlan {
  setupGroup: GPUBindGroup;
  passes: { count: GPUBindGroup; scatter: GPUBindGroup; pipelines: { count: CompiledPipeline; scatter: CompiledPipeline } }[];
  state: GPUBuffer;
  scanPlan: ScanPlan;
}

/**
 * Stable LSD radix sort of u32 keys with u32 values (kernels/radix-sort.wgsl), 8 bits a pass,
 * only as many passes as `bits` needs, the element count read on the GPU and every dispatch
 * sized on the GPU (indirect). Reduce-then-scan: correct on any backend.
 */
export class RadixSort {
  private readonly pipelines = new Map<number, { count: CompiledPipeline; scatter: CompiledPipeline }>();

  private constructor(
    private readonly ctx: GpuContext,
    private readonly setup: CompiledPipeline,
    private readonly scan: ExclusiveScan,
    private readonly options: Required<Omit<RadixSortOptions, 'variant'>> & { variant?: KernelVariant },
  ) {}

  static async create(ctx: GpuContext, options: RadixSortOptions = {}): Promise<RadixSort> {
    const workgroupSize = options.workgroupSize ?? 256;
    const itemsPerThread = options.itemsPerThread ?? 4;
    if (workgroupSize < BINS) throw new Error(`radix sort: workgroupSize must be >= ${BINS}`);
    if (workgroupSize * itemsPerThread > 65536) throw new Error('radix sort: a block holds at most 65536 elements');
    const passOptions = { workgroupSize, itemsPerThread, variant: options.variant };
    // The pass widths plans take (a sort's last pass holds what is left of its bits; 1-3 compile
    // when a plan asks), requested with the rest: start-up asks Dawn for every pipeline at once.
    const widths = [8, 7, 6, 5, 4];
    const [setup, scan, ...passes] = await Promise.all([
      ctx.kernels.get({ kernel: 'radix-sort', entryPoint: 'rs_setup', constants: { WG: workgroupSize }, consts: { ITEMS: itemsPerThread }, variant: options.variant }),
      ExclusiveScan.create(ctx, { variant: options.variant }),
      ...widths.map((bits) => RadixSort.compilePass(ctx, passOptions, bits)),
    ]);
    const sort = new RadixSort(ctx, setup, scan, passOptions);
    for (const [i, bits] of widths.entries()) sort.pipelines.set(bits, passes[i]);
    return sort;
  }

  get blockSize(): number {
    return this.options.workgroupSize * this.options.itemsPerThread;
  }

  private static async compilePass(ctx: GpuContext, options: { workgroupSize: number; itemsPerThread: number; variant?: KernelVariant }, bits: number) {
    const base = { kernel: 'radix-sort', constants: { WG: options.workgroupSize, BITS: bits }, consts: { ITEMS: options.itemsPerThread }, variant: options.variant };
    const [count, scatter] = await ctx.kernels.preload([
      { ...base, entryPoint: 'rs_count' },
      { ...base, entryPoint: 'rs_scatter' },
    ]);
    return { count, scatter };
  }

  private async passPipelines(bits: number) {
    let entry = this.pipelines.get(bits);
    if (!entry) this.pipelines.set(bits, (entry = await RadixSort.compilePass(this.ctx, this.options, bits)));
    return entry;
  }

  /**
   * Plans a sort of up to `capacity` elements over the low `bits` bits of the keys. `keys` and
   * `vals` are the input (and, for an even number of passes, the output).
   */
  async createPlan(capacity: number, keys: GPUBuffer, vals: GPUBuffer, count: CountSource, bits = 32): Promise<SortPlan> {
    if (bits < 1 || bits > 32) throw new Error(`radix sort: bits must be in [1, 32], got ${bits}`);
    const { device } = this.ctx;
    const owned: GPUBuffer[] = [];
    const own = (b: GPUBuffer) => (owned.push(b), b);
    const keysB = own(createStorage(device, 'sort.keysB', capacity * 4));
    const valsB = own(createStorage(device, 'sort.valsB', capacity * 4));
    const maxBlocks = Math.max(1, Math.ceil(capacity / this.blockSize));
    const hist = own(createStorage(device, 'sort.hist', maxBlocks * BINS * 4));
    const histScanned = own(createStorage(device, 'sort.histScanned', (maxBlocks * BINS + 1) * 4));
    const state = own(createStorage(device, 'sort.state', sortState().size, GPUBufferUsage.INDIRECT));
    const scanPlan = this.scan.createPlan(maxBlocks * BINS, hist, histScanned, { buffer: state, index: sortState().field('hist_size').offset / 4 });
    const passCount = Math.ceil(bits / 8);
    const pairs = [
      [keys, vals],
      [keysB, valsB],
    ] as const;
    const sortParams = UniformStruct.of('radix-sort', 'SortParams');
    const setupUniform = own(createUniform(device, 'sort.setup', sortParams.size));
    device.queue.writeBuffer(setupUniform, 0, sortParams.pack({ shift: 0, count_index: count.index }));
    const setupGroup = bindBuffers(device, this.setup.pipeline, [setupUniform, count.buffer, state]);
    const passes: PlanInternals['passes'] = [];
    for (let p = 0; p < passCount; p++) {
      const passBits = Math.min(8, bits - 8 * p);
      const pipelines = await this.passPipelines(passBits);
      const uniform = own(createUniform(device, `sort.pass${p}`, sortParams.size));
      device.queue.writeBuffer(uniform, 0, sortParams.pack({ shift: 8 * p, count_index: count.index }));
      const [inKeys, inVals] = pairs[p % 2];
      const [outKeys, outVals] = pairs[(p + 1) % 2];
      passes.push({
        pipelines,
        count: bindBuffers(device, pipelines.count.pipeline, [uniform, count.buffer, null, inKeys, null, null, null, hist, null, state]),
        scatter: bindBuffers(device, pipelines.scatter.pipeline, [uniform, count.buffer, null, inKeys, inVals, outKeys, outVals, null, histScanned, state]),
      });
    }
    const [resultKeys, resultVals] = pairs[passCount % 2];
    const plan: PlanInternals = {
      capacity,
      bits,
      resultKeys,
      resultVals,
      setupGroup,
      passes,
      state,
      scanPlan,
      destroy() {
        scanPlan.destroy();
        owned.forEach((b) => b.destroy());
      },
    };
    return plan;
  }

  encode(commands: GpuCommands, plan: SortPlan): void {
    const p = plan as PlanInternals;
    commands.dispatch(this.setup, [p.setupGroup], 1);
    for (const pass of p.passes) {
      commands.dispatchIndirect(pass.pipelines.count, [pass.count], p.state, sortState().field('count_dispatch').offset);
      this.scan.encode(commands, p.scanPlan);
      commands.dispatchIndirect(pass.pipelines.scatter, [pass.scatter], p.state, sortState().field('count_dispatch').offset);
    }
  }
}
