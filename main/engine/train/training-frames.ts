/**
 * The frame-sized parts a training step records with: the rasterizer frame (its intersection and
 * visible capacities), the loss frame, the geometry loss, the fused SH Adam's bind group and the
 * camera-gradient sum. Built for the model the trainer has (passed in: a resize builds them for
 * the model that replaces it, capacity-growth.ts), sized at the set-up from counted views and
 * grown at the trainer's fixed checks, every readback drained first, so that their size never
 * depends on when a readback landed. Every build starts the densifier over (its bind groups hold
 * the frame's buffers); the growths here hold its statistics across. Where GPU memory refuses a
 * growth, the buffers stay as they were and the trainer's warning says so once.
 */
import type { GpuContext } from '../gpu/context.js';
import { formatBytes, isGpuOutOfMemory } from '../gpu/memory.js';
import { CameraGradSum } from '../render/camera-grads.js';
import type { RenderSettings } from '../render/camera-uniform.js';
import { COUNT, type RasterFrame, type Rasterizer } from '../render/rasterizer.js';
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import type { Adam } from './adam.js';
import type { Appearance } from './appearance.js';
import type { CameraRefiner } from './camera-refine.js';
import type { DensifyStrategy } from './densify-strategy.js';
import { GeometryLoss } from './geometry.js';
import type { LossFrame, TrainingLoss } from './loss.js';
import { fittingIntersections, intersectionBindingLimit } from './memory-growth.js';
import type { Model } from './model.js';
import type { ShAdam } from './sh-adam.js';
import type { TrainerConfig } from './trainer-config.js';
import { countViews } from './view-counts.js';
import { VISIBLE_HEADROOM, VisibleCapacity, visibleCapacityFor } from './visible-capacity.js';

/** The least visible capacity a frame is built with (small scenes: the capacity itself). */
const MIN_VISIBLE_CAPACITY = 1024;

/** What the frames are built from: the trainer's kernels and the run's fixed parts. */
export interface FrameParts {
  ctx: GpuContext;
  config: TrainerConfig;
  rasterizer: Rasterizer;
  loss: TrainingLoss;
  adam: Adam;
  shAdam: ShAdam;
  densify: DensifyStrategy;
  /** The per-image colour models (their backward writes the frame's pixel gradients instead of the loss). */
  appearance: Appearance | undefined;
  /** Camera refinement: a camera-gradient sum of the frame when it is on. */
  cameraRefiner: CameraRefiner | undefined;
  /** The largest view's width and height: what every per-image buffer is sized for. */
  frameSize: [number, number];
  /** Says what GPU memory held back (the trainer's onWarning). */
  warn: (message: string) => void;
}

export class TrainingFrames {
  frame!: RasterFrame;
  lossFrame!: LossFrame;
  geometry: GeometryLoss | undefined;
  /** The fused SH Adam's bind group of the frame and model as they are (build). */
  shAdamBinding!: GPUBindGroup;
  cameraSum: CameraGradSum | undefined;
  /** Intersections the frame holds; grown when a step comes within 15% of it. */
  isectCapacity = 0;
  /** Intersections the next growth asks for (the steps' readbacks raise it: reportIntersections). */
  growIsect = 0;
  /** The frame's visible capacity and the counts it is sized from (visible-capacity.ts). */
  readonly visible: VisibleCapacity;
  /** Whether the screen-space mean gradient is no longer stored (nothing reads it: dropMean2d). */
  mean2dDropped = false;
  private isectCapped = false;

  constructor(
    private readonly parts: FrameParts,
    splatCount: number,
  ) {
    this.visible = new VisibleCapacity(splatCount);
  }

