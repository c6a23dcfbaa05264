/**
 * The training loop. One step = forward, loss, backward, Adam, densification (the strategy's
 * hooks: statistics, and at refine steps the refine itself), recorded into one submit: nothing is
 * read back inside a step (train-step.ts records it). Losses, splat counts and guard flags are
 * read back asynchronously a few steps late (readbacks.ts); the trainer keeps them. The trainer
 * builds the parts a step records with and rebuilds them when they outgrow their buffers, keeps
 * the run's state (checkpoints, exact resume) and evaluates. The model's GPU state is model.ts;
 * the configuration trainer-config.ts. Growth asks the GPU memory ledger first (memory-growth.ts
 * holds the arithmetic; the growth sites stay here, beside the state they rebuild, which is why
 * this file is over 400 lines: splitting the growth out is the next step once the issue 18
 * branches have merged into it).
 */
import type { SplatSet } from '../../../shared/scene/splats.js';
import { readBuffer } from '../gpu/buffers.js';
import type { GpuContext } from '../gpu/context.js';
import { GpuSplats } from '../render/gpu-splats.js';
import { COUNT, Rasterizer, type RasterFrame } from '../render/rasterizer.js';
import { CameraGradSum, type CameraGradient } from '../render/camera-grads.js';
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import { CameraRefiner, resolveRefineCameras, type CameraRefineState } from './camera-refine.js';
import type { ViewCorrection } from '../../../shared/scene/camera-correction.js';
import { Adam } from './adam.js';
import { ShAdam } from './sh-adam.js';
import { Appearance, appearanceModelFor } from './appearance.js';
import type { TrainingData } from './data.js';
import { createDensifyStrategy } from './densify.js';
import type { DensifyStrategy } from './densify-strategy.js';
import { initialSplats } from './init.js';
import { CoarseToFine } from './coarse-to-fine.js';
import { evaluateViews, type Evaluation } from './evaluate-views.js';
import { GeometryLoss } from './geometry.js';
import { LossFrame, TrainingLoss } from './loss.js';
import { Model } from './model.js';
import { Random } from '../../../shared/random.js';
import { StepReadbacks } from './readbacks.js';
import { activeShDegree } from './schedule.js';
import { GpuTargets } from './targets.js';
import type { TrainerConfig } from './trainer-config.js';
import { checkpointFloats, checkpointSplats, type Checkpoint, type CheckpointHeader } from './checkpoint.js';
import { badInput } from '../../../shared/rpc/errors.js';
import { recordCameraGradient, recordTrainStep, renderSettings, type StepLoss, type StepParts, type StepReports } from './train-step.js';
import { formatBytes, isGpuOutOfMemory } from '../gpu/memory.js';
import { capacityBindingLimit, describeCap, fittingCapacity, fittingIntersections, intersectionBindingLimit, resizePeakBytes, splatsWithRoom, type GrowthLimit, type MemoryCap, type TrainingFootprint } from './memory-growth.js';
import { refusedAtStart, refusedByBinding } from './memory-refusal.js';
import { VISIBLE_HEADROOM, VisibleCapacity, visibleCapacityFor } from './visible-capacity.js';
import { countViews } from './view-counts.js';

export { defaultTrainerConfig, type GeometryConfig, type TrainerConfig } from './trainer-config.js';
export type { Evaluation } from './evaluate-views.js';
export type { StepLoss } from './train-step.js';

/**
 * The backward configuration training uses, measured on training runs rather than on the fixed
 * raster load whose sweep fills the tuning cache: training frames carry far fewer intersections
 * per tile (the fixed load: ~1,500), where one pixel per thread in batches of 16 is faster. H200,
 * mic 30k steps: 102.0 s with it, 115.0 s with the fixed load's choice (2 pixels per thread,
 * batches of 24), which is 4% faster on the fixed load itself (backward 2.94 vs 3.06 ms).
 */
export const TRAINING_BACKWARD = { backwardReduce: 'partials', backwardPixels: 1 } as const;

/**
 * Training state per splat of capacity by part: parameters, gradients (with the screen-space
 * mean2d one), each group's Adam moments, the densifier's statistics (and refine scratch while it
 * lives), the rasterizer frame's per-splat working set.
 */
export interface StateBytesBreakdown {
  params: number;
  grads: number;
  moments: Record<'means' | 'logScales' | 'quats' | 'opacityLogits' | 'sh', number>;
  densifier: number;
  frame: number;
}

/** A set-up's capacity: asked for ('initial': the initial splats' own, after a refusal) and as built. */
interface BuildAttempt {
  /** 'initial': the initial splats' own capacity; a number: that capacity (a capped run resumed). */
  capacityOf?: 'initial' | number;
  capacity?: number;
  initialCapacity?: number;
}

