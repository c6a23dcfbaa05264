/**
 * One training step, recorded into one submit: the view's render, its colour model (with
 * appearance compensation), the loss, the geometry regularisers, the backward, the camera
 * gradient's sum (with camera refinement), the densifier's hooks around Adam on every parameter
 * group; then the step's readbacks, which land a few steps late (readbacks.ts). Nothing here waits
 * for the GPU. The trainer (trainer.ts) owns the parts, builds and rebuilds them (set-up, a
 * frame's growth, a resize), keeps the run's state and counters and decides what a readback means
 * for them; this module owns what a step records, and in which order.
 */
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import { rangeOf } from '../gpu/buffers.js';
import type { GpuContext } from '../gpu/context.js';
import { CAMERA_GRADIENT_BYTES, type CameraGradSum } from '../render/camera-grads.js';
import { COUNT, type RasterFrame, type Rasterizer } from '../render/rasterizer.js';
import type { Adam } from './adam.js';
import type { ShAdam } from './sh-adam.js';
import { appearanceLearningRate, type Appearance } from './appearance.js';
import type { CameraRefiner } from './camera-refine.js';
import type { TrainingData } from './data.js';
import type { DensifyStrategy } from './densify-strategy.js';
import { GeometryLoss } from './geometry.js';
import type { LossFrame, TrainingLoss } from './loss.js';
import type { Model } from './model.js';
import { randomBackgroundColour } from './random-background.js';
import type { StepReadbacks } from './readbacks.js';
import { activeShDegree, meansLearningRate } from './schedule.js';
import type { GpuTargets } from './targets.js';
import type { TrainerConfig } from './trainer-config.js';

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

/**
 * What a step records with: the trainer's parts as they are at this step (the frame-sized ones
 * are rebuilt when the intersection buffers grow, the model on a resize).
 */
export interface StepParts {
  ctx: GpuContext;
  data: TrainingData;
  config: TrainerConfig;
  rasterizer: Rasterizer;
  loss: TrainingLoss;
  adam: Adam;
  /** The SH group's fused step (sh-adam.ts) and its bind group of `frame` and `model`. */
  shAdam: { kernel: ShAdam; binding: GPUBindGroup };
  densify: DensifyStrategy;
  targets: GpuTargets;
  readbacks: StepReadbacks;
  model: Model;
  frame: RasterFrame;
  lossFrame: LossFrame;
  /** Intersections `frame` holds. */
  isectCapacity: number;
  /** The splat count the densifier may grow to: --max-splats, or less where GPU memory capped it. */
  splatCap: number;
  geometry: GeometryLoss | undefined;
  appearance: Appearance | undefined;
  cameraRefiner: CameraRefiner | undefined;
  cameraSum: CameraGradSum | undefined;
}

/** The step to record. */
export interface StepPlan {
  /** 0-based. */
  step: number;
  view: number;
  /** The view's camera as training renders it (refined, with camera refinement). */
  camera: PinholeCamera;
  /** The view's colour model: its index among the training views. */
  appearanceSlot: number;
  /** Splat count as last read back (exact between refines): what the densifier sizes by. */
  splatCount: number;
  /** Coarse-to-fine: how many times smaller per side than the view's full image `camera` is (1: full). */
  resolutionFactor?: number;
}

/** Where a step's readbacks go when they land (a few steps late, in the order they were recorded). */
export interface StepReports {
  /** The view's loss, on the steps that read it (`lossEvery`, and the last). */
  loss(entry: StepLoss): void;
  /** Adam's guard flags after the step (cumulative: [0] is every non-finite value skipped so far), on the same steps. */
  adamFlags(flags: Uint32Array, step: number): void;
  /** The splat count after a refine. */
  splatCount(count: number): void;
  /** Intersections the step needed, against the `capacity` its frame held. */
  intersections(needed: number, capacity: number): void;
  /** Visible splats the step's view had, against the `capacity` its frame's ranked arrays held. */
  visible(needed: number, capacity: number): void;
}

/** The render settings of a step: the data's background, the config's antialiasing, the SH degree active at `step`. */
export function renderSettings(data: TrainingData, config: TrainerConfig, step: number) {
  return { background: data.background, antialiased: config.antialiased, shDegree: activeShDegree(step, config.shDegree, config.shDegreeEvery) };
}

