/**
 * Which views see each vertex of an extracted mesh (kernels/tsdf.wgsl `tsdf_visibility`): after
 * marching cubes, every view is rendered again as for fusion and each vertex counts the views in
 * which it lies at the surface they show (not hidden behind it). A surface no view sees was never
 * observed: the fusion closed it (a lid over a hole the splats painted across, the far side of a
 * rim the truncation band thickened). removeUnseen (cleanup.ts) drops it. docs/mesh.md "Unseen
 * surfaces".
 */
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import { bindGroup, createStorage, createUniform, readBuffer, uploadStorage, type GpuRange } from '../gpu/buffers.js';
import type { GpuCommands } from '../gpu/commands.js';
import type { GpuContext } from '../gpu/context.js';
import type { CompiledPipeline, KernelVariant } from '../gpu/kernels.js';
import { UniformStruct } from '../gpu/uniforms.js';
import { packTsdfView, type DepthMode, type TsdfThresholds } from './tsdf.js';

export interface VisibilityOptions {
  depthMode?: DepthMode;
  /** f32 values per pixel in the depth buffer (4: a frame's `geometry`). Default 1. */
  depthStride?: number;
  /** Pixels with alpha below this show no surface (default 0.5, as fusion). */
  alphaMin?: number;
  /** A vertex this far (world units) behind the surface a view shows still counts as seen by it. */
  seenDepth: number;
  near?: number;
  workgroupSize?: number;
  variant?: KernelVariant;
}

export class MeshVisibility {
  private readonly positions: GPUBuffer;
  /** Per vertex: the views that see it (u32). */
  readonly seen: GPUBuffer;
  private readonly viewUniform: GPUBuffer;
  private readonly owned: GPUBuffer[] = [];

  private constructor(
    private readonly ctx: GpuContext,
    private readonly pipeline: CompiledPipeline,
    private readonly thresholds: TsdfThresholds,
    private readonly workgroupSize: number,
    readonly vertices: number,
    positions: Float32Array,
  ) {
    const { device } = ctx;
    const own = (b: GPUBuffer) => (this.owned.push(b), b);
    this.positions = own(uploadStorage(device, 'visibility.positions', positions.length ? positions : new Float32Array(3)));
    this.seen = own(createStorage(device, 'visibility.seen', vertices * 4));
    this.viewUniform = own(createUniform(device, 'visibility.view', UniformStruct.of('tsdf', 'TsdfView').size));
    const commands = device.createCommandEncoder({ label: 'visibility.clear' });
    commands.clearBuffer(this.seen);
    device.queue.submit([commands.finish()]);
  }

  /** For the vertices `positions` (xyz each; at least one vertex). */
  static async create(ctx: GpuContext, positions: Float32Array, options: VisibilityOptions): Promise<MeshVisibility> {
    const vertices = positions.length / 3;
    if (!Number.isInteger(vertices) || vertices < 1) throw new Error(`visibility: ${positions.length} position values are not xyz of at least one vertex`);
    const WG = options.workgroupSize ?? 64;
    const pipeline = await ctx.kernels.get({
      kernel: 'tsdf',
      entryPoint: 'tsdf_visibility',
      constants: { WG, DEPTH_MODE: options.depthMode === 'direct' ? 1 : 0, DEPTH_STRIDE: options.depthStride ?? 1 },
      variant: options.variant,
    });
    const thresholds = { near: options.near ?? 0.01, alphaMin: options.alphaMin ?? 0.5, carveAlpha: 0, carveDepth: 0, seenDepth: options.seenDepth };
    return new MeshVisibility(ctx, pipeline, thresholds, WG, vertices, positions);
  }

  /** A bind group reading one pair of view buffers (made once per pair, reused for every view). */
  bindView(depth: GpuRange, image: GpuRange): GPUBindGroup {
    return bindGroup(this.ctx.device, this.pipeline, { 0: this.viewUniform, 3: depth, 4: image, 10: this.positions, 11: this.seen });
  }

  /** Writes the view's camera (at once: submit before the next view) and records its count. */
  encodeView(commands: GpuCommands, group: GPUBindGroup, camera: PinholeCamera): void {
    this.ctx.device.queue.writeBuffer(this.viewUniform, 0, packTsdfView(camera, this.thresholds, false));
    const groups = Math.ceil(this.vertices / this.workgroupSize);
    const x = Math.min(groups, this.ctx.device.limits.maxComputeWorkgroupsPerDimension);
    commands.dispatch(this.pipeline, [group], x, Math.ceil(groups / x));
  }

  /** The counts so far. */
  async read(): Promise<Uint32Array> {
    return new Uint32Array(await readBuffer(this.ctx.device, this.seen, this.vertices * 4));
  }

  destroy(): void {
    for (const b of this.owned) b.destroy();
  }
}