/**
 * Steps between the intersection-buffer checks (growIntersections) and the visible-capacity
 * checks (growVisible), which also run on the step after every refine (the count may have grown).
 */
const INTERSECTION_CHECK_EVERY = 100;

/** The least visible capacity a frame is built with (small scenes: the capacity itself). */
const MIN_VISIBLE_CAPACITY = 1024;

/** What Trainer.create takes besides the data and the configuration. */
export interface TrainerCreateOptions {
  initial?: SplatSet;
  loadFirst?: readonly number[];
  onProgress?: (stage: string, done: number, total: number) => void;
  onStage?: (stage: 'splats' | 'pipelines' | 'frames' | 'intersections') => void;
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
  /** The frame's visible capacity and the counts it is sized from (visible-capacity.ts). */
  private readonly visible: VisibleCapacity;
  /** Whether the last step recorded a refine (the next checks the visible capacity first: the count may have grown). */
  private refinedLastStep = false;
  /** Whether the screen-space mean gradient is no longer stored (nothing reads it: dropMean2d). */
  private mean2dDropped = false;
  /** The splat count training may grow to: --max-splats, or less once GPU memory capped it. */
  splatCap: number;
  /** Why growth was capped by GPU memory (set once; memory-growth.ts), and who hears of it. */
  memoryCap: MemoryCap | undefined;
  onMemoryCap?: (cap: MemoryCap) => void;
  private isectCapped = false;
  private model: Model;
  private frame!: RasterFrame;
  /** The fused SH Adam's bind group of the frame and model as they are (buildFrames). */
  private shAdamBinding!: GPUBindGroup;
  private lossFrame!: LossFrame;
  private geometry: GeometryLoss | undefined;
  /** The per-image colour models between the render and the loss (--appearance), if any. */
  private appearance: Appearance | undefined;
  private order: number[] = [];
  private orderPosition = 0;
  private readonly readbacks: StepReadbacks;
  private readonly trainViews: number[];
  private readonly testViews: number[];
  /** Camera refinement (undefined when off) and the frame's sum of the camera gradient. */
  private readonly cameraRefiner: CameraRefiner | undefined;
  private cameraSum: CameraGradSum | undefined;
  /** The coarse-to-fine schedule's reduced targets (undefined when it is off). */
  private coarse: CoarseToFine | undefined;

  private constructor(
    readonly ctx: GpuContext,
    readonly data: TrainingData,
    readonly config: TrainerConfig,
    private readonly rasterizer: Rasterizer,
    private readonly loss: TrainingLoss,
    private readonly adam: Adam,
    private readonly shAdam: ShAdam,
    readonly targets: GpuTargets,
    splats: GpuSplats,
    readonly random: Random,
    private readonly densify: DensifyStrategy,
  ) {
    this.model = new Model(splats, adam, ctx, config.momentsPrecision);
    this.readbacks = new StepReadbacks(ctx.device);
    this.splatCount = splats.count;
    this.visible = new VisibleCapacity(splats.count);
    this.splatCap = config.maxSplats;
    this.trainViews = trainViewsOf(data);
    this.testViews = data.views.flatMap((v, i) => (v.split === 'test' ? [i] : []));
    if (!this.trainViews.length) throw new Error(`${data.name}: no training views`);
    const refine = resolveRefineCameras(config.cameraRefine.mode, data.posesEstimated);
    this.cameraRefiner = refine === 'off' ? undefined : new CameraRefiner({ ...config.cameraRefine, mode: refine }, data.views.map((v) => v.camera), data.sceneScale, config.iterations);
  }

