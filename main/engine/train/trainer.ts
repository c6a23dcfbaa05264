/**
 * The training loop. One step = forward, loss, backward, Adam, densification statistics (and
 * at refine steps the refine itself), recorded into one submit: nothing is read back inside a
 * step. Losses, splat counts and guard flags are read back asynchronously a few steps late.
 * Over 400 lines because the step, the model's GPU state and its growth belong together.
 */
import type { SplatSet } from '../../../shared/scene/splats.js';
import { createStorage, readBuffer } from '../gpu/buffers.js';
import type { GpuContext } from '../gpu/context.js';
import { GpuSplatGrads, GpuSplats, shAosToPlanar, shPlanarToAos } from '../render/gpu-splats.js';
import { COUNT, Rasterizer, type RasterFrame } from '../render/rasterizer.js';
import { Adam, type AdamGroup } from './adam.js';
import type { TrainingData } from './data.js';
import { AdcDensifier, ADC_DEFAULTS, type AdcConfig } from './densify-adc.js';
import { initialSplats } from './init.js';
import { McmcDensifier, MCMC_DEFAULTS, type McmcConfig } from './densify-mcmc.js';
import { GeometryLoss } from './geometry.js';
import { LossFrame, type SsimPadding, TrainingLoss } from './loss.js';
import { Random } from './random.js';
import { activeShDegree, DEFAULT_LEARNING_RATES, meansLearningRate, type LearningRates } from './schedule.js';
import { GpuTargets } from './targets.js';
import type { Checkpoint, CheckpointHeader } from './checkpoint.js';
import { badInput } from '../../../shared/rpc/errors.js';

export interface TrainerConfig {
  iterations: number;
  strategy: 'adc' | 'mcmc';
  maxSplats: number;
  shDegree: number;
  antialiased: boolean;
  /** Border handling of the SSIM term (kernels/loss.wgsl). */
  ssimPadding: SsimPadding;
  seed: number;
  initPoints: number;
  rates: LearningRates;
  adc: AdcConfig;
  /** Read the loss back every N steps (asynchronously). */
  lossEvery: number;
  mcmc: McmcConfig;
  /**
   * Geometry-aware training (2DGS-style depth distortion and normal consistency, for meshing):
   * the rasterizer renders median depth, normals and distortion, and each weight applies from its
   * start step. Undefined: plain photometric training.
   */
  geometry?: GeometryConfig;
}

export interface GeometryConfig {
  distortionWeight: number;
  distortionStart: number;
  normalWeight: number;
  normalStart: number;
}

/**
 * The backward configuration training uses, measured on training runs rather than on the fixed
 * raster load whose sweep fills the tuning cache: training frames carry far fewer intersections
 * per tile (the fixed load: ~1,500), where one pixel per thread in batches of 16 is faster. H200,
 * mic 30k steps: 102.0 s with it, 115.0 s with the fixed load's choice (2 pixels per thread,
 * batches of 24), which is 4% faster on the fixed load itself (backward 2.94 vs 3.06 ms).
 */
export const TRAINING_BACKWARD = { backwardReduce: 'partials', backwardPixels: 1 } as const;

export function defaultTrainerConfig(overrides: Partial<TrainerConfig> = {}): TrainerConfig {
  const iterations = overrides.iterations ?? 30_000;
  return {
    iterations,
    strategy: 'adc',
    maxSplats: 3_000_000,
    shDegree: 3,
    antialiased: false,
    ssimPadding: 'valid',
    seed: 0,
    initPoints: 100_000,
    rates: DEFAULT_LEARNING_RATES,
    lossEvery: 10,
    ...overrides,
    mcmc: { ...MCMC_DEFAULTS, capMax: overrides.maxSplats ?? 3_000_000, ...overrides.mcmc },
    adc: { ...ADC_DEFAULTS, refineStop: Math.min(ADC_DEFAULTS.refineStop, Math.floor(iterations / 2)), ...overrides.adc },
  };
}

export interface StepLoss {
  step: number;
  loss: number;
  ssim: number;
  l1: number;
  psnr: number;
  /** With geometry: mean depth distortion and mean normal inconsistency (1 - N . S) of the view. */
  distortion?: number;
  normalError?: number;
}

export interface Evaluation {
  step: number;
  psnr: number;
  ssim: number;
  views: { name: string; psnr: number; ssim: number }[];
}

type GroupName = 'means' | 'logScales' | 'quats' | 'opacityLogits' | 'sh';

