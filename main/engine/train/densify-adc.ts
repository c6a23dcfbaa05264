import { GpuArena } from '../gpu/arena.js';
import { bindGroup, createStorage, createUniform, rangeOf, readBuffer, type BufferBinding } from '../gpu/buffers.js';
import type { GpuCommands } from '../gpu/commands.js';
import type { GpuContext } from '../gpu/context.js';
import type { CompiledPipeline } from '../gpu/kernels.js';
import { ExclusiveScan, type ScanPlan } from '../gpu/primitives/scan.js';
import { UniformStruct } from '../gpu/uniforms.js';
import { paramDefault } from '../../../shared/params/index.js';
import { momentWordsPerSplat, type AdamGroup } from './adam.js';
import type { KernelVariant } from '../gpu/kernels.js';
import { budgetGrowth, effectiveBudget, refineStepsFrom } from './densify-budget.js';
import { DensifierSlot, type DensifyStep, type DensifyStrategy } from './densify-strategy.js';

/** gsplat DefaultStrategy's settings. */
export interface AdcConfig {
  growGrad2d: number;
  growScale3d: number;
  pruneOpacity: number;
  pruneScale3d: number;
  refineStart: number;
  refineStop: number;
  /** The refine stop on photographed data (captures), in place of refineStop (DensifyData). */
  captureRefineStop: number;
  refineEvery: number;
  resetEvery: number;
  absgrad: boolean;
  /** At most this fraction of the count grows in one refine (1: unlimited, a refine at most doubles). */
  refineGrowth: number;
  /** Budget-driven growth (densify-budget.ts): the splat count to reach by the refine stop; 0 grows by the threshold. */
  budget: number;
}

/** The registry's `train.*` values where it has them; gsplat DefaultStrategy's for the engine's own. */
export const ADC_DEFAULTS: AdcConfig = {
  growGrad2d: paramDefault('train.growGrad2d'),
  growScale3d: 0.01,
  pruneOpacity: 0.005,
  pruneScale3d: 0.1,
  refineStart: paramDefault('train.refineStart'),
  refineStop: paramDefault('train.refineStop'),
  captureRefineStop: paramDefault('train.captureRefineStop'),
  refineEvery: paramDefault('train.refineEvery'),
  resetEvery: 3000,
  absgrad: paramDefault('train.absgrad'),
  refineGrowth: paramDefault('train.refineGrowth'),
  budget: paramDefault('train.densifyBudget'),
};

/** ADC refines until the smaller of its refine stop and half the run (the splats settle after). */
export function adcRefineStop(refineStop: number, iterations: number): number {
  return Math.min(refineStop, Math.floor(iterations / 2));
}

/**
 * The configuration a run on this data densifies with: on photographed data (a capture) the
 * capture refine stop replaces the refine stop (0 keeps it), both already bounded by half the
 * schedule (adcRefineStop). On the statue and the apple clip (H200, docs/training.md), growth
 * from 3,500 to 15,000 steps took held-out PSNR at 30k under the 7k run's.
 */
export function adcConfigFor(config: AdcConfig, photographed: boolean): AdcConfig {
  if (!photographed || config.captureRefineStop <= 0) return config;
  return { ...config, refineStop: Math.min(config.captureRefineStop, config.refineStop) };
}


/** Values a splat the refine scratch holds per part (kernels/densify.wgsl's SCRATCH_LANES). */
const SCRATCH_LANES = 4;

interface Pipelines {
  accumulate: CompiledPipeline;
  classify: CompiledPipeline;
  scatter: CompiledPipeline;
  reset: CompiledPipeline;
  fit: CompiledPipeline;
  histogram: CompiledPipeline;
  threshold: CompiledPipeline;
}

/** kernels/densify.wgsl's classify modes (DensifyParams.grow) and its histogram's size. */
const GROW = { off: 0, threshold: 1, budget: 2 } as const;
const BUDGET_HISTOGRAM_BINS = 4096;

/**
 * Adaptive density control on the GPU (kernels/densify.wgsl): running gradient statistics every
 * step; at refine steps classify, scan, and scatter every parameter group with its Adam moments
 * into a scratch of four values a splat, copied back chunk by chunk (made for the refine only).
 * The new count is written on the GPU, grown by at most `refineGrowth` x and never past the
 * capacity (the growth past it clipped by index: fit_growth); the host only learns it asynchronously.
 */