  /**
   * Builds everything, overlapped (issue 18's cold start): every pipeline the first step needs is
   * requested at once (Dawn compiles them on its worker threads) while this thread makes the
   * initial splats, and the images load behind the first steps, the first epoch's views first
   * (GpuTargets; trainStep waits for its view). `loadFirst`: the views to load first instead (a
   * resumed run's remaining order).
   * Within the GPU memory budget: when the configuration's capacity does not fit, the trainer
   * starts at the initial splats' own capacity and grows to what fits (capped, reported once);
   * when even that does not fit, the configuration is refused with the numbers (bad_input).
   */
  static async create(ctx: GpuContext, data: TrainingData, config: TrainerConfig, options: TrainerCreateOptions & { memoryCap?: MemoryCap } = {}): Promise<Trainer> {
    const liveBefore = ctx.memory.live;
    const tried: BuildAttempt = options.memoryCap ? { capacityOf: options.memoryCap.capacity } : {};
    try {
      const trainer = await ctx.memory.guard(ctx.device, 'the training set-up', () => Trainer.build(ctx, data, config, options, tried));
      if (options.memoryCap) {
        trainer.memoryCap = options.memoryCap;
        trainer.splatCap = Math.min(config.maxSplats, splatsWithRoom(trainer.capacity, (n, c) => trainer.densify.hasRoom(n, c)));
        return trainer;
      }
      const wanted = trainer.densify.capacityFor(trainer.splatCount, config.maxSplats);
      if (trainer.capacity < wanted) await trainer.growWithinMemory(0, wanted); // held to the binding limit: capped, said once
      return trainer;
    } catch (error) {
      if (!isGpuOutOfMemory(error)) throw error;
      const attempt: BuildAttempt = { capacityOf: 'initial' };
      const refuse = (refusal: unknown) => (isGpuOutOfMemory(refusal) ? refusedAtStart(refusal, data.name, refusal.refusal.liveBytes + refusal.refusal.requestedBytes - liveBefore) : refusal);
      if (tried.capacity !== undefined && tried.capacity <= (tried.initialCapacity ?? 0)) throw refuse(error); // the smallest start was what failed
      const trainer = await ctx.memory.guard(ctx.device, 'the training set-up', () => Trainer.build(ctx, data, config, options, attempt)).catch((again: unknown) => {
        throw refuse(again);
      });
      await trainer.growWithinMemory(0, trainer.densify.capacityFor(trainer.splatCount, config.maxSplats), error.refusal.refusedBy);
      return trainer;
    }
  }

  private static async build(ctx: GpuContext, data: TrainingData, config: TrainerConfig, options: TrainerCreateOptions, attempt: BuildAttempt): Promise<Trainer> {
    const cameraGrads = resolveRefineCameras(config.cameraRefine.mode, data.posesEstimated) !== 'off';
    const compiled = Promise.all([Rasterizer.create(ctx, { ...TRAINING_BACKWARD, absgrad: config.adc.absgrad, outputs: config.geometry ? { median: true, normals: true, distortion: true } : undefined, cameraGrads, shGrads: false }), TrainingLoss.create(ctx, config.ssimPadding, { randomBackground: config.randomBackground }), Adam.create(ctx), ShAdam.create(ctx)]);
    const appearanceModel = appearanceModelFor(config.appearance, data.photographed ?? false);
    const appearing = appearanceModel === 'off' ? undefined : Appearance.create(ctx, appearanceModel, trainViewsOf(data).length, ...frameSizeOf(data));
    // awaited below; a throw before then must not leave them unhandled
    compiled.catch(() => undefined);
    appearing?.catch(() => undefined);
    const random = new Random(config.seed ^ 0x5eed);
    const densify = createDensifyStrategy(ctx, config);
    const initial = options.initial ?? initialSplats(data, config.shDegree, config.initPoints, random, densify.initialSplats);
    if (initial.shDegree !== config.shDegree) throw new Error(`initial splats have SH degree ${initial.shDegree}, the config wants ${config.shDegree}`);
    const bindingLimit = capacityBindingLimit(ctx.device.limits.maxStorageBufferBindingSize, config.shDegree);
    if (initial.count > bindingLimit) throw refusedByBinding(data.name, initial.count, bindingLimit, ctx.device.limits.maxStorageBufferBindingSize);
    attempt.initialCapacity = Math.min(bindingLimit, densify.capacityFor(initial.count, initial.count));
    const asked = attempt.capacityOf === 'initial' ? attempt.initialCapacity : typeof attempt.capacityOf === 'number' ? Math.max(attempt.capacityOf, initial.count) : densify.capacityFor(initial.count, config.maxSplats);
    const capacity = (attempt.capacity = Math.min(bindingLimit, asked));
    options.onStage?.('splats');
    // the order nextView will draw first, from a copy of the generator in the state it will have
    const loadFirst = options.loadFirst ?? drawEpoch(new Random(random.state), trainViewsOf(data));
    // upload progress is the set-up's: the views still loading once training runs report nothing
    let settingUp = true;
    const targets = GpuTargets.start(ctx, data, data.views.map((_, i) => i), { first: loadFirst, onProgress: (d, t) => settingUp && options.onProgress?.('upload', d, t) });
    try {
      const splats = GpuSplats.fromHost(ctx, initial, capacity, 'model');
      const [rasterizer, loss, adam, shAdam] = await compiled;
      options.onStage?.('pipelines');
      const trainer = new Trainer(ctx, data, config, rasterizer, loss, adam, shAdam, targets, splats, random, densify);
      trainer.coarse = await CoarseToFine.create(ctx, data, trainer.trainViews, config.coarseToFine, config.iterations);
      trainer.appearance = await appearing;
      await trainer.buildFrames();
      options.onStage?.('frames');
      await trainer.sizeIntersections();
      options.onStage?.('intersections');
      return trainer;
    } catch (error) {
      targets.destroy();
      void appearing?.then((a) => a.destroy(), () => undefined);
      throw error;
    } finally {
      settingUp = false;
    }
  }

