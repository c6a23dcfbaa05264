/**
 * The training loop. One step = forward, loss, backward, Adam, densification (the strategy's
 * hooks: statistics, and at refine steps the refine itself), recorded into one submit: nothing is
 * read back inside a step (train-step.ts records it). Losses, splat counts and guard flags are
 * read back asynchronously a few steps late (readbacks.ts); the trainer keeps them. The trainer
 * owns the run's state and decides when its parts are built and grown; each concern is its own
 * module: the set-up within the GPU memory budget (trainer-setup.ts), the frame-sized parts a step
 * records with and their growth (training-frames.ts), the capacity's growth within GPU memory
 * (capacity-growth.ts; the arithmetic in memory-growth.ts), what the state costs in bytes
 * (state-bytes.ts), checkpoints and exact resume (trainer-checkpoint.ts), evaluation
 * (evaluate-views.ts). The model's GPU state is model.ts; the configuration trainer-config.ts.
 */
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import type { ViewCorrection } from '../../../shared/scene/camera-correction.js';
import type { Random } from '../../../shared/random.js';
import type { SplatSet } from '../../../shared/scene/splats.js';
import { readBuffer } from '../gpu/buffers.js';
import type { GpuContext } from '../gpu/context.js';
import type { CameraGradient } from '../render/camera-grads.js';
import type { GpuSplats } from '../render/gpu-splats.js';
import type { Rasterizer } from '../render/rasterizer.js';
import type { Adam } from './adam.js';
import type { Appearance } from './appearance.js';
import { CameraRefiner, resolveRefineCameras } from './camera-refine.js';
import { growWithinMemory, type CapacityState, type GrowthParts } from './capacity-growth.js';
import type { Checkpoint } from './checkpoint.js';
import { CoarseToFine } from './coarse-to-fine.js';
import type { TrainingData } from './data.js';
import type { DensifyStrategy } from './densify-strategy.js';
import { evaluateViews, type Evaluation } from './evaluate-views.js';
import type { TrainingLoss } from './loss.js';
import { splatsWithRoom, type GrowthLimit, type MemoryCap } from './memory-growth.js';
import { Model } from './model.js';
import { StepReadbacks } from './readbacks.js';
import { activeShDegree } from './schedule.js';
import type { ShAdam } from './sh-adam.js';
import { stateBytesBreakdown, stateBytesTotal, type StateBytesBreakdown } from './state-bytes.js';
import type { GpuTargets } from './targets.js';
import { recordCameraGradient, recordTrainStep, renderSettings, type StepLoss, type StepParts, type StepReports } from './train-step.js';
import { checkpointOf, restoreCheckpoint, resumePlan, type CheckpointParts, type CheckpointState } from './trainer-checkpoint.js';
import type { TrainerConfig } from './trainer-config.js';
import { buildParts, buildWithinMemory, drawEpoch, frameSizeOf, trainViewsOf, type BuildAttempt, type TrainerCreateOptions, type TrainerParts } from './trainer-setup.js';
import { TrainingFrames } from './training-frames.js';

export { defaultTrainerConfig, type GeometryConfig, type TrainerConfig } from './trainer-config.js';
export type { Evaluation } from './evaluate-views.js';
export type { StepLoss } from './train-step.js';
export type { StateBytesBreakdown } from './state-bytes.js';
export type { TrainerCreateOptions } from './trainer-setup.js';

/**
 * The backward configuration training uses, measured on training runs rather than on the fixed
 * raster load whose sweep fills the tuning cache: training frames carry far fewer intersections
 * per tile (the fixed load: ~1,500), where one pixel per thread in batches of 16 is faster. H200,
 * mic 30k steps: 102.0 s with it, 115.0 s with the fixed load's choice (2 pixels per thread,
 * batches of 24), which is 4% faster on the fixed load itself (backward 2.94 vs 3.06 ms).
 */
export const TRAINING_BACKWARD = { backwardReduce: 'partials', backwardPixels: 1 } as const;

