/**
 * The TSDF volume on the GPU (kernels/tsdf.wgsl): per grid point a running mean of the truncated
 * signed distance, its weight, a colour and the count of views that saw it as empty space. Views
 * are fused one at a time from buffers the rasterizer wrote (no readback), in slabs of z-layers so
 * no dispatch runs long; after the last view, encodeCarve turns what enough views saw empty into
 * outside (free-space carving: docs/mesh.md).
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
  /** A free-space vote where the rendered alpha (or the image's own) is below this (default 0.05). */
  carveAlpha?: number;
  /** A free-space vote where the seen surface lies more than this many truncations beyond the point (default 1). */
  carveDepthTruncations?: number;
  /** Most grid points one dispatch handles (default 2^22). */
  maxPointsPerDispatch?: number;
  workgroupSize?: number;
  variant?: KernelVariant;
  near?: number;
}

const tsdfView = () => UniformStruct.of('tsdf', 'TsdfView');
const tsdfGrid = () => UniformStruct.of('tsdf-common', 'TsdfGrid');

/** Packs kernels/tsdf.wgsl's TsdfView. */
export function packTsdfView(camera: PinholeCamera, thresholds: TsdfThresholds, hasAlpha: boolean): ArrayBuffer {
  const m = camera.worldToCamera;
  return tsdfView().pack({
    r0: m.slice(0, 4),
    r1: m.slice(4, 8),
    r2: m.slice(8, 12),
    focal: [camera.fx, camera.fy],
    principal: [camera.cx, camera.cy],
    size: [camera.width, camera.height],
    near: thresholds.near,
    alpha_min: thresholds.alphaMin,
    carve_alpha: thresholds.carveAlpha,
    carve_depth: thresholds.carveDepth,
    has_alpha: hasAlpha,
    seen_depth: thresholds.seenDepth ?? 0,
  });
}

/** The per-view decisions of tsdf_integrate (depths in world units). */
export interface TsdfThresholds {
  near: number;
  alphaMin: number;
  carveAlpha: number;
  carveDepth: number;
  /** tsdf_visibility only: how far behind the seen surface a vertex still counts as seen. */
  seenDepth?: number;
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
  /** The image-alpha buffer the groups read (width * height floats). */
  viewAlpha: GPUBuffer;
}

export class TsdfVolume {
  readonly values: GPUBuffer;
  readonly weights: GPUBuffer;
  readonly colors: GPUBuffer;
  /** Per point: the views that saw it as empty (u32). */
  readonly freeVotes: GPUBuffer;
  readonly gridUniform: GPUBuffer;
  private readonly viewUniform: GPUBuffer;
  private readonly slabs: { z0: number; layers: number; uniform: GPUBuffer }[];
  private readonly owned: GPUBuffer[] = [];

  private constructor(
    private readonly ctx: GpuContext,
    readonly grid: VoxelGrid,
    private readonly pipeline: CompiledPipeline,
    private readonly options: Required<Pick<TsdfOptions, 'maxPointsPerDispatch' | 'workgroupSize' | 'variant'>>,
    private readonly thresholds: TsdfThresholds,
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
    this.freeVotes = own(createStorage(device, 'tsdf.freeVotes', points * 4));
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
    const volume = new TsdfVolume(
      ctx,
      grid,
      pipeline,
      { maxPointsPerDispatch: options.maxPointsPerDispatch ?? 1 << 22, workgroupSize: WG, variant: options.variant ?? ctx.info.variant },
      {
        near: options.near ?? 0.01,
        alphaMin: options.alphaMin ?? 0.5,
        carveAlpha: options.carveAlpha ?? 0.05,
        carveDepth: (options.carveDepthTruncations ?? 1) * grid.truncation,
      },
    );
    volume.clear();
    return volume;
  }

  get slabCount(): number {
    return this.slabs.length;
  }