  get splats(): GpuSplats {
    return this.model.splats;
  }

  /** The per-image colour model the run trains ('auto' resolved for its data). */
  get appearanceModel(): 'off' | Appearance['model'] {
    return this.appearance?.model ?? 'off';
  }

  /**
   * GPU bytes of training state per splat of capacity: parameters, gradients, Adam moments, the
   * densifier's statistics and refine scratch, and the rasterizer frame's per-splat working set
   * (not the per-intersection or per-pixel buffers, nor the training images).
   */
  get stateBytesPerSplat(): number {
    const b = this.stateBytesBreakdown;
    return b.params + b.grads + Object.values(b.moments).reduce((sum, x) => sum + x, 0) + b.densifier + b.frame;
  }

  /** stateBytesPerSplat by part (per splat of capacity, from the buffers' sizes): what `bench train` reports. */
  get stateBytesBreakdown(): StateBytesBreakdown {
    const n = this.capacity;
    const model = this.model.bytesByPart;
    const moments = Object.fromEntries(Object.entries(model.moments).map(([name, bytes]) => [name, bytes / n])) as StateBytesBreakdown['moments'];
    return { params: model.params / n, grads: model.grads / n, moments, densifier: this.densify.bytes / n, frame: this.frame.bytes.perSplat };
  }

  /** The same state per splat trained: the capacity's room for growth is paid by the splats there are. */
  get stateBytesPerLiveSplat(): number {
    return (this.stateBytesPerSplat * this.capacity) / Math.max(this.splatCount, 1);
  }

  get capacity(): number {
    return this.model.splats.capacity;
  }

  /** What the state costs per splat of capacity and per intersection, as built now (memory-growth.ts). */
  private get footprint(): TrainingFootprint {
    const n = this.capacity;
    return { modelPerSplat: this.model.bytes / n, rebuiltPerSplat: this.densify.bytes / n + this.frame.bytes.perSplat, perIntersection: this.frame.bytes.perIntersection, readbackPerSplat: this.model.splats.sh.size / n };
  }

  /** Splats a refine left ungrown because the capacity was short (0 with room to spare; a GPU sync point). */
  async clippedGrowth(): Promise<number> {
    return (await this.densify.clippedGrowth?.()) ?? 0;
  }

  /** Intersections the frame holds; grown when a step comes within 15% of it. */
  private isectCapacity = 0;
  private growIsect = 0;

  /** Steps whose view had more visible splats than the frame's ranked arrays held (rendered without the rest). */
  get visibleOverflows(): number {
    return this.visible.overflows;
  }

  /** The largest view's width and height: what every per-image buffer is sized for. */
  private frameSize(): [number, number] {
    return frameSizeOf(this.data);
  }

  private async buildFrames(isectCapacity = Math.min(Math.max(this.isectCapacity, 1 << 16, this.capacity * 4), intersectionBindingLimit(this.ctx.device.limits.maxStorageBufferBindingSize)), visibleCapacity = this.frame?.visibleCapacity ?? this.capacity) {
    const [width, height] = this.frameSize();
    this.frame?.destroy();
    this.lossFrame?.destroy();
    this.geometry?.destroy();
    this.isectCapacity = isectCapacity;
    this.frame = await this.rasterizer.createFrame(this.model.splats, width, height, isectCapacity, visibleCapacity);
    // the loss (or, with appearance compensation, the colour model's backward) and the geometry
    // loss write the backward's inputs, the frame's pixelGrads
    this.lossFrame = this.loss.createFrame(width, height, this.appearance ? undefined : this.frame.pixelGrads!.image);
    this.geometry = this.config.geometry ? await GeometryLoss.create(this.ctx, this.frame) : undefined;
    if (this.mean2dDropped) this.model.grads.releaseMean2d(this.ctx.device); // a resized model's
    this.rasterizer.bindBackward(this.frame, this.model.grads);
    this.shAdamBinding = this.shAdam.bind(this.frame, this.model.groups.sh, this.model.splats, this.adam);
    this.cameraSum?.destroy();
    this.cameraSum = this.cameraRefiner ? await CameraGradSum.create(this.ctx, this.frame) : undefined;
    // Every frame build starts the densifier over (its bind groups hold the frame's buffers); the
    // callers that must keep its statistics hold them across (resize, growIntersections).
    await this.densify.rebuild(this.capacity);
  }