export class AdcDensifier {
  readonly gradAcc: GPUBuffer;
  readonly hits: GPUBuffer;
  private readonly action: GPUBuffer;
  private readonly outCount: GPUBuffer;
  private readonly offsets: GPUBuffer;
  /** [0] n before the refine, [1] n after, [2] the growers, [3] the budget's threshold key (budget mode). */
  readonly counts: GPUBuffer;
  /** [0]: growers left ungrown for want of capacity, over the run (fit_growth). */
  private readonly clipped: GPUBuffer;
  /** Budget mode: the scores' histogram (the key from which splats grow goes to counts[3]); made at the first budget refine. */
  private histogram: GPUBuffer | undefined;
  private readonly scanPlan: ScanPlan;
  private readonly uniforms = new Map<string, GPUBuffer>();
  private readonly groupCache = new Map<string, GPUBindGroup>();

  private constructor(
    private readonly ctx: GpuContext,
    private readonly pipelines: Pipelines,
    private readonly scan: ExclusiveScan,
    readonly capacity: number,
    readonly config: AdcConfig,
  ) {
    const { device } = ctx;
    this.gradAcc = createStorage(device, 'adc.gradAcc', capacity * 4);
    this.hits = createStorage(device, 'adc.hits', capacity * 4);
    this.action = createStorage(device, 'adc.action', capacity * 4);
    this.outCount = createStorage(device, 'adc.outCount', capacity * 4);
    this.offsets = createStorage(device, 'adc.offsets', (capacity + 1) * 4);
    this.counts = createStorage(device, 'adc.counts', 16);
    this.clipped = createStorage(device, 'adc.clipped', 16);
    this.scanPlan = scan.createPlan(capacity, this.outCount, this.offsets, { buffer: this.counts, index: 0 }, 1);
  }

  get budgetHistogram(): GPUBuffer {
    return (this.histogram ??= createStorage(this.ctx.device, 'adc.budgetHistogram', BUDGET_HISTOGRAM_BINS * 4));
  }

  /** `variant`: force a capability variant (parity tests); default the device's. */
  static async create(ctx: GpuContext, capacity: number, config: AdcConfig, variant?: KernelVariant): Promise<AdcDensifier> {
    const constants = { WG: 256, ABSGRAD: config.absgrad ? 1 : 0 };
    const [accumulate, classify, scatter, reset, fit, histogram, threshold] = await ctx.kernels.preload(
      ['accumulate_stats', 'classify', 'scatter_group', 'reset_opacity', 'fit_growth', 'budget_histogram', 'budget_threshold'].map((entryPoint) => ({ kernel: 'densify', entryPoint, constants, ...(variant ? { variant } : {}) })),
    );
    const scan = await ExclusiveScan.create(ctx, variant ? { variant } : undefined);
    return new AdcDensifier(ctx, { accumulate, classify, scatter, reset, fit, histogram, threshold }, scan, capacity, config);
  }

  private uniform(name: string): GPUBuffer {
    let u = this.uniforms.get(name);
    if (!u) this.uniforms.set(name, (u = createUniform(this.ctx.device, `adc.${name}`, UniformStruct.of('densify', 'DensifyParams').size)));
    return u;
  }

  private writeUniform(name: string, values: Partial<Record<'countIndex' | 'width' | 'height' | 'growGrad2d' | 'growScale3d' | 'pruneOpacity' | 'pruneScale3d' | 'grow' | 'stride' | 'mode' | 'seed' | 'step' | 'capacity' | 'opacityLogitMax' | 'plane' | 'laneFirst' | 'momentShift' | 'momentPlane' | 'growthFraction' | 'budgetWant', number>>): GPUBuffer {
    const data = UniformStruct.of('densify', 'DensifyParams').pack({
      count_index: values.countIndex ?? 0,
      width: values.width ?? 0,
      height: values.height ?? 0,
      grow_grad2d: values.growGrad2d ?? 0,
      grow_scale3d: values.growScale3d ?? 0,
      prune_opacity: values.pruneOpacity ?? 0,
      prune_scale3d: values.pruneScale3d ?? 0,
      grow: values.grow ?? 0,
      stride: values.stride ?? 1,
      mode: values.mode ?? 0,
      seed: values.seed ?? 0,
      step: values.step ?? 0,
      capacity: values.capacity ?? this.capacity,
      opacity_logit_max: values.opacityLogitMax ?? 0,
      plane: values.plane ?? 0,
      lane_first: values.laneFirst ?? 0,
      moment_shift: values.momentShift ?? 0,
      moment_plane: values.momentPlane ?? 0,
      growth_fraction: values.growthFraction ?? 0,
      budget_want: values.budgetWant ?? 0,
    });
    const buffer = this.uniform(name);
    this.ctx.device.queue.writeBuffer(buffer, 0, data);
    return buffer;
  }