/** The model on the GPU: parameters, gradients, Adam groups. Recreated when capacity grows. */
class Model {
  readonly grads: GpuSplatGrads;
  readonly groups: Record<GroupName, AdamGroup>;

  constructor(
    readonly splats: GpuSplats,
    adam: Adam,
    ctx: GpuContext,
  ) {
    this.grads = new GpuSplatGrads(ctx, splats.capacity, splats.shCoeffs);
    const c = splats.countBuffer;
    this.groups = {
      means: adam.createGroup('means', splats.means, this.grads.means, c, 3, 3),
      logScales: adam.createGroup('logScales', splats.logScales, this.grads.logScales, c, 3, 3),
      quats: adam.createGroup('quats', splats.quats, this.grads.quats, c, 4, 4),
      opacityLogits: adam.createGroup('opacityLogits', splats.opacityLogits, this.grads.opacityLogits, c, 1, 1),
      sh: adam.createGroup('sh', splats.sh, this.grads.sh, c, splats.shCoeffs * 3, 3, undefined, splats.capacity),
    };
  }

  destroy(): void {
    this.splats.destroy();
    this.grads.destroy();
    for (const g of Object.values(this.groups)) for (const b of [g.m, g.v, g.uniform]) b.destroy();
  }
}

export class Trainer {
  step = 0;
  /** Splat count as last read back (exact between refines). */
  splatCount: number;
  readonly losses: StepLoss[] = [];
  readonly evaluations: Evaluation[] = [];
  nonFiniteSkipped = 0;
  /** Where non-finite gradients were skipped, per parameter group (cumulative). */
  readonly nonFiniteByGroup: Record<string, number> = {};
  /** Called with a message when a step had non-finite gradients (reported a few steps late). */
  onWarning?: (message: string) => void;
  /** Steps that needed more intersections than the buffers held (their gradient missed some). */
  isectOverflows = 0;
  private model: Model;
  private frame!: RasterFrame;
  private lossFrame!: LossFrame;
  private geometry: GeometryLoss | undefined;
  private readonly geometryLate = new Map<number, { distortion: number; normalError: number }>();
  private densifier: AdcDensifier | undefined;
  private mcmc: McmcDensifier | undefined;
  private order: number[] = [];
  private orderPosition = 0;
  private readonly pending: Promise<void>[] = [];
  private readonly staging: GPUBuffer[] = [];
  private readonly trainViews: number[];
  private readonly testViews: number[];

  private constructor(
    readonly ctx: GpuContext,
    readonly data: TrainingData,
    readonly config: TrainerConfig,
    private readonly rasterizer: Rasterizer,
    private readonly loss: TrainingLoss,
    private readonly adam: Adam,
    readonly targets: GpuTargets,
    splats: GpuSplats,
    readonly random: Random,
  ) {
    this.model = new Model(splats, adam, ctx);
    this.splatCount = splats.count;
    this.trainViews = data.views.flatMap((v, i) => (v.split === 'train' ? [i] : []));
    this.testViews = data.views.flatMap((v, i) => (v.split === 'test' ? [i] : []));
    if (!this.trainViews.length) throw new Error(`${data.name}: no training views`);
  }

  /** Builds everything: compiles pipelines (in parallel), uploads targets, initializes splats. */
  static async create(ctx: GpuContext, data: TrainingData, config: TrainerConfig, options: { initial?: SplatSet; onProgress?: (stage: string, done: number, total: number) => void } = {}): Promise<Trainer> {
    const [rasterizer, loss, adam] = await Promise.all([Rasterizer.create(ctx, { ...TRAINING_BACKWARD, absgrad: config.adc.absgrad, outputs: config.geometry ? { median: true, normals: true, distortion: true } : undefined }), TrainingLoss.create(ctx, config.ssimPadding), Adam.create(ctx)]);
    const random = new Random(config.seed ^ 0x5eed);
    // MCMC starts from more opaque, smaller splats (gsplat: init_opa 0.5, init_scale 0.1)
    const initial = options.initial ?? initialSplats(data, config.shDegree, config.initPoints, random, config.strategy === 'mcmc' ? { opacity: 0.5, scale: 0.1 } : undefined);
    if (initial.shDegree !== config.shDegree) throw new Error(`initial splats have SH degree ${initial.shDegree}, the config wants ${config.shDegree}`);
    const capacity = Trainer.capacityFor(initial.count, config);
    const splats = GpuSplats.fromHost(ctx, initial, capacity, 'model');
    const views = data.views.map((_, i) => i);
    const targets = await GpuTargets.upload(ctx, data, views, (d, t) => options.onProgress?.('upload', d, t));
    const trainer = new Trainer(ctx, data, config, rasterizer, loss, adam, targets, splats, random);
    await trainer.buildFrames();
    await trainer.sizeIntersections();
    return trainer;
  }

