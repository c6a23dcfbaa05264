/**
 * A trainer's set-up, overlapped (issue 18's cold start): every pipeline the first step needs is
 * requested at once (Dawn compiles them on its worker threads) while this thread makes the
 * initial splats, and the images load behind the first steps, the first epoch's views first
 * (GpuTargets; a step waits for its view). Within the GPU memory budget: when the configuration's
 * capacity does not fit, the set-up starts again at the initial splats' own capacity and grows to
 * what fits (capped, reported once); when even that does not fit, the configuration is refused
 * with the numbers (bad_input, memory-refusal.ts).
 */
import { Random } from '../../../shared/random.js';
import type { SplatSet } from '../../../shared/scene/splats.js';
import type { GpuContext } from '../gpu/context.js';
import { isGpuOutOfMemory } from '../gpu/memory.js';
import { GpuSplats } from '../render/gpu-splats.js';
import { Rasterizer, type RasterizerOptions } from '../render/rasterizer.js';
import { Adam } from './adam.js';
import { Appearance, appearanceModelFor } from './appearance.js';
import { resolveRefineCameras } from './camera-refine.js';
import type { TrainingData } from './data.js';
import { createDensifyStrategy } from './densify.js';
import type { DensifyStrategy } from './densify-strategy.js';
import { initialSplats } from './init.js';
import { TrainingLoss } from './loss.js';
import { capacityBindingLimit, type GrowthLimit, type MemoryCap } from './memory-growth.js';
import { refusedAtStart, refusedByBinding } from './memory-refusal.js';
import { ShAdam } from './sh-adam.js';
import { GpuTargets } from './targets.js';
import type { TrainerConfig } from './trainer-config.js';

/** What Trainer.create takes besides the data and the configuration. */
export interface TrainerCreateOptions {
  initial?: SplatSet;
  loadFirst?: readonly number[];
  onProgress?: (stage: string, done: number, total: number) => void;
  onStage?: (stage: 'splats' | 'pipelines' | 'frames' | 'intersections') => void;
}

/** A set-up's capacity: asked for ('initial': the initial splats' own, after a refusal) and as built. */
export interface BuildAttempt {
  /** 'initial': the initial splats' own capacity; a number: that capacity (a capped run resumed). */
  capacityOf?: 'initial' | number;
  capacity?: number;
  initialCapacity?: number;
}

/** What the set-up made, for the trainer to be built from. */
export interface TrainerParts {
  rasterizer: Rasterizer;
  loss: TrainingLoss;
  adam: Adam;
  shAdam: ShAdam;
  targets: GpuTargets;
  splats: GpuSplats;
  random: Random;
  densify: DensifyStrategy;
  /** The per-image colour models (--appearance), still being made. */
  appearing: Promise<Appearance> | undefined;
}

/**
 * Builds within the GPU memory budget: `build` at the capacity the configuration asks for (or,
 * resuming a run GPU memory capped, the capacity it stopped at), then `grow` on what was built;
 * where GPU memory refuses, `build` again at the initial splats' own capacity and `grow` with
 * what refused (refused at the start, with the numbers, when that was the capacity that failed).
 */
export async function buildWithinMemory<T>(ctx: GpuContext, dataName: string, resumedCap: MemoryCap | undefined, build: (attempt: BuildAttempt) => Promise<T>, grow: (built: T, refusedBy?: GrowthLimit) => Promise<void>): Promise<T> {
  const liveBefore = ctx.memory.live;
  const tried: BuildAttempt = resumedCap ? { capacityOf: resumedCap.capacity } : {};
  try {
    const built = await ctx.memory.guard(ctx.device, 'the training set-up', () => build(tried));
    await grow(built);
    return built;
  } catch (error) {
    if (!isGpuOutOfMemory(error)) throw error;
    const attempt: BuildAttempt = { capacityOf: 'initial' };
    const refuse = (refusal: unknown) => (isGpuOutOfMemory(refusal) ? refusedAtStart(refusal, dataName, refusal.refusal.liveBytes + refusal.refusal.requestedBytes - liveBefore) : refusal);
    if (tried.capacity !== undefined && tried.capacity <= (tried.initialCapacity ?? 0)) throw refuse(error); // the smallest start was what failed
    const built = await ctx.memory.guard(ctx.device, 'the training set-up', () => build(attempt)).catch((again: unknown) => {
      throw refuse(again);
    });
    await grow(built, error.refusal.refusedBy);
    return built;
  }
}