  /**
   * Counts the intersections and visible splats of the first 64 training views (the forward up to
   * the count, no sort or raster; built at the full visible capacity, so the counts are whole) and
   * sizes the buffers to 1.5x the largest: the count a full render gives.
   */
  private async sizeIntersections() {
    const counts = await countViews(this.ctx, this.rasterizer, this.frame, this.trainViews.slice(0, 64).map((view) => this.data.views[view].camera), this.settings(0));
    const most = Math.max(0, ...counts.map((c) => c[COUNT.intersections]));
    const mostVisible = Math.max(0, ...counts.map((c) => c[COUNT.visibleNeeded]));
    const wanted = Math.ceil(most * 1.5) + 1024;
    const visible = Math.min(this.capacity, Math.max(MIN_VISIBLE_CAPACITY, Math.ceil(mostVisible * VISIBLE_HEADROOM)));
    if (wanted > this.isectCapacity || visible !== this.frame.visibleCapacity) await this.buildFrames(Math.max(wanted, this.isectCapacity), visible);
    this.ctx.assertNoErrors('the training set-up');
  }

  private nextView(): number {
    if (this.orderPosition >= this.order.length) {
      this.order = drawEpoch(this.random, this.trainViews);
      this.orderPosition = 0;
    }
    return this.order[this.orderPosition++];
  }

  private settings(step: number) {
    return renderSettings(this.data, this.config, step);
  }

  /** Records and submits one training step (train-step.ts). Never waits for the GPU. */
  async trainStep(): Promise<void> {
    const t = this.step;
    await this.densify.retire?.(t);
    if (!this.mean2dDropped && this.densify.readsMean2dFrom?.(t) === false) await this.dropMean2d();
    await this.ensureCapacity(t);
    if (t % INTERSECTION_CHECK_EVERY === 0) await this.growIntersections();
    if (t % INTERSECTION_CHECK_EVERY === 0 || this.refinedLastStep) await this.growVisible();
    const view = this.nextView();
    await this.targets.whenReady(view);
    await this.cameraRefiner?.before(t);
    if (this.cameraRefiner?.solvesAt(t)) await this.cameraRefiner.solve(t, this.trainViews, (v, camera) => this.cameraGradient(v, camera));
    const coarse = this.coarse?.at(t, this.cameraOf(view));
    const plan = { step: t, view, camera: coarse?.camera ?? this.cameraOf(view), appearanceSlot: this.trainViews.indexOf(view), splatCount: this.splatCount, resolutionFactor: coarse?.factor ?? 1 };
    ({ refined: this.refinedLastStep } = await recordTrainStep({ ...this.stepParts(), ...(coarse ? { targets: coarse.targets } : {}) }, plan, this.reports));
    this.step = t + 1;
  }

  /** The parts the next step records with, as they are now. */
  private stepParts(): StepParts {
    return {
      ctx: this.ctx, data: this.data, config: this.config, rasterizer: this.rasterizer, loss: this.loss, adam: this.adam, shAdam: { kernel: this.shAdam, binding: this.shAdamBinding }, densify: this.densify,
      targets: this.targets, readbacks: this.readbacks, model: this.model, frame: this.frame, lossFrame: this.lossFrame, isectCapacity: this.isectCapacity, splatCap: this.splatCap,
      geometry: this.geometry, appearance: this.appearance, cameraRefiner: this.cameraRefiner, cameraSum: this.cameraSum,
    };
  }

  /** What a step's readbacks do to the run's state when they land. */
  private readonly reports: StepReports = {
    loss: (entry) => this.losses.push(entry),
    adamFlags: (flags, step) => {
      if (flags[0] > this.nonFiniteSkipped) {
        const groups = this.model.nonFiniteSince(flags, this.nonFiniteByGroup);
        this.onWarning?.(`step ${step}: non-finite gradients skipped (never applied): ${groups.join(', ')}`);
      }
      this.nonFiniteSkipped = flags[0];
    },
    splatCount: (count) => (this.splatCount = count),
    intersections: (needed, capacity) => {
      // grow ahead of need (the next frame build sees it)
      if (needed > 0.85 * capacity) this.growIsect = Math.max(this.growIsect, Math.ceil(needed * 1.5));
      if (needed > capacity) this.isectOverflows += 1;
    },
    visible: (needed, capacity) => this.visible.report(needed, capacity),
  };

  /** Waits for every asynchronous readback (losses, counts). */
  async settle(): Promise<void> {
    await this.readbacks.drain(0);
  }

