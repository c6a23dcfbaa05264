/**
 * Ray depth (kernels/mesh-depth.wgsl): per pixel, the composited depth of each splat's highest
 * density along the pixel's ray, computed from a rasterizer frame right after its forward (its
 * sorted lists and weights), so extraction sees the surface instead of the splat centres. Reads
 * the frame's internal buffers; forward-only, nothing of training changes.
 */
import { bindGroup, createStorage } from '../gpu/buffers.js';
import { workgroupMemoryBytes } from '../gpu/wgsl-analysis.js';
import type { GpuCommands } from '../gpu/commands.js';
import type { GpuContext } from '../gpu/context.js';
import type { CompiledPipeline } from '../gpu/kernels.js';
import type { RasterFrame } from '../render/rasterizer.js';

export interface RayDepthTarget {
  /** f32 per pixel (stride = the camera's width): sum(w t*) / sum(w), 0 where nothing is composited. */
  depth: GPUBuffer;
  planes: GPUBuffer;
  planesGroup: GPUBindGroup;
  forwardGroup: GPUBindGroup;
  frame: RasterFrame;
  destroy(): void;
}

export class RayDepth {
  private constructor(
    private readonly ctx: GpuContext,
    private readonly planes: CompiledPipeline,
    private readonly forward: CompiledPipeline,
    private readonly workgroupSize: number,
  ) {}

  /**
   * `centreDepth`: composite the splat centres' depths instead (the rasterizer's own depth; tests).
   * `entry` (default true): a splat whose alpha at the pixel exceeds 1/2 contributes the depth
   * where the ray enters its alpha-1/2 level set rather than its density maximum (mesh-depth.wgsl).
   */
  static async create(ctx: GpuContext, options: { centreDepth?: boolean; entry?: boolean } = {}): Promise<RayDepth> {
    const WG = 256;
    const constants = { CENTRE_DEPTH: options.centreDepth ? 1 : 0, ENTRY: options.entry === false ? 0 : 1 };
    const [planes, forward] = await Promise.all([
      ctx.kernels.get({ kernel: 'mesh-depth', entryPoint: 'depth_planes', constants: { WG } }),
      ctx.kernels.get({ kernel: 'mesh-depth', entryPoint: 'depth_forward', constants: { ...constants, COMPOSITE_BATCH: compositeBatchFor(ctx, constants) } }),
    ]);
    return new RayDepth(ctx, planes, forward, WG);
  }

  /** Buffers and bind groups for one frame (remade when the frame is). */
  bind(frame: RasterFrame): RayDepthTarget {
    const { device } = this.ctx;
    const b = frame.internal;
    const s = frame.splats;
    const depth = createStorage(device, 'mesh.rayDepth', frame.width * frame.height * 4);
    const planes = createStorage(device, 'mesh.depthPlanes', frame.capacity * 48);
    const planesGroup = bindGroup(device, this.planes, { 0: frame.camera, 1: frame.counts, 2: s.means, 3: s.logScales, 4: s.quats, 5: b.visible, 6: b.rankOfSplat, 7: planes });
    const forwardGroup = bindGroup(device, this.forward, { 0: frame.camera, 8: b.tileRanges, 9: b.sortedRank, 10: b.sortedXy, 11: b.sortedConicOpacity, 12: planes, 13: depth });
    return {
      depth,
      planes,
      planesGroup,
      forwardGroup,
      frame,
      destroy: () => {
        depth.destroy();
        planes.destroy();
      },
    };
  }

  /** Records the ray depth of the view the frame's forward was just encoded for (same submit or later, before the next forward). */
  encode(commands: GpuCommands, target: RayDepthTarget): void {
    const frame = target.frame;
    const groups = Math.ceil(frame.capacity / this.workgroupSize);
    const limit = this.ctx.device.limits.maxComputeWorkgroupsPerDimension;
    const x = Math.min(groups, limit);
    commands.dispatch(this.planes, [target.planesGroup], x, Math.ceil(groups / x));
    commands.dispatch(this.forward, [target.forwardGroup], frame.activeTiles.x, frame.activeTiles.y);
  }
}

/**
 * depth_forward's batch: one intersection per thread (256) where its five workgroup arrays fit
 * the device (18,432 B), else the largest power of two that does (WebGPU's 16 KiB: 128).
 */
export function compositeBatchFor(ctx: GpuContext, constants: Readonly<Record<string, number>>): number {
  const source = ctx.kernels.source('mesh-depth');
  const limit = ctx.device.limits.maxComputeWorkgroupStorageSize;
  for (let batch = 256; batch > 8; batch /= 2) if (workgroupMemoryBytes(source, 'depth_forward', { ...constants, COMPOSITE_BATCH: batch }) <= limit) return batch;
  return 8;
}
