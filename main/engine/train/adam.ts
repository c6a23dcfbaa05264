import { GpuArena } from '../gpu/arena.js';
import { bindGroup, createStorage, createUniform, rangeOf, type GpuRange, type GpuRegion } from '../gpu/buffers.js';
import type { GpuCommands } from '../gpu/commands.js';
import type { GpuContext } from '../gpu/context.js';
import type { CompiledPipeline } from '../gpu/kernels.js';
import { UniformStruct } from '../gpu/uniforms.js';

export interface AdamHyper {
  beta1: number;
  beta2: number;
  epsilon: number;
}

export const ADAM_DEFAULTS: AdamHyper = { beta1: 0.9, beta2: 0.999, epsilon: 1e-15 };

/** How a group keeps its moments: f32, or bf16 (two values a u32 word, kernels/moments.wgsl). */
export type MomentsPrecision = 'f32' | 'bf16';

/** u32 words of moments a group of `stride` lanes with planar moments keeps per splat of its moment plane. */
export const momentWordsPerSplat = (stride: number, shift: 0 | 1): number => (shift ? Math.ceil(stride / 2) : stride);

/** One parameter group: a flat f32 range, its gradient and moments (one `moments` arena). */
export interface AdamGroup {
  name: string;
  param: GpuRange;
  grad: GpuRange;
  moments: GpuArena<'moments'>;
  m: GpuRegion;
  v: GpuRegion;
  /** Floats per splat; elements [0, head) of each splat use lrHead, the rest lrTail. */
  stride: number;
  head: number;
  /** Slot of this group in Adam.flags (1 + index). */
  index: number;
  /** Planar layout (SH): the plane length (the capacity); 0 for interleaved groups. */
  plane: number;
  /**
   * 0: one f32 moment a value; 1: bf16, lanes 2w and 2w + 1 of a splat in word w * momentPlane + s
   * of m and v. Every kernel that moves moments indexes them by this and momentPlane.
   */
  momentShift: 0 | 1;
  /**
   * 0: the moments lie as the values do (interleaved f32); else they are planar words of this
   * length, the capacity (kernels/moments.wgsl): the planar groups' always, every group's in bf16.
   */
  momentPlane: number;
  uniform: GPUBuffer;
  group: GPUBindGroup;
  /** The bind group of a sparse step over a frame's visibility (one a frame, made once). */
  sparseGroup: (visible: GPUBuffer) => GPUBindGroup;
  /** Set (to the kernel that takes the step) when the group's step is fused with its backward: `grad` is then a placeholder. */
  fused?: string;
}

/** A step's options beyond the dense update of every value. */
export interface AdamStepOptions {
  /** Per splat, nonzero where visible in the step's view: only those splats are updated (sparse Adam). */
  visible?: GPUBuffer;
  /** Update only the first `lanes` values of each splat (planar groups: the SH DC between full steps). */
  lanes?: number;
}

/** Fused Adam (kernels/adam.wgsl): one dispatch per parameter group, moments updated in place. */
export class Adam {
  /** u32[8]: [0] non-finite gradient elements skipped since the last clear, [1 + g] per group. */
  readonly flags: GPUBuffer;

  private constructor(
    private readonly ctx: GpuContext,
    private readonly pipeline: CompiledPipeline,
    readonly hyper: AdamHyper,
    private readonly workgroupSize: number,
  ) {
    this.flags = createStorage(ctx.device, 'adam.flags', 32);
  }

  private groups = 0;

  static async create(ctx: GpuContext, hyper: AdamHyper = ADAM_DEFAULTS): Promise<Adam> {
    const WG = 256;
    const pipeline = await ctx.kernels.get({ kernel: 'adam', entryPoint: 'adam_step', constants: { WG } });
    return new Adam(ctx, pipeline, hyper, WG);
  }

