/**
 * Appearance compensation: a per-image colour model (kernels/appearance.wgsl) between the render
 * and the loss, learned with the splats so that exposure, white balance and tone differences
 * between a capture's photos are not baked into the splats' colours. Evaluation renders without
 * it (a held-out image has no model): the splats' colours are the capture's mean appearance. 'affine' is one 3x4 colour matrix per image; 'bilagrid' a
 * 16 x 16 x 8 bilateral grid of them per image with a total-variation regulariser (gsplat's
 * bilagrid: grid shape, identity initialization, TV weight 10, learning rate 2e-3 with a linear
 * warm-up over 1000 steps and an exponential decay to 1% at the end). After each step the models'
 * mean over the images is set back to the identity (their common part belongs to the splats).
 */
import { GpuArena } from '../gpu/arena.js';
import { bindGroup, createStorage, createUniform, readBuffer, writeRange, type GpuRange, type GpuRegion } from '../gpu/buffers.js';
import type { GpuCommands } from '../gpu/commands.js';
import type { GpuContext } from '../gpu/context.js';
import type { CompiledPipeline, KernelVariant } from '../gpu/kernels.js';
import { UniformStruct } from '../gpu/uniforms.js';
import type { ParamValues } from '../../../shared/params/index.js';
import type { Adam, AdamGroup } from './adam.js';
import { exponentialDecay, linearWarmup } from './schedule.js';

/** The registry's `train.appearance` choices ('auto' decides by the kind of data). */
export type AppearanceChoice = ParamValues['train.appearance'];
export type AppearanceModelName = Exclude<AppearanceChoice, 'auto' | 'off'>;

export interface GridShape {
  x: number;
  y: number;
  /** Nodes along the luminance axis. */
  l: number;
}

/** Grid nodes per model: an affine model is the grid of one node. */
export const APPEARANCE_GRIDS: Readonly<Record<AppearanceModelName, GridShape>> = {
  affine: { x: 1, y: 1, l: 1 },
  bilagrid: { x: 16, y: 16, l: 8 },
};

/** grid_grad_partials' layer mask is a u32 (kernels/appearance-grad.wgsl). */
const MAX_L = 32;
const TS = 16;
const WG = 128;
/** grid_grad_partials' tile side in pixels (kernels/appearance-grad.wgsl GT). */
const GRAD_TILE = 16;
/** gsplat's bilagrid TV multiplier (`bilateral_grid_tv_loss`'s 10). */
export const BILAGRID_TV_WEIGHT = 10;

/**
 * The model a run trains with: 'auto' is the bilateral grid for photographs (COLMAP,
 * transforms.json, video and photo captures) and none for synthetic renders (NeRF-synthetic,
 * the sample scene), whose images share one exposure.
 */
export function appearanceModelFor(choice: AppearanceChoice, photographed: boolean): AppearanceModelName | 'off' {
  if (choice === 'auto') return photographed ? 'bilagrid' : 'off';
  return choice;
}

/** gsplat's bilagrid schedule: a linear warm-up from 1% over the first 1000 steps, an exponential decay to 1% at the end. */
export const APPEARANCE_SCHEDULE = { warmupSteps: 1000, warmupFrom: 0.01, finalRatio: 0.01 } as const;

/** Learning rate at `step` (0-based) of `total` (APPEARANCE_SCHEDULE: warm-up times decay). */
export function appearanceLearningRate(base: number, step: number, total: number): number {
  const { warmupSteps, warmupFrom, finalRatio } = APPEARANCE_SCHEDULE;
  return base * linearWarmup(step, warmupSteps, warmupFrom) * exponentialDecay(step, total, finalRatio);
}

/** Floats of `images` grids of a shape (12 per node). */
export function gridFloats(shape: GridShape, images: number): number {
  return images * shape.l * shape.y * shape.x * 12;
}