/** Records and submits step `plan.step`; returns once it is submitted (never waits for the GPU), saying whether a refine may have changed the count. */
export async function recordTrainStep(parts: StepParts, plan: StepPlan, reports: StepReports): Promise<{ refined: boolean }> {
  const { ctx, data, config: cfg, rasterizer, frame, lossFrame, appearance, geometry, adam, densify, readbacks, model } = parts;
  const { step: t, view, camera } = plan;
  const loc = parts.targets.location[view];
  const commands = ctx.commands(`step ${t}`);
  const background = cfg.randomBackground ? randomBackgroundColour(cfg.seed, t) : data.background;
  rasterizer.encodeForward(commands, frame, camera, { ...renderSettings(data, cfg, t), background });
  const counts = loc.masked?.[cfg.ssimPadding];
  // with appearance compensation the loss sees the render through the image's colour model, and
  // the model's backward writes dL/d render where the rasterizer's backward reads it
  const image = appearance?.encodeForward(commands, plan.appearanceSlot, frame.image, lossFrame.vImage, camera.width, camera.height, frame.pixelGrads!.image) ?? frame.image;
  parts.loss.encode(commands, lossFrame, image, parts.targets.buffer(view), loc.offset, camera.width, camera.height, counts, background);
  appearance?.encodeBackward(commands);
  const geo = cfg.geometry;
  if (geometry && geo) {
    // distortion (sum of w w |z - z|) is in depth units: its weight is per scene scale
    geometry.encode(commands, camera, { distortion: t >= geo.distortionStart ? geo.distortionWeight / data.sceneScale : 0, normal: t >= geo.normalStart ? geo.normalWeight : 0 });
  }
  rasterizer.encodeBackward(commands, frame);
  // the camera gradient is summed and read back only for steps whose gradient the refiner will
  // apply (none while its rate is 0: the first `start` steps), so the frozen steps wait on nothing
  const cameraSum = parts.cameraSum && parts.cameraRefiner!.rateFactor(t) > 0 ? parts.cameraSum : undefined;
  cameraSum?.encode(commands);
  const cameraStaging = cameraSum ? readbacks.copy(commands, cameraSum.result, CAMERA_GRADIENT_BYTES) : undefined;
  const g = model.groups;
  const r = cfg.rates;
  const n = model.splats.capacity;
  const k = t + 1;
  const meansLr = meansLearningRate(r, data.sceneScale, t, cfg.scheduleSteps) * (parts.cameraRefiner?.meansRateFactor(t) ?? 1);
  const densifyStep = {
    step: t, seed: cfg.seed, sceneScale: data.sceneScale, splatCount: plan.splatCount, maxSplats: parts.splatCap,
    countBuffer: model.splats.countBuffer, groups: g, visible: frame.internal.visible, mean2dGrad: model.grads.mean2d,
    width: camera.width, height: camera.height, meansLearningRate: meansLr, resolutionFactor: plan.resolutionFactor ?? 1,
  };
  densify.encodeBeforeAdam(commands, densifyStep);
  const sparse = cfg.sparseAdam ? { visible: frame.internal.visible } : {};
  // between the full steps of train.shRestEvery only the DC (the group's head lanes) is updated;
  // the SH step is fused with its backward (no SH gradient is stored; the separate one in tests),
  // first: the SH gradient's view direction is from the means before their step
  const shOptions = { ...sparse, lanes: t % cfg.shRestEvery === 0 ? undefined : g.sh.head };
  if (g.sh.fused) parts.shAdam.kernel.encode(commands, adam, g.sh, parts.shAdam.binding, k, r.shDc, r.shRest, shOptions);
  else adam.encode(commands, g.sh, n, k, r.shDc, r.shRest, 0, shOptions);
  adam.encode(commands, g.means, n, k, meansLr, meansLr, 0, sparse);
  adam.encode(commands, g.logScales, n, k, r.logScales, r.logScales, 0, sparse);
  adam.encode(commands, g.quats, n, k, r.quats, r.quats, 0, sparse);
  adam.encode(commands, g.opacityLogits, n, k, r.opacityLogits, r.opacityLogits, 0, sparse);
  appearance?.encodeAdam(commands, adam, k, appearanceLearningRate(cfg.appearanceLr, t, cfg.scheduleSteps));
  const refined = densify.encodeAfterAdam(commands, densifyStep);
  const readLoss = t % cfg.lossEvery === 0 || t === cfg.iterations - 1;
  const lossStaging = readLoss ? readbacks.copy(commands, lossFrame.sums, lossFrame.activeSumsBytes) : undefined;
  const countStaging = refined ? readbacks.copy(commands, model.splats.countBuffer, 4) : undefined;
  const geometryStaging = readLoss && geometry ? readbacks.copy(commands, geometry.sums, geometry.activeSumsBytes) : undefined;
  const flagStaging = readLoss ? readbacks.copy(commands, adam.flags, 32) : undefined;
  const frameCounts = readbacks.copy(commands, frame.counts, 32);
  await commands.submit();
  if (cameraStaging) parts.cameraRefiner!.rendered(t, view, new Promise((resolve) => readbacks.read(cameraStaging, (bytes) => resolve(new Float32Array(bytes)))));
  // the loss and the geometry sums land in the order recorded; whichever comes second completes the entry
  let entry: StepLoss | undefined;
  let geometryValues: { distortion: number; normalError: number } | undefined;
  if (lossStaging) {
    const { width, height } = camera;
    readbacks.read(lossStaging, (bytes) => {
      const v = parts.loss.value(new Float32Array(bytes), width, height, counts);
      entry = { step: t, loss: v.loss, ssim: v.ssim, l1: v.l1, psnr: v.psnr, ...geometryValues };
      reports.loss(entry);
    });
  }
  if (geometryStaging) {
    const { width, height } = camera;
    readbacks.read(geometryStaging, (bytes) => {
      const sums = GeometryLoss.value(new Float32Array(bytes), width, height);
      geometryValues = { distortion: sums.distortion, normalError: sums.normal };
      if (entry) Object.assign(entry, geometryValues);
    });
  }
  if (flagStaging) readbacks.read(flagStaging, (bytes) => reports.adamFlags(new Uint32Array(bytes), t));
  if (countStaging) readbacks.read(countStaging, (bytes) => reports.splatCount(new Uint32Array(bytes)[0]));
  const capacity = parts.isectCapacity;
  const visibleCapacity = frame.visibleCapacity;
  readbacks.read(frameCounts, (bytes) => {
    const c = new Uint32Array(bytes);
    reports.intersections(c[COUNT.intersections], capacity);
    reports.visible(c[COUNT.visibleNeeded], visibleCapacity);
  });
  return { refined };
}