/**
 * Steps between the intersection-buffer checks (growIntersections) and the visible-capacity
 * checks (growVisible), which also run on the step after every refine (the count may have grown).
 */
const INTERSECTION_CHECK_EVERY = 100;

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
  /** Whether the last step recorded a refine (the next checks the visible capacity first: the count may have grown). */
  private refinedLastStep = false;
  /** The splat count training may grow to: --max-splats, or less once GPU memory capped it. */
  splatCap: number;
  /** Why growth was capped by GPU memory (set once; memory-growth.ts), and who hears of it. */
  memoryCap: MemoryCap | undefined;
  onMemoryCap?: (cap: MemoryCap) => void;
  private model: Model;
  /** The frame-sized parts a step records with, built for the model (training-frames.ts). */
  private frames!: TrainingFrames;
  /** The per-image colour models between the render and the loss (--appearance), if any. */
  private appearance: Appearance | undefined;
  private order: number[] = [];
  private orderPosition = 0;
  private readonly readbacks: StepReadbacks;
  private readonly trainViews: number[];
  private readonly testViews: number[];
  /** Camera refinement (undefined when off). */
  private readonly cameraRefiner: CameraRefiner | undefined;
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
    this.splatCap = config.maxSplats;
    this.trainViews = trainViewsOf(data);
    this.testViews = data.views.flatMap((v, i) => (v.split === 'test' ? [i] : []));
    if (!this.trainViews.length) throw new Error(`${data.name}: no training views`);
    const refine = resolveRefineCameras(config.cameraRefine.mode, data.posesEstimated);
    this.cameraRefiner = refine === 'off' ? undefined : new CameraRefiner({ ...config.cameraRefine, mode: refine }, data.views.map((v) => v.camera), data.sceneScale, config.iterations);
  }

  /**
   * Builds everything, overlapped, within the GPU memory budget (trainer-setup.ts). `loadFirst`:
   * the views to load first instead of the first epoch's (a resumed run's remaining order).
   */
  static async create(ctx: GpuContext, data: TrainingData, config: TrainerConfig, options: TrainerCreateOptions & { memoryCap?: MemoryCap } = {}): Promise<Trainer> {
    const build = (attempt: BuildAttempt) => buildParts(ctx, data, config, options, attempt, TRAINING_BACKWARD, (parts) => Trainer.build(ctx, data, config, options, parts));
    return buildWithinMemory(ctx, data.name, options.memoryCap, build, (trainer, refusedBy) => trainer.growAtStart(options.memoryCap, refusedBy));
  }

  private static async build(ctx: GpuContext, data: TrainingData, config: TrainerConfig, options: TrainerCreateOptions, p: TrainerParts): Promise<Trainer> {
    const trainer = new Trainer(ctx, data, config, p.rasterizer, p.loss, p.adam, p.shAdam, p.targets, p.splats, p.random, p.densify);
    trainer.coarse = await CoarseToFine.create(ctx, data, trainer.trainViews, config.coarseToFine, config.iterations);
    trainer.appearance = await p.appearing;
    await trainer.buildFrames();
    options.onStage?.('frames');
    await trainer.frames.size(trainer.model, trainer.trainViews.slice(0, 64).map((view) => data.views[view].camera), trainer.settings(0));
    options.onStage?.('intersections');
    return trainer;
  }

  /**
   * The set-up's growth to the capacity the configuration wants (held to the binding limit or GPU
   * memory: capped, said once); after a refusal (`refusedBy`), from the initial splats' own. A run
   * GPU memory capped resumes at the capacity it stopped at, capped the same.
   */
  private async growAtStart(resumedCap: MemoryCap | undefined, refusedBy?: GrowthLimit) {
    if (refusedBy !== undefined) return this.growWithinMemory(0, this.densify.capacityFor(this.splatCount, this.config.maxSplats), refusedBy);
    if (resumedCap) {
      this.memoryCap = resumedCap;
      this.splatCap = Math.min(this.config.maxSplats, splatsWithRoom(this.capacity, (n, c) => this.densify.hasRoom(n, c)));
      return;
    }
    const wanted = this.densify.capacityFor(this.splatCount, this.config.maxSplats);
    if (this.capacity < wanted) await this.growWithinMemory(0, wanted);
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
    return stateBytesTotal(this.stateBytesBreakdown);
  }

  /** stateBytesPerSplat by part (per splat of capacity, from the buffers' sizes): what `bench train` reports. */
  get stateBytesBreakdown(): StateBytesBreakdown {
    return stateBytesBreakdown(this.model, this.densify, this.frames.frame);
  }

  /** The same state per splat trained: the capacity's room for growth is paid by the splats there are. */
  get stateBytesPerLiveSplat(): number {
    return (this.stateBytesPerSplat * this.capacity) / Math.max(this.splatCount, 1);
  }

  get capacity(): number {
    return this.model.splats.capacity;
  }

  /** Splats a refine left ungrown because the capacity was short (0 with room to spare; a GPU sync point). */
  async clippedGrowth(): Promise<number> {
    return (await this.densify.clippedGrowth?.()) ?? 0;
  }

  /** Steps whose view had more visible splats than the frame's ranked arrays held (rendered without the rest). */
  get visibleOverflows(): number {
    return this.frames.visible.overflows;
  }

  /** The frames' first build (training-frames.ts), once the parts they bind exist. */
  private async buildFrames() {
    const { ctx, config, rasterizer, loss, adam, shAdam, densify, appearance, cameraRefiner } = this;
    this.frames = new TrainingFrames({ ctx, config, rasterizer, loss, adam, shAdam, densify, appearance, cameraRefiner, frameSize: frameSizeOf(this.data), warn: (message) => this.onWarning?.(message) }, this.model.splats.count);
    await this.frames.build(this.model);
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
    if (!this.frames.mean2dDropped && this.densify.readsMean2dFrom?.(t) === false) await this.frames.dropMean2d(this.model);
    await this.ensureCapacity(t);
    // every readback waited for first: what the checks see never depends on when one landed
    if (t % INTERSECTION_CHECK_EVERY === 0) {
      await this.readbacks.drain(0);
      await this.frames.growIntersections(this.model);
    }
    if (t % INTERSECTION_CHECK_EVERY === 0 || this.refinedLastStep) {
      await this.readbacks.drain(0); // nothing is pending when the intersection check drained this step
      await this.frames.growVisible(this.model, this.splatCount);
    }
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
    const { frame, lossFrame, isectCapacity, shAdamBinding, geometry, cameraSum } = this.frames;
    return {
      ctx: this.ctx, data: this.data, config: this.config, rasterizer: this.rasterizer, loss: this.loss, adam: this.adam, shAdam: { kernel: this.shAdam, binding: shAdamBinding }, densify: this.densify,
      targets: this.targets, readbacks: this.readbacks, model: this.model, frame, lossFrame, isectCapacity, splatCap: this.splatCap,
      geometry, appearance: this.appearance, cameraRefiner: this.cameraRefiner, cameraSum,
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
      this.frames.reportIntersections(needed, capacity);
      if (needed > capacity) this.isectOverflows += 1;
    },
    visible: (needed, capacity) => this.frames.visible.report(needed, capacity),
  };

  /** Waits for every asynchronous readback (losses, counts). */
  async settle(): Promise<void> {
    await this.readbacks.drain(0);
  }

  /** Before a step whose refine may outgrow the capacity: room for it, the count known exactly by then. */
  private async ensureCapacity(t: number) {
    if (!this.densify.checksCapacityAt(t)) return;
    await this.readbacks.drain(0); // the last refine's count (100 steps ago) has long arrived
    if (this.densify.hasRoom(this.splatCount, this.capacity)) return;
    if (this.memoryCap && this.splatCount >= this.splatCap) return; // capped: refines prune, never grow
    await this.growWithinMemory(t, this.densify.capacityFor(this.splatCount, Math.max(this.config.maxSplats, this.splatCount)));
  }

  /** Grows the capacity to `wanted`, or as far as GPU memory allows (capacity-growth.ts); a cap it set is said once. */
  private async growWithinMemory(step: number, wanted: number, refusedBy?: GrowthLimit) {
    const state: CapacityState = { model: this.model, splatCount: this.splatCount, splatCap: this.splatCap, memoryCap: this.memoryCap };
    const parts: GrowthParts = { ctx: this.ctx, config: this.config, adam: this.adam, densify: this.densify, frames: this.frames };
    let capped: MemoryCap | undefined;
    try {
      capped = await growWithinMemory(parts, state, step, wanted, refusedBy);
    } finally {
      ({ model: this.model, splatCap: this.splatCap, memoryCap: this.memoryCap } = state);
    }
    if (capped) this.onMemoryCap?.(capped);
  }

  /** PSNR and SSIM of the clamped renders on the given views (default: the test views). */
  async evaluate(views: readonly number[] = this.evaluationViews, cameras?: ReadonlyMap<number, PinholeCamera>): Promise<Evaluation> {
    await this.settle();
    await this.targets.allReady();
    await this.frames.fitVisible(this.model, views.map((view) => cameras?.get(view) ?? this.cameraOf(view)), this.settings(0));
    const evaluation = await evaluateViews(
      { ctx: this.ctx, data: this.data, config: this.config, rasterizer: this.rasterizer, loss: this.loss, lossFrame: this.frames.lossFrame, frame: this.frames.frame, targets: this.targets, appearance: this.appearance, trainViews: this.trainViews, step: this.step, cameraOf: (view) => this.cameraOf(view) },
      views,
      cameras,
    );
    if (!cameras) this.evaluations.push(evaluation); // an evaluation from other cameras (pose alignment) is reported beside it
    return evaluation;
  }

  /** Everything exact resume needs, read back from the GPU (a sync point: between steps only; trainer-checkpoint.ts). */
  async checkpointState(): Promise<CheckpointState> {
    await this.settle();
    const position = { step: this.step, random: this.random.state, order: this.order, orderPosition: this.orderPosition, nonFiniteSkipped: this.nonFiniteSkipped };
    const { count, state } = await checkpointOf(this.checkpointParts(), position, { data: this.data, config: this.config, trainViews: this.trainViews.length, memoryCap: this.memoryCap });
    this.splatCount = count;
    return state;
  }

  /** A trainer continuing exactly where a checkpoint left off (same data and configuration). */
  static async resume(ctx: GpuContext, data: TrainingData, config: TrainerConfig, checkpoint: Checkpoint, file: string): Promise<Trainer> {
    const { blob, options } = resumePlan(checkpoint, data, config, file);
    const trainer = await Trainer.create(ctx, data, config, options);
    const at = await restoreCheckpoint(trainer.checkpointParts(), checkpoint, blob, file);
    [trainer.step, trainer.random.state, trainer.order, trainer.orderPosition, trainer.nonFiniteSkipped] = [at.step, at.random, at.order, at.orderPosition, at.nonFiniteSkipped];
    return trainer;
  }

  /** The parts a checkpoint reads and a resume writes back. */
  private checkpointParts(): CheckpointParts {
    return { ctx: this.ctx, model: this.model, densify: this.densify, appearance: this.appearance, cameraRefiner: this.cameraRefiner };
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
    if (!this.frames.cameraSum) throw new Error('cameraGradient: this trainer refines no cameras (no camera-gradient pipelines)');
    await this.settle();
    await this.targets.whenReady(view);
    await this.frames.fitVisible(this.model, [camera], this.settings(0));
    await recordCameraGradient(this.stepParts(), view, camera, activeShDegree(Math.max(0, this.step - 1), this.config.shDegree, this.config.shDegreeEvery));
    return this.frames.cameraSum!.read(); // the frames' as built now: fitting the view may have rebuilt them
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
    this.frames?.destroy();
    this.appearance?.destroy();
    this.densify.destroy();
    this.model.destroy();
    this.adam.destroy();
    this.targets.destroy();
    this.coarse?.destroy();
    this.readbacks.destroy();
  }
}
