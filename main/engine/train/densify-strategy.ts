/**
 * Densification as one interface (as gsplat's strategy/base.py): the trainer calls these hooks at
 * fixed points of a step and of the model's life and never asks which strategy it has. ADC
 * (densify-adc.ts) and MCMC (densify-mcmc.ts) implement it; densify.ts picks one by name.
 *
 * A step, as the trainer records it: forward, loss, backward, `encodeBeforeAdam`, Adam,
 * `encodeAfterAdam`. Every hook only records GPU work: nothing is read back inside a step.
 */
import type { ParamValues } from '../../../shared/params/index.js';
import type { GpuCommands } from '../gpu/commands.js';
import type { ModelGroups } from './model.js';

export type DensifyStrategyName = ParamValues['train.strategy'];

/** What a strategy sees of the step being recorded. */
export interface DensifyStep {
  step: number;
  seed: number;
  sceneScale: number;
  /** The splat count as last read back (exact between refines; the GPU's own is `countBuffer`). */
  splatCount: number;
  maxSplats: number;
  countBuffer: GPUBuffer;
  groups: ModelGroups;
  /** The frame's visibility flags and screen-space mean gradients, and the view's size. */
  visible: GPUBuffer;
  mean2dGrad: GPUBuffer;
  width: number;
  height: number;
  /** This step's learning rate of the means (MCMC's noise scales with it). */
  meansLearningRate: number;
  /** How many times smaller per side than the full images this step trains (coarse-to-fine; 1 or undefined: full). */
  resolutionFactor?: number;
}

export interface DensifyStrategy {
  readonly name: DensifyStrategyName;
  /** How the strategy wants random initial splats to start; undefined: initialSplats' defaults. */
  readonly initialSplats?: { opacity: number; scale: number };
  /** The capacity to allocate for `count` splats: room for the growth until capacity is next checked. */
  capacityFor(count: number, maxSplats: number): number;
  /**
   * Whether step `step` may outgrow the capacity: before recording it the trainer waits for the
   * exact count and, unless `hasRoom(count, capacity)`, grows the model to `capacityFor(count)`.
   */
  checksCapacityAt(step: number): boolean;
  hasRoom(count: number, capacity: number): boolean;
  /** (Re)creates the capacity-sized GPU state; statistics gathered so far start over. */
  rebuild(capacity: number): Promise<void>;
  /**
   * Before the model moves to a new capacity: records copies of the statistics worth keeping
   * into `commands`; the returned function puts them into the state `rebuild` makes next.
   */
  holdStatistics(commands: GpuCommands): (() => Promise<void>) | undefined;
  /** Between the backward and Adam (regularizer gradients). */
  encodeBeforeAdam(commands: GpuCommands, step: DensifyStep): void;
  /** After Adam (statistics, refine, resets, noise); true when a refine may have changed the count. */
  encodeAfterAdam(commands: GpuCommands, step: DensifyStep): boolean;
  /** The state exact resume needs besides the model, for `count` splats (a GPU sync point). */
  checkpointBlobs(count: number): Promise<{ name: string; data: Uint8Array }[]>;
  /** Puts `checkpointBlobs`' state back (`floats` reads one blob, checking its size). */
  restore(blobs: ReadonlyMap<string, Uint8Array>, count: number, floats: (name: string, count: number) => Float32Array): void;
  /**
   * Before recording step `step`: frees the state no step from `step` on uses (ADC: all of it from
   * the refine stop; then rebuild and holdStatistics do nothing and checkpoints hold no statistics).
   * May read back (once).
   */
  retire?(step: number): Promise<void>;
  /** Whether step `step` or a later one reads the screen-space mean gradient (`DensifyStep.mean2dGrad`); absent: always. */
  readsMean2dFrom?(step: number): boolean;
  /** GPU bytes of the strategy's state (statistics, refine scratch). */
  readonly bytes: number;
  /** Splats whose growth a refine clipped for want of capacity, over the run (where a refine can clip). */
  clippedGrowth?(): Promise<number>;
  destroy(): void;
}

/** A strategy's capacity-sized densifier: made by `rebuild`, replaced by the next, destroyed with the strategy. */
export class DensifierSlot<D extends { readonly bytes: number; destroy(): void }> {
  private held: D | undefined;

  constructor(private readonly strategy: string) {}

  get current(): D {
    if (!this.held) throw new Error(`${this.strategy} densification used before rebuild()`);
    return this.held;
  }

  async replace(make: () => Promise<D>): Promise<void> {
    this.destroy();
    this.held = await make();
  }

  get bytes(): number {
    return this.held?.bytes ?? 0;
  }

  destroy(): void {
    this.held?.destroy();
    this.held = undefined;
  }
}