/** Every node of every grid the identity colour matrix. */
export function identityGrids(shape: GridShape, images: number): Float32Array {
  const grids = new Float32Array(gridFloats(shape, images));
  for (let o = 0; o < grids.length; o += 12) {
    grids[o] = 1;
    grids[o + 5] = 1;
    grids[o + 10] = 1;
  }
  return grids;
}

/** The per-axis TV coefficients 2 w / (images x pairs x 12) (0 on an axis of one node). */
export function tvCoefficients(shape: GridShape, images: number, weight: number): { x: number; y: number; l: number } {
  const pairs = (along: number) => (shape.x * shape.y * shape.l * (along - 1)) / along;
  const coefficient = (along: number) => (along > 1 ? (2 * weight) / (images * pairs(along) * 12) : 0);
  return { x: coefficient(shape.x), y: coefficient(shape.y), l: coefficient(shape.l) };
}

/**
 * Pixels of the widest cell on an axis (kernels/appearance-grad.wgsl `cell_span`: [floor(c per - 0.5)
 * - 1, ceil((c + 1) per - 0.5) + 1], fewer than per + 5 pixels).
 */
function cellSpan(nodes: number, pixels: number): number {
  return nodes === 1 ? pixels : Math.min(pixels, Math.ceil(pixels / (nodes - 1)) + 4);
}

/** Cells between nodes on an axis (one on an axis of one node). */
const cellsOf = (nodes: number) => Math.max(nodes, 2) - 1;

/** How grid_grad_partials tiles each xy cell for an image size: tiles per cell, the dispatch, the tiles in all. */
export function gradTiles(shape: GridShape, width: number, height: number): { x: number; y: number; groupsX: number; groupsY: number; count: number } {
  const x = Math.ceil(cellSpan(shape.x, width) / GRAD_TILE);
  const y = Math.ceil(cellSpan(shape.y, height) / GRAD_TILE);
  const groupsX = cellsOf(shape.x) * x;
  const groupsY = cellsOf(shape.y) * y;
  return { x, y, groupsX, groupsY, count: groupsX * groupsY };
}

export interface AppearanceOptions {
  /** Force a capability variant (parity tests); default: the device's. */
  variant?: KernelVariant;
  tvWeight?: number;
}

/**
 * The per-image colour models of a run on the GPU: grids, their gradient and Adam moments, and
 * the corrected image and its gradient for frames up to `width` x `height`.
 */
export class Appearance {
  readonly floats: number;
  readonly grid: GPUBuffer;
  readonly grad: GPUBuffer;
  /** Adam's moments of the grids (a moments arena, like every Adam group's). */
  readonly moments: GpuArena<'moments'>;
  readonly m: GpuRegion;
  readonly v: GpuRegion;
  /** The corrected image (vec4 per pixel), the loss's input. */
  readonly image: GPUBuffer;
  private readonly partials: GPUBuffer;
  /** u32 per grid_grad_partials tile: the luminance layers it wrote partials of. */
  private readonly tileLayers: GPUBuffer;
  private readonly params: GPUBuffer;
  /** u32 [floats]: Adam's element count. */
  private readonly count: GPUBuffer;
  private adamGroup?: AdamGroup;
  private gaugeGroup?: GPUBindGroup;
  /** A held-out view's colour model (setHeldOutModel), one image's grid. */
  private heldOut?: GPUBuffer;
  private groups?: { rendered: GpuRange; vOut: GpuRange; vRendered: GpuRange; forward: GPUBindGroup; backward: GPUBindGroup; partials: GPUBindGroup; tv: GPUBindGroup; reduce: GPUBindGroup };
  private active = { width: 0, height: 0 };

  /** The compiled pipelines, for the benchmark's workgroup-memory table. */
  compiledPipelines(): CompiledPipeline[] {
    return Object.values(this.pipelines);
  }

