/**
 * The TSDF volume on the GPU (kernels/tsdf.wgsl): per grid point a running mean of the truncated
 * signed distance, its weight and a colour. Views are fused one at a time from buffers the
 * rasterizer wrote (no readback), in slabs of z-layers so no dispatch runs long.
 */
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import { bindGroup, createStorage, createUniform, type GpuRange } from '../gpu/buffers.js';
import type { GpuCommands } from '../gpu/commands.js';
import type { GpuContext } from '../gpu/context.js';
import type { CompiledPipeline, KernelVariant } from '../gpu/kernels.js';
import { UniformStruct } from '../gpu/uniforms.js';
import { pointCount, slabsOf, type VoxelGrid } from './grid.js';

/** Which per-pixel depth the volume reads: 'expected' = depth / alpha (sum of w z over alpha); 'direct' = the buffer as is (a median depth). */
export type DepthMode = 'expected' | 'direct';

export interface TsdfOptions {
  depthMode?: DepthMode;
  /** f32 values per pixel in the depth buffer (4: a frame's `geometry`, median depth first). Default 1. */
  depthStride?: number;
  /** Pixels with alpha below this see no surface (default 0.5). */
  alphaMin?: number;
  /** Points projecting onto such pixels are free space (space carving). Default true. */
  carve?: boolean;
  /** Most grid points one dispatch handles (default 2^22). */
  maxPointsPerDispatch?: number;
  workgroupSize?: number;
  variant?: KernelVariant;
  near?: number;
}

const tsdfView = () => UniformStruct.of('tsdf', 'TsdfView');
const tsdfGrid = () => UniformStruct.of('tsdf-common', 'TsdfGrid');

/** Packs kernels/tsdf.wgsl's TsdfView. */
export function packTsdfView(camera: PinholeCamera, alphaMin: number, near: number): ArrayBuffer {
  const m = camera.worldToCamera;
  return tsdfView().pack({
    r0: m.slice(0, 4),
    r1: m.slice(4, 8),
    r2: m.slice(8, 12),
    focal: [camera.fx, camera.fy],
    principal: [camera.cx, camera.cy],
    size: [camera.width, camera.height],
    near,
    alpha_min: alphaMin,
  });
}

/** Packs TsdfGrid (shared by tsdf.wgsl and marching-cubes.wgsl). */
export function packTsdfGrid(grid: VoxelGrid): ArrayBuffer {
  return tsdfGrid().pack({ origin: grid.origin, voxel: grid.voxelSize, dims: grid.dims, truncation: grid.truncation });
}

/** Packs Slab (shared by tsdf.wgsl and marching-cubes.wgsl): z-layers [z0, z0 + layers). */
export function packSlab(slab: { z0: number; layers: number }): ArrayBuffer {
  return UniformStruct.of('tsdf-common', 'Slab').pack({ z0: slab.z0, layers: slab.layers });
}

export interface TsdfViewBinding {
  groups: GPUBindGroup[];
  width: number;
  height: number;
}

export class TsdfVolume {
  readonly values: GPUBuffer;
  readonly weights: GPUBuffer;
  readonly colors: GPUBuffer;
  readonly gridUniform: GPUBuffer;
  private readonly viewUniform: GPUBuffer;
  private readonly slabs: { z0: number; layers: number; uniform: GPUBuffer }[];
  private readonly owned: GPUBuffer[] = [];

