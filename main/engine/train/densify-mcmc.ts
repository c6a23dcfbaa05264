import { bindGroup, createStorage, createUniform, uploadStorage, type BufferBinding } from '../gpu/buffers.js';
import type { GpuCommands } from '../gpu/commands.js';
import type { GpuContext } from '../gpu/context.js';
import type { CompiledPipeline } from '../gpu/kernels.js';
import { ExclusiveScan, type ScanPlan } from '../gpu/primitives/scan.js';
import { UniformStruct } from '../gpu/uniforms.js';
import type { AdamGroup } from './adam.js';
import { DensifierSlot, type DensifyStep, type DensifyStrategy } from './densify-strategy.js';

/**
 * gsplat MCMCStrategy / simple_trainer defaults. None is a registry parameter (the registry's
 * refine settings are ADC's); `capMax` is the run's --max-splats (defaultTrainerConfig).
 */
export interface McmcConfig {
  capMax: number;
  noiseLr: number;
  refineStart: number;
  refineStop: number;
  refineEvery: number;
  minOpacity: number;
  opacityReg: number;
  scaleReg: number;
}

export const MCMC_DEFAULTS: McmcConfig = {
  capMax: 1_000_000,
  noiseLr: 5e5,
  refineStart: 500,
  refineStop: 25_000,
  refineEvery: 100,
  minOpacity: 0.005,
  opacityReg: 0.01,
  scaleReg: 0.01,
};

const N_MAX = 51;
type Groups = Record<'means' | 'logScales' | 'quats' | 'opacityLogits' | 'sh', AdamGroup>;

/** Binomial coefficients C(n, k) for n, k < 51 (row-major), the relocation formula's table. */
export function binomialTable(): Float32Array {
  const t = new Float32Array(N_MAX * N_MAX);
  for (let n = 0; n < N_MAX; n++) for (let k = 0; k <= n; k++) t[n * N_MAX + k] = k === 0 || k === n ? 1 : t[(n - 1) * N_MAX + k - 1] + t[(n - 1) * N_MAX + k];
  return t;
}

/** CPU reference of the MCMC relocation (3DGS-MCMC eq. 9), float64. */
export function relocationReference(opacity: number, ratio: number, minOpacity = 0.005): { opacity: number; scaleFactor: number } {
  const r = Math.min(ratio, N_MAX);
  const o = Math.min(Math.max(1 - (1 - opacity) ** (1 / r), minOpacity), 1 - 1.1920929e-7);
  const binom = (n: number, k: number) => {
    let c = 1;
    for (let i = 1; i <= k; i++) c = (c * (n - k + i)) / i;
    return c;
  };
  let denom = 0;
  for (let i = 1; i <= r; i++) for (let k = 0; k < i; k++) denom += (binom(i - 1, k) * (-1) ** k * o ** (k + 1)) / Math.sqrt(k + 1);
  return { opacity: o, scaleFactor: opacity / denom };
}

/**
 * MCMC densification (kernels/mcmc.wgsl): at refine steps dead splats are relocated onto live
 * ones sampled by opacity, then the set grows by 5% up to the cap; every step the positions get
 * opacity-gated noise and the loss gets opacity and scale regularizers. All on the GPU; the
 * count changes on the GPU only.
 */
export class McmcDensifier {
  private readonly counts: GPUBuffer;
  private readonly dead: GPUBuffer;
  private readonly weight: GPUBuffer;
  private readonly deadOffset: GPUBuffer;
  private readonly cdf: GPUBuffer;
  private readonly deadList: GPUBuffer;
  private readonly samples: GPUBuffer;
  private readonly picks: GPUBuffer;
  private readonly binoms: GPUBuffer;
  private readonly dispatchArgs: GPUBuffer;
  private readonly scans: { dead: ScanPlan; weight: ScanPlan };
  private readonly uniforms = new Map<string, GPUBuffer>();
  private readonly groups = new Map<string, GPUBindGroup>();
  private readonly owned: GPUBuffer[] = [];

  private constructor(
    private readonly ctx: GpuContext,
    private readonly pipelines: Record<string, CompiledPipeline>,
    private readonly scanner: ExclusiveScan,
    readonly capacity: number,
    readonly config: McmcConfig,
  ) {
    const { device } = ctx;
    const own = (label: string, bytes: number, usage = 0) => {
      const b = createStorage(device, `mcmc.${label}`, bytes, usage);
      this.owned.push(b);
      return b;
    };
    this.counts = own('counts', 32);
    this.dead = own('dead', capacity * 4);
    this.weight = own('weight', capacity * 4);
    this.deadOffset = own('deadOffset', (capacity + 1) * 4);
    this.cdf = own('cdf', (capacity + 1) * 4);
    this.deadList = own('deadList', capacity * 4);
    this.samples = own('samples', capacity * 4);
    this.picks = own('picks', capacity * 4);
    this.dispatchArgs = own('dispatchArgs', 16, GPUBufferUsage.INDIRECT);
    this.binoms = uploadStorage(device, 'mcmc.binoms', binomialTable());
    this.owned.push(this.binoms);
    this.scans = {
      dead: scanner.createPlan(capacity, this.dead, this.deadOffset, { buffer: this.counts, index: 0 }, 1),
      weight: scanner.createPlan(capacity, this.weight, this.cdf, { buffer: this.counts, index: 0 }, 2),
    };
  }