  private constructor(
    private readonly ctx: GpuContext,
    readonly model: AppearanceModelName,
    readonly shape: GridShape,
    readonly images: number,
    readonly width: number,
    readonly height: number,
    private readonly pipelines: Record<'forward' | 'backward' | 'partials' | 'tv' | 'reduce' | 'gauge', CompiledPipeline>,
    readonly tvWeight: number,
  ) {
    const { device } = ctx;
    this.floats = gridFloats(shape, images);
    this.grid = createStorage(device, 'appearance.grid', this.floats * 4);
    device.queue.writeBuffer(this.grid, 0, identityGrids(shape, images));
    this.grad = createStorage(device, 'appearance.grad', this.floats * 4);
    this.moments = new GpuArena(device, 'moments', 'appearance.moments', { m: this.floats * 4, v: this.floats * 4 });
    ({ m: this.m, v: this.v } = this.moments.regions);
    this.image = createStorage(device, 'appearance.image', width * height * 16);
    // the largest frame's tiles: a smaller frame's cells are narrower, never more
    const tiles = gradTiles(shape, width, height).count;
    this.partials = createStorage(device, 'appearance.partials', tiles * 4 * shape.l * 3 * 16);
    this.tileLayers = createStorage(device, 'appearance.tileLayers', tiles * 4);
    this.params = createUniform(device, 'appearance.params', UniformStruct.of('appearance', 'AppearanceParams').size);
    this.count = createStorage(device, 'appearance.count', 16);
    device.queue.writeBuffer(this.count, 0, new Uint32Array([this.floats, 0, 0, 0]));
  }

  /** Compiles the model's pipelines; `images` grids, all identity. */
  static async create(ctx: GpuContext, model: AppearanceModelName, images: number, width: number, height: number, options: AppearanceOptions = {}): Promise<Appearance> {
    const shape = APPEARANCE_GRIDS[model];
    if (shape.l > MAX_L) throw new Error(`appearance: ${shape.l} luminance nodes exceed the kernel's ${MAX_L}`);
    if (!(images >= 1)) throw new Error(`appearance: ${images} images`);
    const constants = { GRID_X: shape.x, GRID_Y: shape.y, GRID_L: shape.l, WG };
    const request = (entryPoint: string, kernel = 'appearance') => ({ kernel, entryPoint, constants, variant: options.variant });
    const [forward, backward, partials, tv, reduce, gauge] = await ctx.kernels.preload([
      request('apply_forward'),
      request('apply_backward'),
      request('grid_grad_partials', 'appearance-grad'),
      request('grid_tv'),
      request('grid_grad_reduce', 'appearance-grad'),
      request('grid_gauge'),
    ]);
    const tvWeight = options.tvWeight ?? (model === 'bilagrid' ? BILAGRID_TV_WEIGHT : 0);
    return new Appearance(ctx, model, shape, images, width, height, { forward, backward, partials, tv, reduce, gauge }, tvWeight);
  }

  private bind(rendered: GpuRange, vOut: GpuRange, vRendered: GpuRange) {
    if (this.groups?.rendered === rendered && this.groups.vOut === vOut && this.groups.vRendered === vRendered) return this.groups;
    const { device } = this.ctx;
    const p = this.pipelines;
    const all = { 0: this.params, 1: this.grid, 2: rendered, 3: this.image, 4: vOut, 5: vRendered, 6: this.partials, 7: this.grad, 8: this.partials, 10: this.tileLayers, 11: this.tileLayers };
    this.groups = {
      rendered,
      vOut,
      vRendered,
      forward: bindGroup(device, p.forward, all),
      backward: bindGroup(device, p.backward, all),
      partials: bindGroup(device, p.partials, all),
      tv: bindGroup(device, p.tv, all),
      reduce: bindGroup(device, p.reduce, all),
    };
    return this.groups;
  }