  /**
   * At a fixed step: every readback recorded so far is waited for, and the intersection buffers
   * grow if the counts that landed ask for it, keeping the densifier's statistics. Growing where a
   * readback happened to land (as before) made training depend on timing: the statue's 7k runs on
   * the H200 differed by 0.6 dB and 5% of their splats, each growth also restarting the statistics.
   */
  private async growIntersections() {
    await this.readbacks.drain(0);
    if (this.growIsect <= this.isectCapacity) return;
    const isect = this.isectCapacity;
    const fitting = fittingIntersections(this.frame.bytes.perIntersection, this.ctx.memory, isect, Math.min(this.growIsect, intersectionBindingLimit(this.ctx.device.limits.maxStorageBufferBindingSize)));
    if (fitting < this.growIsect) this.warnIntersectionsCapped(fitting);
    this.growIsect = fitting;
    if (fitting <= isect) return;
    await this.rebuildFramesKeepingStatistics(`growing the intersection buffers to ${fitting}`, fitting, this.frame.visibleCapacity, async () => {
      this.warnIntersectionsCapped(isect);
      this.growIsect = isect;
      await this.buildFrames(isect); // the densifier's statistics start over
    });
  }

  /**
   * Rebuilds the frames at `isect` intersections and `visible` ranked splats with the densifier's
   * statistics held across; where GPU memory refuses, `onRefused` decides what is built instead.
   */
  private async rebuildFramesKeepingStatistics(what: string, isect: number, visible: number, onRefused: () => Promise<void>) {
    try {
      await this.ctx.memory.guard(this.ctx.device, what, async () => {
        const commands = this.ctx.commands('frames.grow');
        const restoreStatistics = this.densify.holdStatistics(commands);
        await commands.submit();
        await this.buildFrames(isect, visible);
        await restoreStatistics?.();
      });
    } catch (error) {
      if (!isGpuOutOfMemory(error)) throw error;
      await onRefused();
    }
  }

  /**
   * Once the densifier reads the screen-space mean gradient no more (ADC: from its refine stop),
   * project_backward stops storing it and its buffer (16 B a splat of capacity) is freed. Nothing
   * read it, so training is unchanged.
   */
  private async dropMean2d() {
    await this.rasterizer.dropMean2dGrads();
    this.mean2dDropped = true;
    this.model.grads.releaseMean2d(this.ctx.device);
    this.rasterizer.bindBackward(this.frame, this.model.grads);
  }

  /**
   * At a fixed step (with the intersection check, and on the step after a refine): every readback
   * waited for, the frame's visible capacity grows if the views' counts and the splats the refines
   * added ask for it (visible-capacity.ts), keeping the densifier's statistics.
   */
  private async growVisible() {
    await this.readbacks.drain(0); // nothing is pending when growIntersections drained this step
    await this.rebuildForVisible(this.visible.check(this.frame.visibleCapacity, this.capacity, this.splatCount));
  }

  /**
   * Before rendering views outside the steps (evaluation, pose alignment): their visible counts
   * (the forward up to the count), and the frame grown when one would overflow it.
   */
  private async fitVisible(cameras: readonly PinholeCamera[]) {
    if (this.frame.visibleCapacity >= this.capacity) return;
    const counts = await countViews(this.ctx, this.rasterizer, this.frame, cameras, this.settings(0));
    const most = Math.max(0, ...counts.map((c) => c[COUNT.visibleNeeded]));
    if (most > this.frame.visibleCapacity) await this.rebuildForVisible(visibleCapacityFor(most, this.frame.visibleCapacity, this.capacity));
  }

  /** Rebuilds the frames with `visible` ranked splats (when that is more), the densifier's statistics kept. */
  private async rebuildForVisible(visible: number) {
    const held = this.frame.visibleCapacity;
    if (visible <= held) return;
    await this.rebuildFramesKeepingStatistics(`growing the frame's visible capacity to ${visible}`, this.isectCapacity, visible, async () => {
      this.onWarning?.(`GPU memory: the frame's visible capacity held at ${held.toLocaleString('en-US')} (wanted ${visible.toLocaleString('en-US')}); views with more visible splats render without the rest`);
      await this.buildFrames(this.isectCapacity, held); // the densifier's statistics start over
    });
  }

  private warnIntersectionsCapped(held: number) {
    if (this.isectCapped) return;
    this.isectCapped = true;
    const limits = `the GPU memory budget of ${formatBytes(this.ctx.memory.budget.totalBytes)} and the ${formatBytes(this.ctx.device.limits.maxStorageBufferBindingSize)} binding limit`;
    this.onWarning?.(`GPU memory: intersection buffers capped at ${held.toLocaleString('en-US')} (wanted ${this.growIsect.toLocaleString('en-US')}) within ${limits}; steps needing more miss some gradients (intersection_overflows counts them)`);
  }

