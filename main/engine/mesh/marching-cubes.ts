/**
 * Marching cubes on the GPU (kernels/marching-cubes.wgsl) over a TSDF volume, a slab of cell
 * layers at a time: count triangles per cell, exclusive scan (ExclusiveScan) for each cell's
 * offset, read the slab's total, emit. Each slab's triangles come back to the host at once, so
 * the GPU holds one slab's output at most; vertices carry their grid-edge key for welding.
 */
import { bindGroup, createStorage, createUniform, readBuffer, uploadStorage } from '../gpu/buffers.js';
import type { GpuContext } from '../gpu/context.js';
import type { CompiledPipeline, KernelVariant } from '../gpu/kernels.js';
import { ExclusiveScan } from '../gpu/primitives/scan.js';
import { slabsOf, type VoxelGrid } from './grid.js';
import { MC_ROW, MC_TRIANGLE_COUNT, MC_TRIANGLES } from './mc-tables.js';
import { packSlab } from './tsdf.js';

/** Triangles as three vertices each, unwelded, in cell order (and table order within a cell). */
export interface TriangleSoup {
  triangles: number;
  /** xyz per vertex, 9 per triangle. */
  positions: Float32Array;
  /** rgba8 per vertex. */
  colors: Uint8Array;
  /** The grid edge each vertex lies on: 3 * (low grid point index) + axis. */
  keys: Uint32Array;
}

/** What marching cubes reads: a volume's grid and fields (TsdfVolume, or test inputs). */
export interface VolumeFields {
  grid: VoxelGrid;
  gridUniform: GPUBuffer;
  values: GPUBuffer;
  weights: GPUBuffer;
  colors: GPUBuffer;
}

export interface MarchingCubesOptions {
  /** Most cells one dispatch handles (default 2^22). */
  maxCellsPerDispatch?: number;
  workgroupSize?: number;
  variant?: KernelVariant;
}

/** The table as the kernel reads it: 256 x 16 edge indices, then 256 triangle counts. */
export function packMcTable(): Int32Array {
  const table = new Int32Array(256 * MC_ROW + 256);
  table.set(MC_TRIANGLES);
  table.set(MC_TRIANGLE_COUNT, 256 * MC_ROW);
  return table;
}

export class MarchingCubes {
  private constructor(
    private readonly ctx: GpuContext,
    private readonly count: CompiledPipeline,
    private readonly emit: CompiledPipeline,
    private readonly scan: ExclusiveScan,
    private readonly options: Required<Pick<MarchingCubesOptions, 'maxCellsPerDispatch' | 'workgroupSize'>>,
  ) {}

  static async create(ctx: GpuContext, options: MarchingCubesOptions = {}): Promise<MarchingCubes> {
    const WG = options.workgroupSize ?? 64;
    const [count, emit, scan] = await Promise.all([
      ctx.kernels.get({ kernel: 'marching-cubes', entryPoint: 'mc_count', constants: { WG }, variant: options.variant }),
      ctx.kernels.get({ kernel: 'marching-cubes', entryPoint: 'mc_emit', constants: { WG }, variant: options.variant }),
      ExclusiveScan.create(ctx, { variant: options.variant }),
    ]);
    return new MarchingCubes(ctx, count, emit, scan, { maxCellsPerDispatch: options.maxCellsPerDispatch ?? 1 << 22, workgroupSize: WG });
  }