  /**
   * Records the corrected image of `rendered` (vec4 per pixel, `width` x `height`) with image
   * `slot`'s model into `this.image`. `vOut` is where the loss will write dL / d corrected image;
   * `vRendered`, where encodeBackward writes dL / d rendered image (training: the rasterizer
   * frame's pixelGrads.image, the backward's input).
   */
  encodeForward(commands: GpuCommands, slot: number, rendered: GpuRange, vOut: GpuRange, width: number, height: number, vRendered: GpuRange): GPUBuffer {
    if (width > this.width || height > this.height) throw new Error(`appearance: image ${width}x${height} is larger than the frame's ${this.width}x${this.height}`);
    if (!(slot >= 0 && slot < this.images)) throw new Error(`appearance: image slot ${slot} of ${this.images}`);
    const tiles = gradTiles(this.shape, width, height);
    const tv = tvCoefficients(this.shape, this.images, this.tvWeight);
    this.active = { width, height };
    const data = UniformStruct.of('appearance', 'AppearanceParams').pack({
      width, height, image_slot: slot, images: this.images, tiles_x: tiles.x, tiles_y: tiles.y, tv_x: tv.x, tv_y: tv.y, tv_l: tv.l,
    });
    this.ctx.device.queue.writeBuffer(this.params, 0, data);
    const g = this.bind(rendered, vOut, vRendered);
    commands.dispatch(this.pipelines.forward, [g.forward], Math.ceil(width / TS), Math.ceil(height / TS));
    return this.image;
  }

  /**
   * Records, for the last forward: dL / d rendered image into the forward's `vRendered`, and the grids' gradient
   * (the TV term of every grid plus the photometric term of the frame's image) into `grad`.
   */
  encodeBackward(commands: GpuCommands): void {
    const g = this.groups;
    if (!g || !this.active.width) throw new Error('appearance: backward before forward');
    const { width, height } = this.active;
    const p = this.pipelines;
    const tiles = gradTiles(this.shape, width, height);
    commands.dispatch(p.backward, [g.backward], Math.ceil(width / TS), Math.ceil(height / TS));
    commands.dispatch(p.tv, [g.tv], ...this.spread(this.floats));
    commands.dispatch(p.partials, [g.partials], tiles.groupsX, tiles.groupsY);
    commands.dispatch(p.reduce, [g.reduce], this.shape.x * this.shape.y * this.shape.l);
  }

  /** A 1D range of WG-thread workgroups as a 2D dispatch (kernels/dispatch.wgsl). */
  private spread(threads: number): [number, number] {
    const groups = Math.ceil(threads / WG);
    const x = Math.min(groups, this.ctx.device.limits.maxComputeWorkgroupsPerDimension);
    return [x, Math.ceil(groups / x)];
  }

  /**
   * One Adam step (t 1-based) of every grid at learning rate `lr`, then the gauge (grid_gauge:
   * the images' mean model back to the identity, so the splats keep the capture's mean colour).
   */
  encodeAdam(commands: GpuCommands, adam: Adam, t: number, lr: number): void {
    this.adamGroup ??= adam.createGroup('appearance', this.grid, this.grad, this.count, 1, 1, this.moments);
    adam.encode(commands, this.adamGroup, this.floats, t, lr);
    this.encodeGauge(commands);
  }

  /** Records grid_gauge (reads `images` from the params the last encodeForward wrote). */
  encodeGauge(commands: GpuCommands): void {
    this.gaugeGroup ??= bindGroup(this.ctx.device, this.pipelines.gauge, { 0: this.params, 9: this.grid });
    commands.dispatch(this.pipelines.gauge, [this.gaugeGroup], ...this.spread(this.floats / this.images));
  }

  /**
   * The colour model of an image the run did not train on (a held-out view): the blend
   * sum_i w_i grid(slot_i) of training images' models (linear in the grid, so the blend's render
   * is the blend of their renders), written into `heldOut`; `grids` is what readGrids returned
   * (read once per evaluation, not per view).
   */
  setHeldOutModel(blend: readonly { slot: number; weight: number }[], grids: Float32Array): void {
    const perImage = this.floats / this.images;
    const model = new Float32Array(perImage);
    for (const { slot, weight } of blend) for (let i = 0; i < perImage; i++) model[i] += weight * grids[slot * perImage + i];
    this.heldOut ??= createStorage(this.ctx.device, 'appearance.heldOut', perImage * 4);
    this.ctx.device.queue.writeBuffer(this.heldOut, 0, model);
  }