  private cachedGroup(key: string, pipeline: CompiledPipeline, entries: Record<number, BufferBinding>): GPUBindGroup {
    let g = this.groupCache.get(key);
    if (!g) this.groupCache.set(key, (g = bindGroup(this.ctx.device, pipeline, entries)));
    return g;
  }

  private dispatch(commands: GpuCommands, pipeline: CompiledPipeline, group: GPUBindGroup, label?: string) {
    const groups = Math.ceil(this.capacity / 256);
    const x = Math.min(groups, this.ctx.device.limits.maxComputeWorkgroupsPerDimension);
    commands.dispatch(pipeline, [group], x, Math.ceil(groups / x), 1, label);
  }

  /** Every step, after the backward: accumulate the screen-space gradient statistics. */
  encodeAccumulate(commands: GpuCommands, splatCount: GPUBuffer, visible: GPUBuffer, mean2dGrad: GPUBuffer, width: number, height: number): void {
    const u = this.writeUniform('accumulate', { countIndex: 0, width, height });
    const group = this.cachedGroup(`acc:${visible.label}`, this.pipelines.accumulate, { 0: u, 1: splatCount, 2: visible, 3: mean2dGrad, 4: this.gradAcc, 5: this.hits });
    this.dispatch(commands, this.pipelines.accumulate, group);
  }

  /**
   * Budget mode's selection (kernels/densify.wgsl budget_histogram, budget_threshold): writes into
   * counts[3] the score key from which about `want` splats grow. Reads counts[0].
   */
  encodeBudgetThreshold(commands: GpuCommands, opacityLogits: AdamGroup, want: number): void {
    commands.clearBuffer(this.budgetHistogram);
    const u = this.writeUniform('budget', { countIndex: 0, budgetWant: want });
    const histogramGroup = this.cachedGroup('budget.histogram', this.pipelines.histogram, { 0: u, 1: this.counts, 6: this.gradAcc, 7: this.hits, 9: opacityLogits.param, 29: this.budgetHistogram });
    this.dispatch(commands, this.pipelines.histogram, histogramGroup, 'densify.budget_histogram');
    const thresholdGroup = this.cachedGroup('budget.threshold', this.pipelines.threshold, { 0: u, 30: this.budgetHistogram, 31: this.counts });
    commands.dispatch(this.pipelines.threshold, [thresholdGroup], 1, 1, 1, 'densify.budget_threshold');
  }