  /**
   * Extracts every slab's triangles. `poison` fills each slab's output with a bit pattern first
   * (tests: an unwritten slot shows up as NaN instead of a stale triangle).
   */
  async extract(volume: VolumeFields, options: { poison?: number; onSlab?: (done: number, total: number) => void } = {}): Promise<TriangleSoup> {
    const { device } = this.ctx;
    const { dims } = volume.grid;
    const perLayer = (dims[0] - 1) * (dims[1] - 1);
    const slabs = slabsOf(dims[2] - 1, perLayer, this.options.maxCellsPerDispatch);
    const capacity = Math.max(1, ...slabs.map((s) => s.layers * perLayer));
    const owned: GPUBuffer[] = [];
    const own = (b: GPUBuffer) => (owned.push(b), b);
    const table = own(uploadStorage(device, 'mc.table', packMcTable()));
    const triCount = own(createStorage(device, 'mc.triCount', capacity * 4));
    const triOffset = own(createStorage(device, 'mc.triOffset', (capacity + 1) * 4));
    // [0] cells of the slab, [1] the slab's triangles (written by the scan)
    const counts = own(createStorage(device, 'mc.counts', 16));
    const plan = this.scan.createPlan(capacity, triCount, triOffset, { buffer: counts, index: 0 }, 1);
    const slabUniform = own(createUniform(device, 'mc.slab', 16));
    let outCapacity = 0;
    let outVertices: GPUBuffer | undefined;
    let outKeys: GPUBuffer | undefined;
    const parts: { positions: Float32Array; colors: Uint8Array; keys: Uint32Array; triangles: number }[] = [];
    const limit = device.limits.maxComputeWorkgroupsPerDimension;
    const dispatchSize = (items: number) => {
      const groups = Math.ceil(items / this.options.workgroupSize);
      const x = Math.min(groups, limit);
      return [x, Math.ceil(groups / x)] as const;
    };
    try {
      const countGroup = bindGroup(device, this.count, { 1: volume.gridUniform, 2: slabUniform, 3: volume.values, 4: volume.weights, 6: table, 7: triCount });
      for (const [index, slab] of slabs.entries()) {
        const cells = slab.layers * perLayer;
        device.queue.writeBuffer(slabUniform, 0, packSlab(slab));
        device.queue.writeBuffer(counts, 0, new Uint32Array([cells, 0, 0, 0]));
        const commands = this.ctx.commands('mc.count');
        commands.dispatch(this.count, [countGroup], ...dispatchSize(cells));
        this.scan.encode(commands, plan);
        await commands.submit();
        const triangles = new Uint32Array(await readBuffer(device, counts, 8))[1];
        if (triangles > 0) {
          const vertices = triangles * 3;
          if (vertices > outCapacity) {
            outVertices?.destroy();
            outKeys?.destroy();
            outCapacity = Math.ceil(vertices * 1.25);
            const bindingLimit = Math.min(device.limits.maxStorageBufferBindingSize, device.limits.maxBufferSize);
            if (outCapacity * 16 > bindingLimit) throw new Error(`mesh: a slab of ${triangles} triangles exceeds the device's binding limit; lower the cells per dispatch or --resolution`);
            outVertices = createStorage(device, 'mc.vertices', outCapacity * 16);
            outKeys = createStorage(device, 'mc.keys', outCapacity * 4);
          }
          if (options.poison !== undefined) {
            device.queue.writeBuffer(outVertices!, 0, new Uint32Array(vertices * 4).fill(options.poison));
            device.queue.writeBuffer(outKeys!, 0, new Uint32Array(vertices).fill(options.poison));
          }
          const emitGroup = bindGroup(device, this.emit, { 1: volume.gridUniform, 2: slabUniform, 3: volume.values, 4: volume.weights, 5: volume.colors, 6: table, 7: triCount, 8: triOffset, 9: outVertices!, 10: outKeys! });
          const emit = this.ctx.commands('mc.emit');
          emit.dispatch(this.emit, [emitGroup], ...dispatchSize(cells));
          await emit.submit();
          const raw = new Uint32Array(await readBuffer(device, outVertices!, vertices * 16));
          const keys = new Uint32Array(await readBuffer(device, outKeys!, vertices * 4));
          const positions = new Float32Array(vertices * 3);
          const colors = new Uint8Array(vertices * 4);
          const rawFloat = new Float32Array(raw.buffer);
          const rawBytes = new Uint8Array(raw.buffer);
          for (let v = 0; v < vertices; v++) {
            positions[3 * v] = rawFloat[4 * v];
            positions[3 * v + 1] = rawFloat[4 * v + 1];
            positions[3 * v + 2] = rawFloat[4 * v + 2];
            colors.set(rawBytes.subarray(16 * v + 12, 16 * v + 16), 4 * v);
          }
          parts.push({ positions, colors, keys, triangles });
        }
        options.onSlab?.(index + 1, slabs.length);
      }
      this.ctx.assertNoErrors('marching cubes');
    } finally {
      plan.destroy();
      outVertices?.destroy();
      outKeys?.destroy();
      for (const b of owned) b.destroy();
    }
    return concatSoups(parts);
  }
}

export function concatSoups(parts: readonly TriangleSoup[]): TriangleSoup {
  const triangles = parts.reduce((s, p) => s + p.triangles, 0);
  const out: TriangleSoup = { triangles, positions: new Float32Array(triangles * 9), colors: new Uint8Array(triangles * 12), keys: new Uint32Array(triangles * 3) };
  let t = 0;
  for (const p of parts) {
    out.positions.set(p.positions, t * 9);
    out.colors.set(p.colors, t * 12);
    out.keys.set(p.keys, t * 3);
    t += p.triangles;
  }
  return out;
}