  /**
   * Builds the frames for `model` at `isectCapacity` intersections and `visibleCapacity` ranked
   * splats (by default: what they hold now, at least 4 intersections a splat of capacity).
   */
  async build(model: Model, isectCapacity = Math.min(Math.max(this.isectCapacity, 1 << 16, model.splats.capacity * 4), intersectionBindingLimit(this.parts.ctx.device.limits.maxStorageBufferBindingSize)), visibleCapacity = this.frame?.visibleCapacity ?? model.splats.capacity) {
    const { ctx, config, rasterizer, loss, shAdam, adam, cameraRefiner } = this.parts;
    const [width, height] = this.parts.frameSize;
    this.frame?.destroy();
    this.lossFrame?.destroy();
    this.geometry?.destroy();
    this.isectCapacity = isectCapacity;
    this.frame = await rasterizer.createFrame(model.splats, width, height, isectCapacity, visibleCapacity);
    // the loss (or, with appearance compensation, the colour model's backward) and the geometry
    // loss write the backward's inputs, the frame's pixelGrads
    this.lossFrame = loss.createFrame(width, height, this.parts.appearance ? undefined : this.frame.pixelGrads!.image);
    this.geometry = config.geometry ? await GeometryLoss.create(ctx, this.frame) : undefined;
    if (this.mean2dDropped) model.grads.releaseMean2d(ctx.device); // a resized model's
    rasterizer.bindBackward(this.frame, model.grads);
    this.shAdamBinding = shAdam.bind(this.frame, model.groups.sh, model.splats, adam);
    this.cameraSum?.destroy();
    this.cameraSum = cameraRefiner ? await CameraGradSum.create(ctx, this.frame) : undefined;
    // Every frame build starts the densifier over (its bind groups hold the frame's buffers); the
    // callers that must keep its statistics hold them across (resize, growIntersections).
    await this.parts.densify.rebuild(model.splats.capacity);
  }

  /**
   * Counts the intersections and visible splats of `cameras` (the set-up's first 64 training
   * views; the forward up to the count, no sort or raster; built at the full visible capacity, so
   * the counts are whole) and sizes the buffers to 1.5x the largest: the count a full render gives.
   */
  async size(model: Model, cameras: readonly PinholeCamera[], settings: RenderSettings) {
    const counts = await countViews(this.parts.ctx, this.parts.rasterizer, this.frame, cameras, settings);
    const most = Math.max(0, ...counts.map((c) => c[COUNT.intersections]));
    const mostVisible = Math.max(0, ...counts.map((c) => c[COUNT.visibleNeeded]));
    const wanted = Math.ceil(most * 1.5) + 1024;
    const visible = Math.min(model.splats.capacity, Math.max(MIN_VISIBLE_CAPACITY, Math.ceil(mostVisible * VISIBLE_HEADROOM)));
    if (wanted > this.isectCapacity || visible !== this.frame.visibleCapacity) await this.build(model, Math.max(wanted, this.isectCapacity), visible);
    this.parts.ctx.assertNoErrors('the training set-up');
  }

  /** A step's intersection count as read back: the buffers grow ahead of need (the next check sees it). */
  reportIntersections(needed: number, capacity: number) {
    if (needed > 0.85 * capacity) this.growIsect = Math.max(this.growIsect, Math.ceil(needed * 1.5));
  }

  /**
   * At a fixed step, every readback recorded so far waited for (the trainer drains them first):
   * the intersection buffers grow if the counts that landed ask for it, keeping the densifier's
   * statistics. Growing where a readback happened to land (as before) made training depend on
   * timing: the statue's 7k runs on the H200 differed by 0.6 dB and 5% of their splats, each
   * growth also restarting the statistics.
   */
  async growIntersections(model: Model) {
    if (this.growIsect <= this.isectCapacity) return;
    const { ctx } = this.parts;
    const isect = this.isectCapacity;
    const fitting = fittingIntersections(this.frame.bytes.perIntersection, ctx.memory, isect, Math.min(this.growIsect, intersectionBindingLimit(ctx.device.limits.maxStorageBufferBindingSize)));
    if (fitting < this.growIsect) this.warnIntersectionsCapped(fitting);
    this.growIsect = fitting;
    if (fitting <= isect) return;
    await this.rebuildKeepingStatistics(model, `growing the intersection buffers to ${fitting}`, fitting, this.frame.visibleCapacity, async () => {
      this.warnIntersectionsCapped(isect);
      this.growIsect = isect;
      await this.build(model, isect); // the densifier's statistics start over
    });
  }