  /**
   * A refine step: grow (unless at the cap) and prune, every group moved with its moments.
   * `groups` must list means (stride 3), logScales (3), quats (4), opacityLogits (1) and sh.
   * `budgetWant` (budget mode): grow that many best-scoring splats instead of those over grow_grad2d.
   */
  encodeRefine(commands: GpuCommands, options: { step: number; seed: number; sceneScale: number; grow: boolean; pruneLarge: boolean; splatCount: GPUBuffer; groups: Record<'means' | 'logScales' | 'quats' | 'opacityLogits' | 'sh', AdamGroup>; budgetWant?: number }): void {
    const { groups, sceneScale } = options;
    commands.copyBuffer(options.splatCount, 0, this.counts, 0, 4);
    const budget = options.budgetWant !== undefined;
    if (budget) this.encodeBudgetThreshold(commands, groups.opacityLogits, options.grow ? options.budgetWant! : 0);
    const cu = this.writeUniform('classify', {
      countIndex: 0,
      growGrad2d: this.config.growGrad2d,
      growScale3d: this.config.growScale3d * sceneScale,
      pruneOpacity: this.config.pruneOpacity,
      pruneScale3d: options.pruneLarge ? this.config.pruneScale3d * sceneScale : 0,
      grow: !options.grow ? GROW.off : budget ? GROW.budget : GROW.threshold,
      growthFraction: this.config.refineGrowth,
    });
    const scratch = this.refineScratch(commands);
    const classifyGroup = bindGroup(this.ctx.device, this.pipelines.classify, { 0: cu, 1: this.counts, 6: this.gradAcc, 7: this.hits, 8: groups.logScales.param, 9: groups.opacityLogits.param, 10: this.action, 11: this.outCount, 25: scratch.growFlags });
    this.dispatch(commands, this.pipelines.classify, classifyGroup, 'densify.classify');
    this.scan.encode(commands, this.scanPlan);
    // growth past the capacity: the first growers by index grow, the rest wait for a later refine
    this.scan.encode(commands, scratch.growScan);
    const fitGroup = bindGroup(this.ctx.device, this.pipelines.fit, { 0: cu, 1: this.counts, 10: this.action, 11: this.outCount, 25: scratch.growFlags, 26: scratch.growOffsets, 27: this.clipped });
    this.dispatch(commands, this.pipelines.fit, fitGroup, 'densify.fit_growth');
    this.scan.encode(commands, this.scanPlan);
    // Means first: its split offsets read the old log scales and quaternions, still in place then.
    const order: [keyof typeof groups, number][] = [['means', 1], ['logScales', 2], ['quats', 0], ['opacityLogits', 0], ['sh', 0]];
    for (const [name, mode] of order) {
      const g = groups[name];
      // planar groups (SH) move SCRATCH_LANES planes at a time; interleaved ones (stride <= 4) at once
      const chunks = g.plane ? Math.ceil(g.stride / SCRATCH_LANES) : 1;
      for (let chunk = 0; chunk < chunks; chunk++) {
        const laneFirst = chunk * SCRATCH_LANES;
        const u = this.writeUniform(`scatter.${name}.${chunk}`, { countIndex: 0, stride: g.stride, mode, seed: options.seed, step: options.step, plane: g.plane, laneFirst, momentShift: g.momentShift, momentPlane: g.momentPlane });
        // The layout is shared by every mode: the split inputs are bound even where unused.
        const entries: Record<number, BufferBinding> = { 0: u, 1: this.counts, 12: this.action, 13: this.offsets, 14: g.param, 15: g.m, 16: g.v, 17: scratch.param, 18: scratch.m, 19: scratch.v, 20: groups.logScales.param, 21: groups.quats.param };
        this.dispatch(commands, this.pipelines.scatter, bindGroup(this.ctx.device, this.pipelines.scatter, entries), `densify.scatter.${name}`);
        // back into the group's own buffers before the next chunk reuses the scratch (bf16
        // moments: half the planes, SCRATCH_LANES even so a chunk holds whole pairs)
        if (!g.plane) for (const part of ['param', 'm', 'v'] as const) commands.copyBuffer(scratch[part], 0, g[part], 0, rangeOf(g[part]).size);
        else {
          const lanes = Math.min(SCRATCH_LANES, g.stride - laneFirst);
          commands.copyBuffer(scratch.param, 0, g.param, laneFirst * g.plane * 4, lanes * g.plane * 4);
          const words = momentWordsPerSplat(lanes, g.momentShift);
          for (const part of ['m', 'v'] as const) commands.copyBuffer(scratch[part], 0, g[part], (laneFirst >> g.momentShift) * g.plane * 4, words * g.plane * 4);
        }
      }
    }
    commands.copyBuffer(this.counts, 4, options.splatCount, 0, 4);
    commands.clearBuffer(this.gradAcc);
    commands.clearBuffer(this.hits);
  }

  /** Opacity reset: logits clamped to logit(2 x prune opacity), their moments zeroed. */
  encodeResetOpacity(commands: GpuCommands, splatCount: GPUBuffer, opacity: AdamGroup): void {
    const value = 2 * this.config.pruneOpacity;
    const u = this.writeUniform('reset', { countIndex: 0, opacityLogitMax: Math.log(value / (1 - value)) });
    const group = this.cachedGroup('reset', this.pipelines.reset, { 0: u, 1: splatCount, 22: opacity.param, 23: opacity.m, 24: opacity.v });
    this.dispatch(commands, this.pipelines.reset, group, 'densify.reset_opacity');
  }