  /** Room for two refines' worth of growth: a refine at most doubles the count. */
  private static capacityFor(count: number, config: TrainerConfig): number {
    // MCMC grows to its cap, 5% a refine: take the cap's room at once
    if (config.strategy === 'mcmc') return Math.max(1024, count, Math.min(config.mcmc.capMax, config.maxSplats)) + 16;
    return Math.max(1024, Math.min(2 * Math.max(count, 1), 2 * config.maxSplats) + 1024);
  }

  get splats(): GpuSplats {
    return this.model.splats;
  }

  /**
   * GPU bytes of training state per splat of capacity: parameters, gradients, Adam moments, the
   * densifier's statistics and refine scratch, and the rasterizer frame's per-splat working set
   * (not the per-intersection or per-pixel buffers, nor the training images).
   */
  get stateBytesPerSplat(): number {
    const groups = Object.values(this.model.groups);
    const model = groups.reduce((sum, g) => sum + g.param.size + g.grad.size + g.m.size + g.v.size, 0) + this.model.grads.mean2d.size;
    const densifier = (this.densifier?.bytes ?? 0) + (this.mcmc?.bytes ?? 0);
    return (model + densifier) / this.capacity + this.frame.bytes.perSplat;
  }

  get capacity(): number {
    return this.model.splats.capacity;
  }

  /** Intersections the frame holds; grown when a step comes within 15% of it. */
  private isectCapacity = 0;
  private growIsect = 0;

  private async buildFrames(isectCapacity = Math.max(this.isectCapacity, 1 << 16, this.capacity * 4)) {
    const width = Math.max(...this.data.views.map((v) => v.camera.width));
    const height = Math.max(...this.data.views.map((v) => v.camera.height));
    this.frame?.destroy();
    this.lossFrame?.destroy();
    this.geometry?.destroy();
    this.densifier?.destroy();
    this.isectCapacity = isectCapacity;
    this.frame = await this.rasterizer.createFrame(this.model.splats, width, height, isectCapacity);
    this.lossFrame = this.loss.createFrame(width, height);
    this.geometry = this.config.geometry ? await GeometryLoss.create(this.ctx, this.frame) : undefined;
    this.rasterizer.bindBackward(this.frame, this.lossFrame.vImage, this.geometry?.vAux, this.model.grads, { vNormals: this.geometry?.vNormals });
    this.mcmc?.destroy();
    this.densifier = undefined;
    this.mcmc = undefined;
    if (this.config.strategy === 'mcmc') this.mcmc = await McmcDensifier.create(this.ctx, this.capacity, this.config.mcmc);
    else this.densifier = await AdcDensifier.create(this.ctx, this.capacity, this.config.adc);
  }

