/**
 * The SH group's Adam step fused with the SH part of the projection backward
 * (kernels/sh-adam.wgsl): the SH gradient, 48 floats a splat at degree 3 (192 B of training state
 * per splat of capacity), is computed from the frame's gathered screen-space gradients and applied
 * at once, never stored. The math is project_backward's SH backward (kernels/sh.wgsl) and Adam's
 * element step (kernels/adam-common.wgsl), the same functions the separate path runs; the group's
 * AdamParams are written by Adam.writeParams, so sparse steps, the SH rest bands' lane limit and
 * the bf16 moments mean what they mean there. It runs after the rasterizer's backward of the same
 * frame (it reads v2d, rankOfSplat and visible) and before anything that moves the splats.
 */
import { bindGroup } from '../gpu/buffers.js';
import type { GpuCommands } from '../gpu/commands.js';
import type { GpuContext } from '../gpu/context.js';
import type { CompiledPipeline } from '../gpu/kernels.js';
import type { RasterFrame } from '../render/rasterizer.js';
import type { Adam, AdamGroup, AdamStepOptions } from './adam.js';
import type { GpuSplats } from '../render/gpu-splats.js';

/** The kernel a fused SH group names as the one taking its step (AdamGroup.fused). */
export const SH_ADAM_KERNEL = 'sh-adam';

export class ShAdam {
  private constructor(
    private readonly ctx: GpuContext,
    private readonly pipeline: CompiledPipeline,
    private readonly workgroupSize: number,
  ) {}

  static async create(ctx: GpuContext): Promise<ShAdam> {
    const WG = 256;
    return new ShAdam(ctx, await ctx.kernels.get({ kernel: SH_ADAM_KERNEL, entryPoint: 'sh_adam', constants: { WG } }), WG);
  }

  /** The bind group of a frame, the SH group and the splats it renders (made at every frame build: the frame is then new). */
  bind(frame: RasterFrame, g: AdamGroup, s: GpuSplats, adam: Adam): GPUBindGroup {
    const b = frame.internal;
    return bindGroup(this.ctx.device, this.pipeline, { 0: frame.camera, 1: g.uniform, 2: s.countBuffer, 3: s.means, 4: s.sh, 5: b.rankOfSplat, 6: b.v2d, 7: b.visible, 8: g.m, 9: g.v, 10: adam.flags });
  }

  /** Records the SH group's step t (1-based) over the group's capacity, as Adam.encode would with the stored gradient. */
  encode(commands: GpuCommands, adam: Adam, group: AdamGroup, binding: GPUBindGroup, t: number, lrHead: number, lrTail: number, options: AdamStepOptions = {}): void {
    if (!group.plane) throw new Error(`sh-adam: ${group.name} is not a planar group`);
    adam.writeParams(group, t, lrHead, lrTail, 0, options);
    const groups = Math.ceil(group.plane / this.workgroupSize);
    const x = Math.min(groups, this.ctx.device.limits.maxComputeWorkgroupsPerDimension);
    commands.dispatch(this.pipeline, [binding], x, Math.ceil(groups / x), 1, `adam.${group.name}`);
  }
}