  /**
   * At the intersection check and on the step after a refine, every readback waited for (the
   * trainer drains them first): the frame's visible capacity grows if the views' counts and the
   * splats the refines added ask for it (visible-capacity.ts), keeping the densifier's statistics.
   */
  async growVisible(model: Model, splatCount: number) {
    await this.rebuildForVisible(model, this.visible.check(this.frame.visibleCapacity, model.splats.capacity, splatCount));
  }

  /**
   * Before rendering views outside the steps (evaluation, pose alignment): their visible counts
   * (the forward up to the count), and the frame grown when one would overflow it.
   */
  async fitVisible(model: Model, cameras: readonly PinholeCamera[], settings: RenderSettings) {
    const capacity = model.splats.capacity;
    if (this.frame.visibleCapacity >= capacity) return;
    const counts = await countViews(this.parts.ctx, this.parts.rasterizer, this.frame, cameras, settings);
    const most = Math.max(0, ...counts.map((c) => c[COUNT.visibleNeeded]));
    if (most > this.frame.visibleCapacity) await this.rebuildForVisible(model, visibleCapacityFor(most, this.frame.visibleCapacity, capacity));
  }

  /**
   * Once the densifier reads the screen-space mean gradient no more (ADC: from its refine stop),
   * project_backward stops storing it and its buffer (16 B a splat of capacity) is freed. Nothing
   * read it, so training is unchanged.
   */
  async dropMean2d(model: Model) {
    await this.parts.rasterizer.dropMean2dGrads();
    this.mean2dDropped = true;
    model.grads.releaseMean2d(this.parts.ctx.device);
    this.parts.rasterizer.bindBackward(this.frame, model.grads);
  }

  destroy(): void {
    this.frame?.destroy();
    this.lossFrame?.destroy();
    this.geometry?.destroy();
    this.cameraSum?.destroy();
  }

  /** Rebuilds the frames with `visible` ranked splats (when that is more), the densifier's statistics kept. */
  private async rebuildForVisible(model: Model, visible: number) {
    const held = this.frame.visibleCapacity;
    if (visible <= held) return;
    await this.rebuildKeepingStatistics(model, `growing the frame's visible capacity to ${visible}`, this.isectCapacity, visible, async () => {
      this.parts.warn(`GPU memory: the frame's visible capacity held at ${held.toLocaleString('en-US')} (wanted ${visible.toLocaleString('en-US')}); views with more visible splats render without the rest`);
      await this.build(model, this.isectCapacity, held); // the densifier's statistics start over
    });
  }

  /**
   * Rebuilds the frames at `isect` intersections and `visible` ranked splats with the densifier's
   * statistics held across; where GPU memory refuses, `onRefused` decides what is built instead.
   */
  private async rebuildKeepingStatistics(model: Model, what: string, isect: number, visible: number, onRefused: () => Promise<void>) {
    const { ctx } = this.parts;
    try {
      await ctx.memory.guard(ctx.device, what, async () => {
        const commands = ctx.commands('frames.grow');
        const restoreStatistics = this.parts.densify.holdStatistics(commands);
        await commands.submit();
        await this.build(model, isect, visible);
        await restoreStatistics?.();
      });
    } catch (error) {
      if (!isGpuOutOfMemory(error)) throw error;
      await onRefused();
    }
  }

  private warnIntersectionsCapped(held: number) {
    if (this.isectCapped) return;
    this.isectCapped = true;
    const { ctx } = this.parts;
    const limits = `the GPU memory budget of ${formatBytes(ctx.memory.budget.totalBytes)} and the ${formatBytes(ctx.device.limits.maxStorageBufferBindingSize)} binding limit`;
    this.parts.warn(`GPU memory: intersection buffers capped at ${held.toLocaleString('en-US')} (wanted ${this.growIsect.toLocaleString('en-US')}) within ${limits}; steps needing more miss some gradients (intersection_overflows counts them)`);
  }
}