  /** Renders every training view once and sizes the intersection buffers to 1.5x the largest count. */
  private async sizeIntersections() {
    // One submit per view (each writes the camera), one readback for all: the queue keeps order.
    const views = this.trainViews.slice(0, 64);
    const staging = this.ctx.device.createBuffer({ label: 'train.sizeCounts', size: views.length * 32, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    for (const [i, view] of views.entries()) {
      const commands = this.ctx.commands('size');
      this.rasterizer.encodeForward(commands, this.frame, this.data.views[view].camera, this.settings(0));
      commands.copyBuffer(this.frame.counts, 0, staging, i * 32, 32);
      await commands.submit();
    }
    await staging.mapAsync(GPUMapMode.READ);
    const counts = new Uint32Array(staging.getMappedRange().slice(0));
    staging.destroy();
    let most = 0;
    for (let i = 0; i < views.length; i++) most = Math.max(most, counts[i * 8 + COUNT.intersections]);
    const wanted = Math.ceil(most * 1.5) + 1024;
    if (wanted > this.isectCapacity) await this.buildFrames(wanted);
    this.ctx.assertNoErrors('the training set-up');
  }

  private nextView(): number {
    if (this.orderPosition >= this.order.length) {
      this.order = this.random.permutation(this.trainViews.length).map((i) => this.trainViews[i]);
      this.orderPosition = 0;
    }
    return this.order[this.orderPosition++];
  }

  private settings(step: number) {
    return { background: this.data.background, antialiased: this.config.antialiased, shDegree: activeShDegree(step, this.config.shDegree) };
  }

  /** Records and submits one training step. Never waits for the GPU. */
  async trainStep(): Promise<void> {
    const t = this.step;
    const cfg = this.config;
    await this.ensureCapacity(t);
    if (this.growIsect > this.isectCapacity) await this.buildFrames(this.growIsect);
    const view = this.nextView();
    const camera = this.data.views[view].camera;
    const loc = this.targets.location[view];
    const commands = this.ctx.commands(`step ${t}`);
    this.rasterizer.encodeForward(commands, this.frame, camera, this.settings(t));
    this.loss.encode(commands, this.lossFrame, this.frame.image, this.targets.buffer(view), loc.offset, camera.width, camera.height);
    const geo = cfg.geometry;
    if (this.geometry && geo) {
      // distortion (sum of w w |z - z|) is in depth units: its weight is per scene scale
      this.geometry.encode(commands, camera, { distortion: t >= geo.distortionStart ? geo.distortionWeight / this.data.sceneScale : 0, normal: t >= geo.normalStart ? geo.normalWeight : 0 });
    }
    this.rasterizer.encodeBackward(commands, this.frame);
    const g = this.model.groups;
    const r = cfg.rates;
    const n = this.capacity;
    const k = t + 1;
    if (this.mcmc) this.mcmc.encodeRegularize(commands, this.model.splats.countBuffer, g);
    const meansLr = meansLearningRate(r, this.data.sceneScale, t, cfg.iterations);
    this.adam.encode(commands, g.means, n, k, meansLr);
    this.adam.encode(commands, g.logScales, n, k, r.logScales);
    this.adam.encode(commands, g.quats, n, k, r.quats);
    this.adam.encode(commands, g.opacityLogits, n, k, r.opacityLogits);
    this.adam.encode(commands, g.sh, n, k, r.shDc, r.shRest);
    const adc = cfg.adc;
    let refined = false;
    if (this.densifier && t < adc.refineStop) {
      this.densifier.encodeAccumulate(commands, this.model.splats.countBuffer, this.frame.internal.visible, this.model.grads.mean2d, camera.width, camera.height);
      if (t > adc.refineStart && t % adc.refineEvery === 0) {
        this.densifier.encodeRefine(commands, {
          step: t,
          seed: cfg.seed,
          sceneScale: this.data.sceneScale,
          grow: this.splatCount < cfg.maxSplats,
          pruneLarge: t > adc.resetEvery,
          splatCount: this.model.splats.countBuffer,
          groups: g,
        });
        refined = true;
      }
      if (t > 0 && t % adc.resetEvery === 0) this.densifier.encodeResetOpacity(commands, this.model.splats.countBuffer, g.opacityLogits);
    }
    const mc = cfg.mcmc;
    if (this.mcmc) {
      if (t < mc.refineStop && t > mc.refineStart && t % mc.refineEvery === 0) {
        this.mcmc.encodeRefine(commands, this.model.splats.countBuffer, g, t, cfg.seed);
        refined = true;
      }
      this.mcmc.encodeNoise(commands, this.model.splats.countBuffer, g, t, cfg.seed, meansLr);
    }
    const readLoss = t % cfg.lossEvery === 0 || t === cfg.iterations - 1;
    const lossStaging = readLoss ? this.copyToStaging(commands, this.lossFrame.sums, this.lossFrame.activeSumsBytes) : undefined;
    const countStaging = refined ? this.copyToStaging(commands, this.model.splats.countBuffer, 4) : undefined;
    const geometryStaging = readLoss && this.geometry ? this.copyToStaging(commands, this.geometry.sums, this.geometry.activeSumsBytes) : undefined;
    const flagStaging = readLoss ? this.copyToStaging(commands, this.adam.flags, 32) : undefined;
    const frameCounts = this.copyToStaging(commands, this.frame.counts, 32);
    await commands.submit();
    this.step = t + 1;
    if (lossStaging) {
      const { width, height } = camera;
      this.track(lossStaging, (data) => {
        const v = this.loss.value(new Float32Array(data), width, height);
        this.losses.push({ step: t, loss: v.loss, ssim: v.ssim, l1: v.l1, psnr: v.psnr, ...this.geometryLate.get(t) });
        this.geometryLate.delete(t);
      });
    }
    if (geometryStaging) {
      const { width, height } = camera;
      this.track(geometryStaging, (data) => {
        const g = GeometryLoss.value(new Float32Array(data), width, height);
        const entry = this.losses.findLast((l) => l.step === t);
        const values = { distortion: g.distortion, normalError: g.normal };
        if (entry) Object.assign(entry, values);
        else this.geometryLate.set(t, values); // the loss's readback has not landed yet
      });
    }
    if (flagStaging) {
      this.track(flagStaging, (data) => {
        const flags = new Uint32Array(data);
        if (flags[0] > this.nonFiniteSkipped) {
          const groups = Object.values(this.model.groups)
            .filter((g) => flags[1 + (g.index % 7)] > (this.nonFiniteByGroup[g.name] ?? 0))
            .map((g) => `${g.name} ${flags[1 + (g.index % 7)] - (this.nonFiniteByGroup[g.name] ?? 0)}`);
          this.onWarning?.(`step ${t}: non-finite gradients skipped (never applied): ${groups.join(', ')}`);
          for (const g of Object.values(this.model.groups)) this.nonFiniteByGroup[g.name] = flags[1 + (g.index % 7)];
        }
        this.nonFiniteSkipped = flags[0];
      });
    }
    if (countStaging) this.track(countStaging, (data) => (this.splatCount = new Uint32Array(data)[0]));
    const capacity = this.isectCapacity;
    this.track(frameCounts, (data) => {
      // [2]: intersections this step needed; grow ahead of need (the next frame build sees it)
      const needed = new Uint32Array(data)[2];
      if (needed > 0.85 * capacity) this.growIsect = Math.max(this.growIsect, Math.ceil(needed * 1.5));
      if (needed > capacity) this.isectOverflows += 1;
    });
  }

  private copyToStaging(commands: ReturnType<GpuContext['commands']>, source: GPUBuffer, bytes: number): { buffer: GPUBuffer; bytes: number } {
    const size = Math.max(16, Math.ceil(bytes / 16) * 16);
    let buffer = this.staging.find((b) => b.size >= size && b.mapState === 'unmapped' && !(b as { busy?: boolean }).busy);
    if (!buffer) {
      buffer = this.ctx.device.createBuffer({ label: 'train.staging', size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
      this.staging.push(buffer);
    }
    (buffer as { busy?: boolean }).busy = true;
    commands.copyBuffer(source, 0, buffer, 0, Math.ceil(bytes / 4) * 4);
    return { buffer, bytes };
  }

  private track(staging: { buffer: GPUBuffer; bytes: number }, use: (data: ArrayBuffer) => void) {
    const b = staging.buffer;
    const p = b.mapAsync(GPUMapMode.READ, 0, b.size).then(() => {
      use(b.getMappedRange(0, b.size).slice(0, staging.bytes));
      b.unmap();
      (b as { busy?: boolean }).busy = false;
    });
    this.pending.push(p);
    if (this.pending.length > 64) void this.drain(32);
  }

  private async drain(keep = 0) {
    while (this.pending.length > keep) await this.pending.shift();
  }

  /** Waits for every asynchronous readback (losses, counts). */
  async settle(): Promise<void> {
    await this.drain(0);
  }

  /** Before a refine: capacity must hold twice the current count (known exactly by then). */
  private async ensureCapacity(t: number) {
    if (this.config.strategy === 'mcmc') return; // MCMC's capacity is its cap from the start
    const adc = this.config.adc;
    const refineNow = t < adc.refineStop && t > adc.refineStart && t % adc.refineEvery === 0;
    if (!refineNow) return;
    await this.drain(0); // the last refine's count (100 steps ago) has long arrived
    if (2 * this.splatCount + 16 <= this.capacity) return;
    await this.resize(Trainer.capacityFor(this.splatCount, { ...this.config, maxSplats: Math.max(this.config.maxSplats, this.splatCount) }));
  }

  /** Moves the model into buffers of a new capacity (parameters and Adam moments copied). */
  private async resize(capacity: number) {
    this.growIsect = Math.max(this.growIsect, this.isectCapacity, capacity * 4);
    const old = this.model;
    const splats = new GpuSplats(this.ctx, capacity, old.splats.shDegree, this.splatCount, 'model');
    const next = new Model(splats, this.adam, this.ctx);
    const commands = this.ctx.commands('resize');
    for (const name of Object.keys(old.groups) as GroupName[]) {
      const from = old.groups[name];
      const to = next.groups[name];
      for (const part of ['param', 'm', 'v'] as const) {
        if (from.plane) {
          // planar (SH): each value's plane moves to its place in the new capacity
          const rows = Math.min(from.plane, to.plane) * 4;
          for (let j = 0; j < from.stride; j++) commands.copyBuffer(from[part], j * from.plane * 4, to[part], j * to.plane * 4, rows);
        } else commands.copyBuffer(from[part], 0, to[part], 0, Math.min(from[part].size, to[part].size));
      }
    }
    commands.copyBuffer(old.splats.countBuffer, 0, splats.countBuffer, 0, 16);
    // The statistics gathered since the last refine move too (this runs just before a refine).
    const stats = this.densifier ? { acc: createStorage(this.ctx.device, 'resize.gradAcc', this.densifier.gradAcc.size), hits: createStorage(this.ctx.device, 'resize.hits', this.densifier.hits.size) } : undefined;
    if (stats && this.densifier) {
      commands.copyBuffer(this.densifier.gradAcc, 0, stats.acc, 0, stats.acc.size);
      commands.copyBuffer(this.densifier.hits, 0, stats.hits, 0, stats.hits.size);
    }
    await commands.submit();
    this.model = next;
    await this.buildFrames(); // frames and the densifier are capacity-sized
    if (stats && this.densifier) {
      const c = this.ctx.commands('resize.stats');
      const bytes = Math.min(stats.acc.size, this.densifier.gradAcc.size);
      c.copyBuffer(stats.acc, 0, this.densifier.gradAcc, 0, bytes);
      c.copyBuffer(stats.hits, 0, this.densifier.hits, 0, bytes);
      await c.submit();
      stats.acc.destroy();
      stats.hits.destroy();
    }
    old.destroy();
  }

  /** PSNR and SSIM of the clamped renders on the given views (default: the test views). */
  async evaluate(views: readonly number[] = this.testViews.length ? this.testViews : this.trainViews): Promise<Evaluation> {
    await this.settle();
    const scratch = createStorage(this.ctx.device, 'eval.clamped', this.frame.width * this.frame.height * 16);
    const results: Evaluation['views'] = [];
    const degree = activeShDegree(Math.max(0, this.step - 1), this.config.shDegree);
    for (const view of views) {
      const camera = this.data.views[view].camera;
      const commands = this.ctx.commands('eval');
      this.rasterizer.encodeForward(commands, this.frame, camera, { ...this.settings(0), shDegree: degree });
      const loc = this.targets.location[view];
      this.loss.encodeEvaluation(commands, this.lossFrame, this.frame.image, scratch, this.targets.buffer(view), loc.offset, camera.width, camera.height);
      await commands.submit();
      const sums = new Float32Array(await readBuffer(this.ctx.device, this.lossFrame.sums, this.lossFrame.activeSumsBytes));
      const v = this.loss.value(sums, camera.width, camera.height);
      results.push({ name: this.data.views[view].name, psnr: v.psnr, ssim: v.ssim });
    }
    scratch.destroy();
    const mean = (k: 'psnr' | 'ssim') => results.reduce((s, r) => s + r[k], 0) / Math.max(1, results.length);
    const evaluation = { step: this.step, psnr: mean('psnr'), ssim: mean('ssim'), views: results };
    this.evaluations.push(evaluation);
    return evaluation;
  }

  /** Everything exact resume needs, read back from the GPU (a sync point: between steps only). */
  async checkpointState(): Promise<{ header: Omit<CheckpointHeader, 'blobs' | 'format' | 'version' | 'savedAt'>; blobs: { name: string; data: Uint8Array }[] }> {
    await this.settle();
    const { device } = this.ctx;
    const count = new Uint32Array(await readBuffer(device, this.model.splats.countBuffer, 4))[0];
    this.splatCount = count;
    const blobs: { name: string; data: Uint8Array }[] = [];
    for (const [name, g] of Object.entries(this.model.groups)) {
      const bytes = count * g.stride * 4;
      for (const [part, buffer] of [['param', g.param], ['m', g.m], ['v', g.v]] as const) {
        // stored in the host's interleaved order, whatever the GPU layout and capacity
        const raw = bytes ? await readBuffer(device, buffer, g.plane ? buffer.size : bytes) : new ArrayBuffer(0);
        const data: Uint8Array = g.plane && bytes ? new Uint8Array(shPlanarToAos(new Float32Array(raw), count, g.stride, g.plane).buffer) : new Uint8Array(raw);
        blobs.push({ name: `${name}.${part}`, data });
      }
    }
    if (this.densifier) {
      blobs.push({ name: 'adc.gradAcc', data: new Uint8Array(count ? await readBuffer(device, this.densifier.gradAcc, count * 4) : new ArrayBuffer(0)) });
      blobs.push({ name: 'adc.hits', data: new Uint8Array(count ? await readBuffer(device, this.densifier.hits, count * 4) : new ArrayBuffer(0)) });
    }
    return {
      header: {
        step: this.step,
        splatCount: count,
        shDegree: this.model.splats.shDegree,
        random: this.random.state,
        order: this.order,
        orderPosition: this.orderPosition,
        nonFiniteSkipped: this.nonFiniteSkipped,
        data: { name: this.data.name, views: this.data.views.length, train: this.trainViews.length },
        config: this.config,
      },
      blobs,
    };
  }

  /** A trainer continuing exactly where a checkpoint left off (same data and configuration). */
  static async resume(ctx: GpuContext, data: TrainingData, config: TrainerConfig, checkpoint: Checkpoint, file: string): Promise<Trainer> {
    const h = checkpoint.header;
    const train = data.views.filter((v) => v.split === 'train').length;
    if (h.data.views !== data.views.length || h.data.train !== train) {
      throw badInput(file, `the checkpoint was made on ${h.data.views} views (${h.data.train} training), this dataset has ${data.views.length} (${train})`);
    }
    if (h.shDegree !== config.shDegree) throw badInput(file, `the checkpoint has SH degree ${h.shDegree}, the run asks for ${config.shDegree}`);
    const blob = (name: string, floats: number) => {
      const b = checkpoint.blobs.get(name);
      if (!b || b.byteLength !== floats * 4) throw badInput(file, `blob ${name}: expected ${floats * 4} bytes, found ${b?.byteLength ?? 'none'}`);
      return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
    };
    const n = h.splatCount;
    const K = (h.shDegree + 1) ** 2;
    const initial = {
      count: n,
      shDegree: h.shDegree,
      means: blob('means.param', 3 * n),
      logScales: blob('logScales.param', 3 * n),
      quats: blob('quats.param', 4 * n),
      opacityLogits: blob('opacityLogits.param', n),
      sh: blob('sh.param', 3 * K * n),
    };
    const trainer = await Trainer.create(ctx, data, config, { initial });
    const q = ctx.device.queue;
    for (const [name, g] of Object.entries(trainer.model.groups)) {
      const floats = n * g.stride;
      if (!floats) continue;
      for (const part of ['m', 'v'] as const) {
        const values = blob(`${name}.${part}`, floats);
        q.writeBuffer(g[part], 0, g.plane ? shAosToPlanar(values, n, g.stride, g.plane) : values);
      }
    }
    if (trainer.densifier && checkpoint.blobs.has('adc.gradAcc') && n) {
      q.writeBuffer(trainer.densifier.gradAcc, 0, blob('adc.gradAcc', n));
      const hits = checkpoint.blobs.get('adc.hits')!;
      q.writeBuffer(trainer.densifier.hits, 0, hits.buffer, hits.byteOffset, hits.byteLength);
    }
    trainer.step = h.step;
    trainer.random.state = h.random >>> 0;
    trainer.order = [...h.order];
    trainer.orderPosition = h.orderPosition;
    trainer.nonFiniteSkipped = h.nonFiniteSkipped;
    await q.onSubmittedWorkDone();
    return trainer;
  }

  /** The current splats on the host (export, checkpoints). */
  async download(): Promise<SplatSet> {
    await this.settle();
    this.ctx.assertNoErrors('training');
    const count = new Uint32Array(await readBuffer(this.ctx.device, this.model.splats.countBuffer, 4))[0];
    this.splatCount = count;
    return this.model.splats.download(count);
  }

  destroy(): void {
    this.frame?.destroy();
    this.lossFrame?.destroy();
    this.geometry?.destroy();
    this.densifier?.destroy();
    this.mcmc?.destroy();
    this.model.destroy();
    this.targets.destroy();
    for (const b of this.staging) b.destroy();
  }
}