  private constructor(
    private readonly ctx: GpuContext,
    readonly grid: VoxelGrid,
    private readonly pipeline: CompiledPipeline,
    private readonly options: Required<Pick<TsdfOptions, 'alphaMin' | 'maxPointsPerDispatch' | 'workgroupSize' | 'near'>>,
  ) {
    const { device } = ctx;
    const points = pointCount(grid);
    const limit = Math.min(device.limits.maxStorageBufferBindingSize, device.limits.maxBufferSize);
    if (points * 4 > limit) throw new Error(`mesh: a ${grid.dims.join('x')} grid needs ${points * 4} bytes per field, over this device's ${limit}-byte binding limit; lower --resolution`);
    if (points * 3 >= 2 ** 32) throw new Error(`mesh: a ${grid.dims.join('x')} grid has too many edges for 32-bit keys; lower --resolution`);
    const own = (b: GPUBuffer) => (this.owned.push(b), b);
    this.values = own(createStorage(device, 'tsdf.values', points * 4));
    this.weights = own(createStorage(device, 'tsdf.weights', points * 4));
    this.colors = own(createStorage(device, 'tsdf.colors', points * 4));
    this.gridUniform = own(createUniform(device, 'tsdf.grid', tsdfGrid().size));
    device.queue.writeBuffer(this.gridUniform, 0, packTsdfGrid(grid));
    this.viewUniform = own(createUniform(device, 'tsdf.view', tsdfView().size));
    const perLayer = grid.dims[0] * grid.dims[1];
    this.slabs = slabsOf(grid.dims[2], perLayer, options.maxPointsPerDispatch).map((s) => {
      const uniform = own(createUniform(device, `tsdf.slab${s.z0}`, 16));
      device.queue.writeBuffer(uniform, 0, packSlab(s));
      return { ...s, uniform };
    });
  }

  static async create(ctx: GpuContext, grid: VoxelGrid, options: TsdfOptions = {}): Promise<TsdfVolume> {
    const WG = options.workgroupSize ?? 64;
    const pipeline = await ctx.kernels.get({
      kernel: 'tsdf',
      entryPoint: 'tsdf_integrate',
      constants: { WG, DEPTH_MODE: options.depthMode === 'direct' ? 1 : 0, DEPTH_STRIDE: options.depthStride ?? 1, CARVE: options.carve === false ? 0 : 1 },
      variant: options.variant,
    });
    const volume = new TsdfVolume(ctx, grid, pipeline, {
      alphaMin: options.alphaMin ?? 0.5,
      maxPointsPerDispatch: options.maxPointsPerDispatch ?? 1 << 22,
      workgroupSize: WG,
      near: options.near ?? 0.01,
    });
    volume.clear();
    return volume;
  }

  get slabCount(): number {
    return this.slabs.length;
  }

  /** Empties the volume (weight 0 everywhere, values 0, no colour). */
  clear(): void {
    const commands = this.ctx.device.createCommandEncoder({ label: 'tsdf.clear' });
    for (const b of [this.values, this.weights, this.colors]) commands.clearBuffer(b);
    this.ctx.device.queue.submit([commands.finish()]);
  }

  /** Bind groups reading one pair of view buffers (made once per pair, reused for every view). */
  bindView(depth: GpuRange, image: GpuRange, width: number, height: number): TsdfViewBinding {
    const { device } = this.ctx;
    const groups = this.slabs.map((s) =>
      bindGroup(device, this.pipeline, { 0: this.viewUniform, 1: this.gridUniform, 2: s.uniform, 3: depth, 4: image, 5: this.values, 6: this.weights, 7: this.colors }),
    );
    return { groups, width, height };
  }

  /**
   * Writes the view's camera and records the fusion of its buffers. The camera uniform is
   * written at once (queue.writeBuffer), so submit before encoding the next view.
   */
  encodeIntegrate(commands: GpuCommands, binding: TsdfViewBinding, camera: PinholeCamera): void {
    if (camera.width > binding.width || camera.height > binding.height) throw new Error(`tsdf: camera ${camera.width}x${camera.height} is larger than the bound view buffers (${binding.width}x${binding.height})`);
    this.ctx.device.queue.writeBuffer(this.viewUniform, 0, packTsdfView(camera, this.options.alphaMin, this.options.near));
    const perLayer = this.grid.dims[0] * this.grid.dims[1];
    const limit = this.ctx.device.limits.maxComputeWorkgroupsPerDimension;
    this.slabs.forEach((s, i) => {
      const groups = Math.ceil((perLayer * s.layers) / this.options.workgroupSize);
      const x = Math.min(groups, limit);
      commands.dispatch(this.pipeline, [binding.groups[i]], x, Math.ceil(groups / x));
    });
  }

  destroy(): void {
    for (const b of this.owned) b.destroy();
  }
}