/**
 * Records and submits, for test-time pose alignment (pose-alignment.ts), the render of `view` from
 * `camera` with the splats as they are, its loss and backward and the sum of dL/d(camera) into
 * `parts.cameraSum.result`; nothing is updated. `shDegree`: the degree training last rendered with.
 */
export async function recordCameraGradient(parts: StepParts, view: number, camera: PinholeCamera, shDegree: number): Promise<void> {
  const { ctx, data, config, rasterizer, frame, lossFrame, cameraSum } = parts;
  if (!cameraSum) throw new Error('recordCameraGradient: no camera-gradient pipelines (camera refinement is off)');
  const commands = ctx.commands('align');
  rasterizer.encodeForward(commands, frame, camera, { ...renderSettings(data, config, 0), shDegree });
  const loc = parts.targets.location[view];
  parts.loss.encode(commands, lossFrame, frame.image, parts.targets.buffer(view), loc.offset, camera.width, camera.height, loc.masked?.[config.ssimPadding], data.background);
  // the backward reads the frame's pixelGrads: a held-out view has no colour model, so with
  // appearance on the loss's own dL/d image goes there as it is; no geometry loss runs here
  const inputs = frame.pixelGrads!;
  if (parts.appearance) commands.copyBuffer(lossFrame.vImage, 0, inputs.image, 0, Math.min(rangeOf(lossFrame.vImage).size, inputs.image.size));
  commands.clearBuffer(inputs.aux);
  commands.clearBuffer(inputs.normals);
  rasterizer.encodeBackward(commands, frame);
  cameraSum.encode(commands);
  await commands.submit();
}
