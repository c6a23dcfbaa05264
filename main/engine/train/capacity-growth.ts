/**
 * Growing the model's capacity within the GPU memory budget: how far it may grow (memory-growth.ts
 * holds the arithmetic), the resize itself (parameters, Adam moments and the densifier's statistics
 * moved into buffers of the new capacity, the frames rebuilt for it) and, short of what was wanted,
 * the splat cap and the memory cap, set once. The trainer decides when (before a step whose refine
 * may outgrow the capacity, and at the set-up) and hands in the state this moves on.
 */
import type { GpuContext } from '../gpu/context.js';
import { isGpuOutOfMemory } from '../gpu/memory.js';
import type { Adam } from './adam.js';
import type { DensifyStrategy } from './densify-strategy.js';
import { capacityBindingLimit, describeCap, fittingCapacity, resizePeakBytes, splatsWithRoom, type GrowthLimit, type MemoryCap } from './memory-growth.js';
import type { Model } from './model.js';
import { trainingFootprint } from './state-bytes.js';
import type { TrainerConfig } from './trainer-config.js';
import type { TrainingFrames } from './training-frames.js';

/** The parts a growth reads and rebuilds. */
export interface GrowthParts {
  ctx: GpuContext;
  config: TrainerConfig;
  adam: Adam;
  densify: DensifyStrategy;
  frames: TrainingFrames;
}

/** The run's state a growth moves on, in place: the model (replaced by a resize) and its caps. */
export interface CapacityState {
  model: Model;
  readonly splatCount: number;
  /** The splat count training may grow to: --max-splats, or less once GPU memory capped it. */
  splatCap: number;
  /** Why growth was capped by GPU memory (set once). */
  memoryCap: MemoryCap | undefined;
}

/**
 * Grows the capacity to `wanted`, or as far as GPU memory allows (memory-growth.ts); short of
 * `wanted`, growth stops there: the splat cap drops to what the capacity holds with room for a
 * refine's growth, and the memory cap is set the first time (returned, for the trainer to say
 * once). A refusal during the resize (the budget's or the driver's) puts the old capacity back.
 */
export async function growWithinMemory(parts: GrowthParts, state: CapacityState, step: number, wanted: number, refusedBy: GrowthLimit = 'budget'): Promise<MemoryCap | undefined> {
  const { ctx, config, densify, frames } = parts;
  const memory = ctx.memory;
  const capacityOf = () => state.model.splats.capacity;
  const footprint = () => trainingFootprint(state.model, densify, frames.frame);
  const isectFor = (next: number) => Math.max(frames.growIsect, next * 4);
  const reachable = Math.min(wanted, capacityBindingLimit(ctx.device.limits.maxStorageBufferBindingSize, config.shDegree));
  let capacity = fittingCapacity(footprint(), memory, capacityOf(), reachable, frames.isectCapacity, isectFor);
  if (capacity > capacityOf()) {
    try {
      await resize(parts, state, capacity);
    } catch (error) {
      if (!isGpuOutOfMemory(error)) throw error;
      refusedBy = error.refusal.refusedBy;
      capacity = capacityOf();
    }
  }
  if (capacity >= wanted) return undefined;
  if (capacity >= reachable && refusedBy === 'budget') refusedBy = 'binding';
  // the densifier grows only below the count a refine's growth has room from (ADC: half the
  // capacity, a refine may double them); the count itself stays within the capacity
  state.splatCap = Math.min(state.splatCap, splatsWithRoom(capacityOf(), (n, c) => densify.hasRoom(n, c)));
  if (state.memoryCap) return undefined;
  const budget = memory.budget.totalBytes;
  const cap = { step, splats: Math.min(config.maxSplats, capacityOf()), wantedCapacity: wanted, capacity: capacityOf(), neededBytes: Math.ceil(resizePeakBytes(footprint(), memory.live, capacityOf(), wanted, frames.isectCapacity, isectFor(wanted))), ...(Number.isFinite(budget) ? { budgetBytes: budget } : {}) };
  state.memoryCap = { ...cap, message: describeCap(cap, refusedBy) };
  return state.memoryCap;
}

/** Moves the model into buffers of a new capacity (parameters, Adam moments and the densifier's statistics). */
async function resize(parts: GrowthParts, state: CapacityState, capacity: number) {
  const { ctx, adam, densify, frames } = parts;
  const old = state.model;
  const [isect, growIsect] = [frames.isectCapacity, frames.growIsect];
  try {
    await ctx.memory.guard(ctx.device, `growing to ${capacity} splats of capacity`, async () => {
      frames.growIsect = Math.max(frames.growIsect, frames.isectCapacity, capacity * 4);
      const commands = ctx.commands('resize');
      const next = old.resized(commands, ctx, adam, capacity, state.splatCount);
      const restoreStatistics = densify.holdStatistics(commands);
      await commands.submit();
      state.model = next;
      await frames.build(next); // frames and the densifier are capacity-sized
      await restoreStatistics?.();
    });
  } catch (error) {
    if (!isGpuOutOfMemory(error)) throw error;
    // the guard destroyed what the resize made: back to the old model and frames of its size
    state.model = old;
    frames.growIsect = growIsect;
    await frames.build(old, isect); // the densifier's statistics start over
    throw error;
  }
  old.destroy();
}