  /** Moments are created zeroed (WebGPU zero-initializes buffers); bf16 needs the group's own moments. */
  createGroup(name: string, param: GpuRange, grad: GpuRange, counts: GPUBuffer, stride = 1, head = 1, moments?: GpuArena<'moments'>, plane = 0, precision: MomentsPrecision = 'f32', fused?: string): AdamGroup {
    const { device } = this.ctx;
    if (precision === 'bf16' && moments) throw new Error(`adam.${name}: bf16 moments need a group with its own moments`);
    const momentShift = precision === 'bf16' ? 1 : 0;
    // an interleaved group's capacity: its values over its stride
    const momentPlane = plane || (momentShift ? rangeOf(param).size / 4 / stride : 0);
    const bytes = momentPlane ? momentPlane * momentWordsPerSplat(stride, momentShift) * 4 : rangeOf(param).size;
    const arena = moments ?? new GpuArena(device, 'moments', `adam.${name}`, { m: bytes, v: bytes });
    const { m, v } = arena.regions;
    const uniform = createUniform(device, `adam.${name}`, UniformStruct.of('adam', 'AdamParams').size);
    // dense steps never read `visible`: the counts stand in for it
    const entries = { 0: uniform, 1: counts, 2: param, 3: grad, 4: m, 5: v, 6: this.flags, 7: counts };
    const group = bindGroup(device, this.pipeline, entries);
    const index = this.groups++;
    const sparseGroups = new WeakMap<GPUBuffer, GPUBindGroup>(); // frames are rebuilt: their buffers go
    const sparseGroup = (visible: GPUBuffer) => {
      let g = sparseGroups.get(visible);
      if (!g) sparseGroups.set(visible, (g = bindGroup(device, this.pipeline, { ...entries, 7: visible })));
      return g;
    };
    return { name, param, grad, moments: arena, m, v, stride, head, index, plane, momentShift, momentPlane, uniform, group, sparseGroup, ...(fused ? { fused } : {}) };
  }

  /** Records one step (t is 1-based) of a group over `capacity` splats (the GPU count limits it). */
  encode(commands: GpuCommands, group: AdamGroup, capacity: number, t: number, lrHead: number, lrTail = lrHead, countIndex = 0, options: AdamStepOptions = {}): void {
    if (group.fused) throw new Error(`adam.${group.name}: the group's step is fused with its backward (${group.fused})`);
    const lanes = this.writeParams(group, t, lrHead, lrTail, countIndex, options);
    // one thread a value, or a bf16 word (two values); planar moments only over the lanes updated
    const elements = group.momentPlane ? group.momentPlane * momentWordsPerSplat(lanes, group.momentShift) : capacity * group.stride;
    const groups = Math.ceil(elements / this.workgroupSize);
    const x = Math.min(groups, this.ctx.device.limits.maxComputeWorkgroupsPerDimension);
    commands.dispatch(this.pipeline, [options.visible ? group.sparseGroup(options.visible) : group.group], x, Math.ceil(groups / x), 1, `adam.${group.name}`);
  }

  /**
   * Writes a step's AdamParams into the group's uniform (adam-common.wgsl's, which every Adam
   * kernel reads: this one and a fused one, sh-adam.ts); returns the lanes the step updates.
   */
  writeParams(group: AdamGroup, t: number, lrHead: number, lrTail = lrHead, countIndex = 0, options: AdamStepOptions = {}): number {
    const lanes = Math.min(options.lanes ?? group.stride, group.stride);
    if (lanes < group.stride && !group.plane) throw new Error(`adam.${group.name}: a lane limit needs a planar group`);
    const { beta1, beta2, epsilon } = this.hyper;
    const data = UniformStruct.of('adam', 'AdamParams').pack({
      lr_head: lrHead,
      lr_tail: lrTail,
      beta1,
      beta2,
      epsilon,
      bias1: 1 - beta1 ** t,
      bias2: 1 - beta2 ** t,
      stride: group.stride,
      head: group.head,
      count_index: countIndex,
      group_index: group.index % 7,
      plane: group.plane,
      moment_shift: group.momentShift,
      step: t,
      lane_end: lanes,
      sparse: options.visible ? 1 : 0,
      moment_plane: group.momentPlane,
    });
    this.ctx.device.queue.writeBuffer(group.uniform, 0, data);
    return lanes;
  }

  /** Frees the flags (the groups' buffers are their model's). */
  destroy(): void {
    this.flags.destroy();
  }
}