  /** Empties the volume (weight 0 everywhere, values 0, no colour, no votes). */
  clear(): void {
    const commands = this.ctx.device.createCommandEncoder({ label: 'tsdf.clear' });
    for (const b of [this.values, this.weights, this.colors, this.freeVotes]) commands.clearBuffer(b);
    this.ctx.device.queue.submit([commands.finish()]);
  }

  /**
   * Bind groups reading one pair of view buffers (made once per pair, reused for every view),
   * with a buffer for the views' own image alpha that encodeIntegrate fills per view.
   */
  bindView(depth: GpuRange, image: GpuRange, width: number, height: number): TsdfViewBinding {
    const { device } = this.ctx;
    const viewAlpha = createStorage(device, 'tsdf.viewAlpha', Math.max(1, width * height) * 4);
    this.owned.push(viewAlpha);
    const groups = this.slabs.map((s) =>
      bindGroup(device, this.pipeline, {
        0: this.viewUniform,
        1: this.gridUniform,
        2: s.uniform,
        3: depth,
        4: image,
        5: this.values,
        6: this.weights,
        7: this.colors,
        8: this.freeVotes,
        9: viewAlpha,
      }),
    );
    return { groups, width, height, viewAlpha };
  }

  /**
   * Writes the view's camera and records the fusion of its buffers. The camera uniform is
   * written at once (queue.writeBuffer), so submit before encoding the next view.
   */
  encodeIntegrate(commands: GpuCommands, binding: TsdfViewBinding, camera: PinholeCamera, imageAlpha?: Float32Array): void {
    if (camera.width > binding.width || camera.height > binding.height) throw new Error(`tsdf: camera ${camera.width}x${camera.height} is larger than the bound view buffers (${binding.width}x${binding.height})`);
    if (imageAlpha && imageAlpha.length !== camera.width * camera.height) throw new Error(`tsdf: the view's image alpha has ${imageAlpha.length} pixels, its camera ${camera.width}x${camera.height}`);
    if (imageAlpha) this.ctx.device.queue.writeBuffer(binding.viewAlpha, 0, imageAlpha);
    this.ctx.device.queue.writeBuffer(this.viewUniform, 0, packTsdfView(camera, this.thresholds, Boolean(imageAlpha)));
    const perLayer = this.grid.dims[0] * this.grid.dims[1];
    const limit = this.ctx.device.limits.maxComputeWorkgroupsPerDimension;
    this.slabs.forEach((s, i) => {
      const groups = Math.ceil((perLayer * s.layers) / this.options.workgroupSize);
      const x = Math.min(groups, limit);
      commands.dispatch(this.pipeline, [binding.groups[i]], x, Math.ceil(groups / x));
    });
  }

  /**
   * Records the carve pass (after the last view's fusion): points with at least `votes` free-space
   * votes and a negative value become +1. votes < 1 carves nothing (nothing is recorded).
   */
  async encodeCarve(commands: GpuCommands, votes: number): Promise<void> {
    if (!(votes >= 1)) return;
    const WG = this.options.workgroupSize;
    const pipeline = await this.ctx.kernels.get({ kernel: 'tsdf', entryPoint: 'tsdf_carve', constants: { WG, CARVE_VOTES: Math.floor(votes) }, variant: this.options.variant });
    const perLayer = this.grid.dims[0] * this.grid.dims[1];
    const limit = this.ctx.device.limits.maxComputeWorkgroupsPerDimension;
    for (const s of this.slabs) {
      const group = bindGroup(this.ctx.device, pipeline, { 0: this.gridUniform, 1: s.uniform, 2: this.values, 3: this.freeVotes });
      const groups = Math.ceil((perLayer * s.layers) / WG);
      const x = Math.min(groups, limit);
      commands.dispatch(pipeline, [group], x, Math.ceil(groups / x));
    }
  }

  destroy(): void {
    for (const b of this.owned) b.destroy();
  }
}