/**
 * Makes the parts at the capacity `attempt` asks for (recording in it what that came to) and
 * hands them to `finish`, which builds the trainer; where anything throws before it is done, the
 * image uploads and the colour models are destroyed. `backward`: the rasterizer's backward
 * configuration (the trainer's TRAINING_BACKWARD).
 */
export async function buildParts<T>(ctx: GpuContext, data: TrainingData, config: TrainerConfig, options: TrainerCreateOptions, attempt: BuildAttempt, backward: Pick<RasterizerOptions, 'backwardReduce' | 'backwardPixels'>, finish: (parts: TrainerParts) => Promise<T>): Promise<T> {
  const cameraGrads = resolveRefineCameras(config.cameraRefine.mode, data.posesEstimated) !== 'off';
  const compiled = Promise.all([Rasterizer.create(ctx, { ...backward, absgrad: config.adc.absgrad, outputs: config.geometry ? { median: true, normals: true, distortion: true } : undefined, cameraGrads, shGrads: false }), TrainingLoss.create(ctx, config.ssimPadding, { randomBackground: config.randomBackground }), Adam.create(ctx), ShAdam.create(ctx)]);
  const appearanceModel = appearanceModelFor(config.appearance, data.photographed ?? false);
  const appearing = appearanceModel === 'off' ? undefined : Appearance.create(ctx, appearanceModel, trainViewsOf(data).length, ...frameSizeOf(data));
  // awaited below; a throw before then must not leave them unhandled
  compiled.catch(() => undefined);
  appearing?.catch(() => undefined);
  const random = new Random(config.seed ^ 0x5eed);
  const densify = createDensifyStrategy(ctx, config, data.photographed ?? false);
  const initial = options.initial ?? initialSplats(data, config.shDegree, config.initPoints, random, densify.initialSplats);
  if (initial.shDegree !== config.shDegree) throw new Error(`initial splats have SH degree ${initial.shDegree}, the config wants ${config.shDegree}`);
  const bindingLimit = capacityBindingLimit(ctx.device.limits.maxStorageBufferBindingSize, config.shDegree);
  if (initial.count > bindingLimit) throw refusedByBinding(data.name, initial.count, bindingLimit, ctx.device.limits.maxStorageBufferBindingSize);
  attempt.initialCapacity = Math.min(bindingLimit, densify.capacityFor(initial.count, initial.count));
  const asked = attempt.capacityOf === 'initial' ? attempt.initialCapacity : typeof attempt.capacityOf === 'number' ? Math.max(attempt.capacityOf, initial.count) : densify.capacityFor(initial.count, config.maxSplats);
  const capacity = (attempt.capacity = Math.min(bindingLimit, asked));
  options.onStage?.('splats');
  // the order the trainer will draw first, from a copy of the generator in the state it will have
  const loadFirst = options.loadFirst ?? drawEpoch(new Random(random.state), trainViewsOf(data));
  // upload progress is the set-up's: the views still loading once training runs report nothing
  let settingUp = true;
  const targets = GpuTargets.start(ctx, data, data.views.map((_, i) => i), { first: loadFirst, onProgress: (d, t) => settingUp && options.onProgress?.('upload', d, t) });
  try {
    const splats = GpuSplats.fromHost(ctx, initial, capacity, 'model');
    const [rasterizer, loss, adam, shAdam] = await compiled;
    options.onStage?.('pipelines');
    return await finish({ rasterizer, loss, adam, shAdam, targets, splats, random, densify, appearing });
  } catch (error) {
    targets.destroy();
    void appearing?.then((a) => a.destroy(), () => undefined);
    throw error;
  } finally {
    settingUp = false;
  }
}

/** The training views' indices in data order. */
export function trainViewsOf(data: TrainingData): number[] {
  return data.views.flatMap((v, i) => (v.split === 'train' ? [i] : []));
}

/** One epoch's order of the training views: a permutation drawn from the run's generator. */
export function drawEpoch(random: Random, trainViews: readonly number[]): number[] {
  return random.permutation(trainViews.length).map((i) => trainViews[i]);
}

/** The largest view's width and height. */
export function frameSizeOf(data: TrainingData): [number, number] {
  return [Math.max(...data.views.map((v) => v.camera.width)), Math.max(...data.views.map((v) => v.camera.height))];
}