  static async create(ctx: GpuContext, capacity: number, config: McmcConfig): Promise<McmcDensifier> {
    const names = ['mark', 'list_dead', 'targets', 'sample', 'relocate_sources', 'zero_source_moments', 'copy_group', 'finish_growth', 'inject_noise', 'regularize'];
    const compiled = await ctx.kernels.preload(names.map((entryPoint) => ({ kernel: 'mcmc', entryPoint, constants: { WG: 256 } })));
    const pipelines = Object.fromEntries(names.map((n, i) => [n, compiled[i]]));
    return new McmcDensifier(ctx, pipelines, await ExclusiveScan.create(ctx), capacity, config);
  }

  private uniform(key: string, values: { round?: number; seed?: number; step?: number; stride?: number; plane?: number; momentShift?: number; momentPlane?: number; noiseScale?: number }): GPUBuffer {
    let u = this.uniforms.get(key);
    if (!u) this.uniforms.set(key, (u = createUniform(this.ctx.device, `mcmc.${key}`, UniformStruct.of('mcmc', 'McmcParams').size)));
    const data = UniformStruct.of('mcmc', 'McmcParams').pack({
      count_index: 0,
      cap: Math.min(this.config.capMax, this.capacity),
      min_opacity: this.config.minOpacity,
      seed: values.seed ?? 0,
      step: values.step ?? 0,
      round: values.round ?? 0,
      quant: Math.min(2 ** 20, Math.floor((2 ** 32 - 1) / this.capacity)),
      noise_scale: values.noiseScale ?? 0,
      stride: values.stride ?? 1,
      plane: values.plane ?? 0,
      opacity_reg: this.config.opacityReg,
      scale_reg: this.config.scaleReg,
      capacity: this.capacity,
      moment_shift: values.momentShift ?? 0,
      moment_plane: values.momentPlane ?? 0,
    });
    this.ctx.device.queue.writeBuffer(u, 0, data);
    return u;
  }

  private group(key: string, pipeline: string, entries: Record<number, BufferBinding>): GPUBindGroup {
    let g = this.groups.get(key);
    if (!g) this.groups.set(key, (g = bindGroup(this.ctx.device, this.pipelines[pipeline], entries)));
    return g;
  }

  private perSplat(commands: GpuCommands, name: string, group: GPUBindGroup) {
    const groups = Math.ceil(this.capacity / 256);
    const x = Math.min(groups, this.ctx.device.limits.maxComputeWorkgroupsPerDimension);
    commands.dispatch(this.pipelines[name], [group], x, Math.ceil(groups / x), 1, `mcmc.${name}`);
  }

  /** Before Adam, every step: the opacity and scale regularizers' gradients. */
  encodeRegularize(commands: GpuCommands, splatCount: GPUBuffer, groups: Groups): void {
    commands.copyBuffer(splatCount, 0, this.counts, 0, 4);
    const u = this.uniform('regularize', {});
    this.perSplat(commands, 'regularize', this.group('regularize', 'regularize', { 0: u, 1: this.counts, 2: groups.opacityLogits.param, 3: groups.logScales.param, 19: groups.opacityLogits.grad, 20: groups.logScales.grad }));
  }

  /** After Adam, every step: positions move by covariance-shaped noise, gated to transparent splats. */
  encodeNoise(commands: GpuCommands, splatCount: GPUBuffer, groups: Groups, step: number, seed: number, meansLr: number): void {
    commands.copyBuffer(splatCount, 0, this.counts, 0, 4);
    const u = this.uniform('noise', { step, seed, noiseScale: meansLr * this.config.noiseLr });
    this.perSplat(commands, 'inject_noise', this.group('noise', 'inject_noise', { 0: u, 1: this.counts, 2: groups.opacityLogits.param, 3: groups.logScales.param, 17: groups.means.param, 18: groups.quats.param }));
  }