  /**
   * The refine's scratch: SCRATCH_LANES values a splat of capacity for the parameter and each
   * moment (48 B a splat), made for this refine and destroyed once its commands are submitted
   * (WebGPU keeps a destroyed buffer alive for the work already submitted), so no memory stays
   * with the steps that do not refine. The moments' part is a moments arena: scatter binds it as one.
   */
  private refineScratch(commands: GpuCommands) {
    const { device } = this.ctx;
    const bytes = this.capacity * SCRATCH_LANES * 4;
    const moments = new GpuArena(device, 'moments', 'adc.scratch', { m: bytes, v: bytes });
    const param = createStorage(device, 'adc.scratch.param', bytes);
    const growFlags = createStorage(device, 'adc.scratch.growFlags', this.capacity * 4);
    const growOffsets = createStorage(device, 'adc.scratch.growOffsets', (this.capacity + 1) * 4);
    const growScan = this.scan.createPlan(this.capacity, growFlags, growOffsets, { buffer: this.counts, index: 0 }, 2);
    commands.afterSubmit(() => {
      for (const b of [param, moments, growFlags, growOffsets]) b.destroy();
      growScan.destroy();
    });
    return { param, ...moments.regions, growFlags, growOffsets, growScan };
  }

  /** Growers the refines so far left ungrown for want of capacity (a GPU sync point). */
  async clippedGrowth(): Promise<number> {
    return new Uint32Array(await readBuffer(this.ctx.device, this.clipped, 4))[0];
  }

  /** GPU bytes this densifier holds between steps (statistics and scan; uniforms aside). */
  get bytes(): number {
    return [this.gradAcc, this.hits, this.action, this.outCount, this.offsets, this.counts, this.clipped, ...(this.histogram ? [this.histogram] : [])].reduce((sum, b) => sum + b.size, 0);
  }

  destroy(): void {
    this.scanPlan.destroy();
    for (const b of [this.gradAcc, this.hits, this.action, this.outCount, this.offsets, this.counts, this.clipped, ...(this.histogram ? [this.histogram] : []), ...this.uniforms.values()]) b.destroy();
  }
}

/**
 * ADC as a DensifyStrategy: statistics after Adam every step until the refine stop, a refine
 * every `refineEvery` steps from `refineStart`, an opacity reset every `resetEvery`. A refine at
 * most doubles the count, or grows it by `refineGrowth` x (the first growers by index; the
 * others counted: clippedGrowth); the capacity holds that before one.
 */
export class AdcStrategy implements DensifyStrategy {
  readonly name = 'adc';
  private readonly densifier = new DensifierSlot<AdcDensifier>('ADC');

  constructor(
    private readonly ctx: GpuContext,
    readonly config: AdcConfig,
  ) {}

  /**
   * Room for one refine's growth (at most `refineGrowth` x the count, fit_growth) and 1024 more:
   * 2x the count by default (a refine may double), 1.25x with refineGrowth 0.25.
   */
  capacityFor(count: number, maxSplats: number): number {
    return Math.max(1024, Math.min(Math.ceil((1 + this.config.refineGrowth) * Math.max(count, 1)), 2 * maxSplats) + 1024);
  }

  private refinesAt(step: number): boolean {
    const c = this.config;
    return step < c.refineStop && step > c.refineStart && step % c.refineEvery === 0;
  }

  checksCapacityAt(step: number): boolean {
    return this.refinesAt(step);
  }

  /** Room for the most a refine may grow: then the capacity never clips it, whatever its history. */
  hasRoom(count: number, capacity: number): boolean {
    return Math.ceil((1 + this.config.refineGrowth) * count) + 16 <= capacity;
  }

  /** Growth clipped by the densifiers replaced so far (a resize follows a clipped refine). */
  private clippedBefore = 0;
  /** From the refine stop on nothing reads the statistics or the refine's state: freed (retire). */
  private retired = false;

  async rebuild(capacity: number): Promise<void> {
    if (this.retired) return;
    if (this.densifier.bytes) this.clippedBefore += await this.densifier.current.clippedGrowth();
    await this.densifier.replace(() => AdcDensifier.create(this.ctx, capacity, this.config));
  }

  /**
   * From the refine stop: the statistics (20 B a splat of capacity) and the refine's state are
   * freed, since encodeAfterAdam no longer touches them (no statistics, refines or opacity resets).
   */
  async retire(step: number): Promise<void> {
    if (this.retired || step < this.config.refineStop) return;
    if (this.densifier.bytes) this.clippedBefore += await this.densifier.current.clippedGrowth();
    this.densifier.destroy();
    this.retired = true;
  }