  /** Before a step whose refine may outgrow the capacity: room for it, the count known exactly by then. */
  private async ensureCapacity(t: number) {
    if (!this.densify.checksCapacityAt(t)) return;
    await this.readbacks.drain(0); // the last refine's count (100 steps ago) has long arrived
    if (this.densify.hasRoom(this.splatCount, this.capacity)) return;
    if (this.memoryCap && this.splatCount >= this.splatCap) return; // capped: refines prune, never grow
    await this.growWithinMemory(t, this.densify.capacityFor(this.splatCount, Math.max(this.config.maxSplats, this.splatCount)));
  }

  /**
   * Grows the capacity to `wanted`, or as far as GPU memory allows (memory-growth.ts); short of
   * `wanted`, growth stops there: the splat cap drops to what the capacity holds with room for a
   * refine's growth, said once (onMemoryCap). A refusal during the resize (the budget's or the
   * driver's) puts the old capacity back.
   */
  private async growWithinMemory(step: number, wanted: number, refusedBy: GrowthLimit = 'budget') {
    const memory = this.ctx.memory;
    const isectFor = (next: number) => Math.max(this.growIsect, next * 4);
    const reachable = Math.min(wanted, capacityBindingLimit(this.ctx.device.limits.maxStorageBufferBindingSize, this.config.shDegree));
    let capacity = fittingCapacity(this.footprint, memory, this.capacity, reachable, this.isectCapacity, isectFor);
    if (capacity > this.capacity) {
      try {
        await this.resize(capacity);
      } catch (error) {
        if (!isGpuOutOfMemory(error)) throw error;
        refusedBy = error.refusal.refusedBy;
        capacity = this.capacity;
      }
    }
    if (capacity >= wanted) return;
    if (capacity >= reachable && refusedBy === 'budget') refusedBy = 'binding';
    // the densifier grows only below the count a refine's growth has room from (ADC: half the
    // capacity, a refine may double them); the count itself stays within the capacity
    this.splatCap = Math.min(this.splatCap, splatsWithRoom(this.capacity, (n, c) => this.densify.hasRoom(n, c)));
    if (this.memoryCap) return;
    const budget = memory.budget.totalBytes;
    const cap = { step, splats: Math.min(this.config.maxSplats, this.capacity), wantedCapacity: wanted, capacity: this.capacity, neededBytes: Math.ceil(resizePeakBytes(this.footprint, memory.live, this.capacity, wanted, this.isectCapacity, isectFor(wanted))), ...(Number.isFinite(budget) ? { budgetBytes: budget } : {}) };
    this.memoryCap = { ...cap, message: describeCap(cap, refusedBy) };
    this.onMemoryCap?.(this.memoryCap);
  }

  /** Moves the model into buffers of a new capacity (parameters, Adam moments and the densifier's statistics). */
  private async resize(capacity: number) {
    const old = this.model;
    const [isect, growIsect] = [this.isectCapacity, this.growIsect];
    try {
      await this.ctx.memory.guard(this.ctx.device, `growing to ${capacity} splats of capacity`, async () => {
        this.growIsect = Math.max(this.growIsect, this.isectCapacity, capacity * 4);
        const commands = this.ctx.commands('resize');
        const next = old.resized(commands, this.ctx, this.adam, capacity, this.splatCount);
        const restoreStatistics = this.densify.holdStatistics(commands);
        await commands.submit();
        this.model = next;
        await this.buildFrames(); // frames and the densifier are capacity-sized
        await restoreStatistics?.();
      });
    } catch (error) {
      if (!isGpuOutOfMemory(error)) throw error;
      // the guard destroyed what the resize made: back to the old model and frames of its size
      this.model = old;
      this.growIsect = growIsect;
      await this.buildFrames(isect); // the densifier's statistics start over
      throw error;
    }
    old.destroy();
  }

  /** PSNR and SSIM of the clamped renders on the given views (default: the test views). */
  async evaluate(views: readonly number[] = this.evaluationViews, cameras?: ReadonlyMap<number, PinholeCamera>): Promise<Evaluation> {
    await this.settle();
    await this.targets.allReady();
    await this.fitVisible(views.map((view) => cameras?.get(view) ?? this.cameraOf(view)));
    const evaluation = await evaluateViews(
      { ctx: this.ctx, data: this.data, config: this.config, rasterizer: this.rasterizer, loss: this.loss, lossFrame: this.lossFrame, frame: this.frame, targets: this.targets, appearance: this.appearance, trainViews: this.trainViews, step: this.step, cameraOf: (view) => this.cameraOf(view) },
      views,
      cameras,
    );
    if (!cameras) this.evaluations.push(evaluation); // an evaluation from other cameras (pose alignment) is reported beside it
    return evaluation;
  }