  /** A refine step: relocate the dead, then grow by 5% (to the cap). */
  encodeRefine(commands: GpuCommands, splatCount: GPUBuffer, groups: Groups, step: number, seed: number): void {
    commands.copyBuffer(splatCount, 0, this.counts, 0, 4);
    const p = this.pipelines;
    for (const round of [0, 1]) {
      // relocate_sources zeroes the scales' moments: their layout
      const u = this.uniform(`round${round}`, { round, step, seed, momentShift: groups.logScales.momentShift, momentPlane: groups.logScales.momentPlane });
      const base = { 0: u, 1: this.counts };
      this.perSplat(commands, 'mark', this.group(`mark${round}`, 'mark', { ...base, 2: groups.opacityLogits.param, 4: this.dead, 5: this.weight, 10: this.picks }));
      this.scan(commands);
      this.perSplat(commands, 'list_dead', this.group(`list${round}`, 'list_dead', { ...base, 4: this.dead, 6: this.deadOffset, 8: this.deadList }));
      commands.dispatch(p.targets, [this.group(`targets${round}`, 'targets', { ...base, 21: this.dispatchArgs })], 1);
      commands.dispatchIndirect(p.sample, [this.group(`sample${round}`, 'sample', { ...base, 7: this.cdf, 9: this.samples, 10: this.picks })], this.dispatchArgs, 0);
      this.perSplat(commands, 'relocate_sources', this.group(`reloc${round}`, 'relocate_sources', {
        ...base, 2: groups.opacityLogits.param, 3: groups.logScales.param, 10: this.picks, 11: this.binoms,
        13: groups.opacityLogits.m, 14: groups.opacityLogits.v, 15: groups.logScales.m, 16: groups.logScales.v,
      }));
      for (const name of ['means', 'quats', 'sh'] as const) {
        const g = groups[name];
        const gu = this.uniform(`zero.${name}.${round}`, { round, stride: g.stride, plane: g.plane, momentShift: g.momentShift, momentPlane: g.momentPlane });
        this.perSplat(commands, 'zero_source_moments', this.group(`zero.${name}.${round}`, 'zero_source_moments', { 0: gu, 1: this.counts, 10: this.picks, 13: g.m, 14: g.v }));
      }
      for (const name of ['means', 'logScales', 'quats', 'opacityLogits', 'sh'] as const) {
        const g = groups[name];
        const gu = this.uniform(`copy.${name}.${round}`, { round, stride: g.stride, plane: g.plane, momentShift: g.momentShift, momentPlane: g.momentPlane });
        commands.dispatchIndirect(p.copy_group, [this.group(`copy.${name}.${round}`, 'copy_group', { 0: gu, 1: this.counts, 8: this.deadList, 9: this.samples, 12: g.param, 13: g.m, 14: g.v })], this.dispatchArgs, 0, `mcmc.copy.${name}`);
      }
      commands.dispatch(p.finish_growth, [this.group(`finish${round}`, 'finish_growth', base)], 1);
    }
    commands.copyBuffer(this.counts, 0, splatCount, 0, 4);
  }

  /** Dead flags -> dead offsets (total: dead count), weights -> cdf (total: weight sum). */
  private scan(commands: GpuCommands) {
    this.scanner.encode(commands, this.scans.dead);
    this.scanner.encode(commands, this.scans.weight);
  }

  /** GPU bytes this densifier holds (its per-splat buffers; scan scratch aside). */
  get bytes(): number {
    return this.owned.reduce((sum, b) => sum + b.size, 0);
  }

  destroy(): void {
    this.scans.dead.destroy();
    this.scans.weight.destroy();
    for (const b of [...this.owned, ...this.uniforms.values()]) b.destroy();
  }
}

/**
 * MCMC as a DensifyStrategy: regularizer gradients before Adam, then a refine every
 * `refineEvery` steps in [refineStart, refineStop) and position noise every step. Its capacity is
 * its cap from the start, so it never needs to grow.
 */
/** More opaque, smaller splats than ADC's (gsplat: init_opa 0.5, init_scale 0.1). */
export const MCMC_INITIAL_SPLATS = { opacity: 0.5, scale: 0.1 } as const;

export class McmcStrategy implements DensifyStrategy {
  readonly name = 'mcmc';
  readonly initialSplats = MCMC_INITIAL_SPLATS;
  private readonly densifier = new DensifierSlot<McmcDensifier>('MCMC');

  constructor(
    private readonly ctx: GpuContext,
    readonly config: McmcConfig,
  ) {}

  capacityFor(count: number, maxSplats: number): number {
    // MCMC grows to its cap, 5% a refine: take the cap's room at once
    return Math.max(1024, count, Math.min(this.config.capMax, maxSplats)) + 16;
  }

  checksCapacityAt(): boolean {
    return false;
  }

  hasRoom(): boolean {
    return true;
  }

  async rebuild(capacity: number): Promise<void> {
    await this.densifier.replace(() => McmcDensifier.create(this.ctx, capacity, this.config));
  }

  /** Nothing to keep: MCMC's buffers are scratch of one refine or one step. */
  holdStatistics(): undefined {
    return undefined;
  }

  encodeBeforeAdam(commands: GpuCommands, s: DensifyStep): void {
    this.densifier.current.encodeRegularize(commands, s.countBuffer, s.groups);
  }

  encodeAfterAdam(commands: GpuCommands, s: DensifyStep): boolean {
    const c = this.config;
    const refined = s.step < c.refineStop && s.step > c.refineStart && s.step % c.refineEvery === 0;
    if (refined) this.densifier.current.encodeRefine(commands, s.countBuffer, s.groups, s.step, s.seed);
    this.densifier.current.encodeNoise(commands, s.countBuffer, s.groups, s.step, s.seed, s.meansLearningRate);
    return refined;
  }

  async checkpointBlobs(): Promise<{ name: string; data: Uint8Array }[]> {
    return [];
  }

  restore(): void {}

  get bytes(): number {
    return this.densifier.bytes;
  }

  destroy(): void {
    this.densifier.destroy();
  }
}