  /** The statistics read the screen-space gradient until the refine stop, and nothing after. */
  readsMean2dFrom(step: number): boolean {
    return step < this.config.refineStop;
  }

  /** The gradient statistics gathered since the last refine survive a resize (one runs just before a refine). */
  holdStatistics(commands: GpuCommands): (() => Promise<void>) | undefined {
    if (this.retired) return undefined;
    const { device } = this.ctx;
    const old = this.densifier.current;
    const acc = createStorage(device, 'resize.gradAcc', old.gradAcc.size);
    const hits = createStorage(device, 'resize.hits', old.hits.size);
    commands.copyBuffer(old.gradAcc, 0, acc, 0, acc.size);
    commands.copyBuffer(old.hits, 0, hits, 0, hits.size);
    return async () => {
      const next = this.densifier.current;
      const c = this.ctx.commands('resize.stats');
      const bytes = Math.min(acc.size, next.gradAcc.size);
      c.copyBuffer(acc, 0, next.gradAcc, 0, bytes);
      c.copyBuffer(hits, 0, next.hits, 0, bytes);
      await c.submit();
      acc.destroy();
      hits.destroy();
    };
  }

  encodeBeforeAdam(): void {}

  encodeAfterAdam(commands: GpuCommands, s: DensifyStep): boolean {
    const c = this.config;
    if (s.step >= c.refineStop) return false;
    const densifier = this.densifier.current;
    densifier.encodeAccumulate(commands, s.countBuffer, s.visible, s.mean2dGrad, s.width, s.height);
    const refined = this.refinesAt(s.step);
    if (refined) {
      densifier.encodeRefine(commands, {
        step: s.step,
        seed: s.seed,
        sceneScale: s.sceneScale,
        grow: s.splatCount < s.maxSplats,
        pruneLarge: s.step > c.resetEvery,
        splatCount: s.countBuffer,
        groups: s.groups,
        ...(c.budget > 0 ? { budgetWant: this.budgetWant(s) } : {}),
      });
    }
    if (s.step > 0 && s.step % c.resetEvery === 0) densifier.encodeResetOpacity(commands, s.countBuffer, s.groups.opacityLogits);
    return refined;
  }

  /** Budget mode: this refine's share of the growth curve (densify-budget.ts), from the exact count. */
  private budgetWant(s: DensifyStep): number {
    const budget = effectiveBudget(this.config.budget, s.resolutionFactor ?? 1);
    return budgetGrowth({ budget, count: s.splatCount, refinesLeft: refineStepsFrom(s.step, this.config), maxSplats: s.maxSplats });
  }

  async checkpointBlobs(count: number): Promise<{ name: string; data: Uint8Array }[]> {
    if (this.retired) return []; // nothing reads statistics from here on: a resume starts fresh ones (restore)
    const { device } = this.ctx;
    const d = this.densifier.current;
    return [
      { name: 'adc.gradAcc', data: new Uint8Array(count ? await readBuffer(device, d.gradAcc, count * 4) : new ArrayBuffer(0)) },
      { name: 'adc.hits', data: new Uint8Array(count ? await readBuffer(device, d.hits, count * 4) : new ArrayBuffer(0)) },
    ];
  }

  restore(blobs: ReadonlyMap<string, Uint8Array>, count: number, floats: (name: string, count: number) => Float32Array): void {
    // a checkpoint without statistics resumes with fresh ones
    if (!blobs.has('adc.gradAcc') || !count) return;
    const q = this.ctx.device.queue;
    const d = this.densifier.current;
    q.writeBuffer(d.gradAcc, 0, floats('adc.gradAcc', count));
    const hits = blobs.get('adc.hits')!;
    q.writeBuffer(d.hits, 0, hits.buffer, hits.byteOffset, hits.byteLength);
  }

  get bytes(): number {
    return this.densifier.bytes;
  }

  /** Growers the run's refines left ungrown for want of capacity (a GPU sync point). */
  async clippedGrowth(): Promise<number> {
    if (this.retired) return this.clippedBefore;
    return this.clippedBefore + (await this.densifier.current.clippedGrowth());
  }

  destroy(): void {
    this.densifier.destroy();
  }
}