  /** Everything exact resume needs, read back from the GPU (a sync point: between steps only). */
  async checkpointState(): Promise<{ header: Omit<CheckpointHeader, 'blobs' | 'format' | 'version' | 'savedAt'>; blobs: { name: string; data: Uint8Array }[] }> {
    await this.settle();
    await this.cameraRefiner?.settle();
    const { device } = this.ctx;
    const count = new Uint32Array(await readBuffer(device, this.model.splats.countBuffer, 4))[0];
    this.splatCount = count;
    const blobs = [...(await this.model.checkpointBlobs(device, count)), ...(await this.densify.checkpointBlobs(count)), ...((await this.appearance?.checkpointBlobs()) ?? [])];
    return {
      header: {
        step: this.step,
        splatCount: count,
        shDegree: this.model.splats.shDegree,
        random: this.random.state,
        order: this.order,
        orderPosition: this.orderPosition,
        nonFiniteSkipped: this.nonFiniteSkipped,
        ...(this.cameraRefiner ? { cameraRefine: this.cameraRefiner.state() } : {}),
        ...(this.memoryCap ? { memoryCap: this.memoryCap } : {}),
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
    const blob = checkpointFloats(checkpoint, file);
    const n = h.splatCount;
    // a run GPU memory capped resumes at the capacity it stopped at, capped the same: exact resume
    const memoryCap = h.memoryCap as MemoryCap | undefined;
    const trainer = await Trainer.create(ctx, data, config, { initial: checkpointSplats(checkpoint, file), loadFirst: h.order.slice(h.orderPosition), ...(memoryCap ? { memoryCap } : {}) });
    const q = ctx.device.queue;
    trainer.model.restoreMoments(q, n, blob);
    trainer.densify.restore(checkpoint.blobs, n, blob);
    trainer.appearance?.restore(blob);
    trainer.step = h.step;
    trainer.random.state = h.random >>> 0;
    trainer.order = [...h.order];
    trainer.orderPosition = h.orderPosition;
    trainer.nonFiniteSkipped = h.nonFiniteSkipped;
    if (trainer.cameraRefiner) {
      if (!h.cameraRefine) throw badInput(file, 'the checkpoint has no camera refinement state, the run refines cameras');
      trainer.cameraRefiner.restore(h.cameraRefine as CameraRefineState, (message) => badInput(file, message));
    }
    await q.onSubmittedWorkDone();
    return trainer;
  }

  /** The held-out views (or the training views when there are none): what `evaluate` scores. */
  get evaluationViews(): readonly number[] {
    return this.testViews.length ? this.testViews : this.trainViews;
  }

  /**
   * dL/d(camera) of view `view` rendered from `camera` with the splats as they are (test-time pose
   * alignment, pose-alignment.ts); nothing is updated. Needs camera refinement on (its pipelines).
   */
  async cameraGradient(view: number, camera: PinholeCamera): Promise<CameraGradient> {
    if (!this.cameraSum) throw new Error('cameraGradient: this trainer refines no cameras (no camera-gradient pipelines)');
    await this.settle();
    await this.targets.whenReady(view);
    await this.fitVisible([camera]);
    await recordCameraGradient(this.stepParts(), view, camera, activeShDegree(Math.max(0, this.step - 1), this.config.shDegree, this.config.shDegreeEvery));
    return this.cameraSum.read();
  }

  /** View `view`'s camera as training renders it: refined when camera refinement is on. */
  cameraOf(view: number): PinholeCamera {
    return this.cameraRefiner ? this.cameraRefiner.camera(view) : this.data.views[view].camera;
  }

  /** Every view's refined camera (undefined without camera refinement). */
  refinedCameras(): PinholeCamera[] | undefined {
    return this.cameraRefiner?.refinedCameras();
  }

  /** Every view's camera corrections by name (undefined without camera refinement): what the project saves. */
  cameraCorrections(): ViewCorrection[] | undefined {
    return this.cameraRefiner?.corrections().map((c, i) => ({ name: this.data.views[i].name, ...c }));
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
    this.appearance?.destroy();
    this.cameraSum?.destroy();
    this.densify.destroy();
    this.model.destroy();
    this.adam.destroy();
    this.targets.destroy();
    this.coarse?.destroy();
    this.readbacks.destroy();
  }
}

/** The training views' indices in data order. */
function trainViewsOf(data: TrainingData): number[] {
  return data.views.flatMap((v, i) => (v.split === 'train' ? [i] : []));
}

/** One epoch's order of the training views: a permutation drawn from the run's generator. */
function drawEpoch(random: Random, trainViews: readonly number[]): number[] {
  return random.permutation(trainViews.length).map((i) => trainViews[i]);
}

/** The largest view's width and height. */
function frameSizeOf(data: TrainingData): [number, number] {
  return [Math.max(...data.views.map((v) => v.camera.width)), Math.max(...data.views.map((v) => v.camera.height))];
}