  /** Every image's grid, read back (a sync point: evaluation only). */
  async readGrids(): Promise<Float32Array> {
    return new Float32Array(await readBuffer(this.ctx.device, this.grid, this.floats * 4));
  }

  /** Records the corrected image of `rendered` through the model setHeldOutModel wrote (into `this.image`). */
  encodeHeldOutForward(commands: GpuCommands, rendered: GpuRange, width: number, height: number): GPUBuffer {
    if (!this.heldOut) throw new Error('appearance: no held-out model set');
    if (width > this.width || height > this.height) throw new Error(`appearance: image ${width}x${height} is larger than the frame's ${this.width}x${this.height}`);
    const data = UniformStruct.of('appearance', 'AppearanceParams').pack({ width, height, image_slot: 0, images: 1, tiles_x: 1, tiles_y: 1, tv_x: 0, tv_y: 0, tv_l: 0 });
    this.ctx.device.queue.writeBuffer(this.params, 0, data);
    this.active = { width: 0, height: 0 }; // no backward of this forward
    const group = bindGroup(this.ctx.device, this.pipelines.forward, { 0: this.params, 1: this.heldOut, 2: rendered, 3: this.image });
    commands.dispatch(this.pipelines.forward, [group], Math.ceil(width / TS), Math.ceil(height / TS));
    return this.image;
  }

  /** Grids and Adam moments, for a checkpoint (a GPU sync point). */
  async checkpointBlobs(): Promise<{ name: string; data: Uint8Array }[]> {
    const { device } = this.ctx;
    const blobs: { name: string; data: Uint8Array }[] = [];
    for (const [part, buffer] of [['grid', this.grid], ['m', this.m], ['v', this.v]] as const) {
      blobs.push({ name: `appearance.${part}`, data: new Uint8Array(await readBuffer(device, buffer, this.floats * 4)) });
    }
    return blobs;
  }

  /** Writes grids and moments back (`blob` checks each one's size and names the file). */
  restore(blob: (name: string, floats: number) => Float32Array): void {
    for (const [part, buffer] of [['grid', this.grid], ['m', this.m], ['v', this.v]] as const) writeRange(this.ctx.device, buffer, blob(`appearance.${part}`, this.floats));
  }

  destroy(): void {
    for (const b of [this.grid, this.grad, this.moments, this.image, this.partials, this.tileLayers, this.params, this.count]) b.destroy();
    this.heldOut?.destroy();
    this.adamGroup?.uniform.destroy();
  }
}

/**
 * Which training images' models a held-out view borrows: the nearest training view before it and
 * the nearest after it in the dataset's order (images sorted by name: a video's frames in time, a
 * photo set in shooting order), weighted by closeness (1 / distance in that order); one side only
 * at the ends. `trainViews`: dataset indices of the training views, ascending (slot = position).
 */
export function neighbourBlend(view: number, trainViews: readonly number[]): { slot: number; weight: number }[] {
  let after = trainViews.findIndex((v) => v > view);
  if (after < 0) after = trainViews.length;
  const before = after - 1;
  if (before >= 0 && trainViews[before] === view) return [{ slot: before, weight: 1 }];
  if (before < 0) return [{ slot: after, weight: 1 }];
  if (after >= trainViews.length) return [{ slot: before, weight: 1 }];
  const dBefore = view - trainViews[before];
  const dAfter = trainViews[after] - view;
  return [
    { slot: before, weight: dAfter / (dBefore + dAfter) },
    { slot: after, weight: dBefore / (dBefore + dAfter) },
  ];
}
