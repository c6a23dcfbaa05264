import type { PinholeCamera } from '../../../shared/scene/camera.js';
import { bindGroup, createStorage, createUniform, readBuffer } from '../gpu/buffers.js';
import type { GpuCommands } from '../gpu/commands.js';
import type { GpuContext } from '../gpu/context.js';
import type { CompiledPipeline, KernelVariant } from '../gpu/kernels.js';
import { RadixSort } from '../gpu/primitives/radix-sort.js';
import { ExclusiveScan } from '../gpu/primitives/scan.js';
import { UniformStruct } from '../gpu/uniforms.js';
import { packCameraUniform, tileCounts, type RenderSettings } from './camera-uniform.js';
import type { GpuSplatGrads, GpuSplats } from './gpu-splats.js';
import { deviceLimits, fitBackward, type BackwardFit } from './backward-fit.js';
import { COUNT, RasterFrame, type FrameBuffers, type Pipelines, type RasterOutputs } from './raster-frame.js';
import { gatherItems as defaultGatherItems, type RasterTuning } from './tuning.js';

export { COUNT, RasterFrame, type FrameBuffers, type RasterOutputs } from './raster-frame.js';

/** The tuning fields (workgroup size, backward batch, reduction, pixels per thread) are RasterTuning's. */
export interface RasterizerOptions extends RasterTuning {
  variant?: KernelVariant;
  /**
   * Splats over more than this many tiles (projection, emit; default 32) are handled by their
   * whole workgroup instead of one thread (override BIG; tests: 1).
   */
  bigSplat?: number;
  /**
   * Intersection records per gather_grads thread (override ITEMS, default tuning.ts's gatherItems()): its
   * chunks of workgroupSize x gatherItems records are summed as segments; tests make them small
   * so that many splats cross a chunk border.
   */
  gatherItems?: number;
  /** Also sum |d mean2d| per pixel (AbsGS densification); off saves two of twelve reductions. Default on. */
  absgrad?: boolean;
  /**
   * Optional outputs (and their gradients): median depth, rendered normals, depth distortion.
   * Each is an override constant: pipelines without it allocate none of its memory.
   */
  outputs?: RasterOutputs;
  /**
   * 'forward' compiles no backward pipeline (render, mesh, sample photos): they are the largest
   * (the subgroup rasterize_backward needs 38 KiB of workgroup storage, over SwiftShader's 32)
   * and half the start-up compile time. Default 'forward+backward' (training, benchmarks).
   */
  passes?: 'forward' | 'forward+backward';
  /**
   * Camera refinement: project_backward also writes each splat's share of dL/d(camera)
   * (`RasterFrame.cameraGradPartials`, summed by camera-grads.ts). Off (the default) it is an
   * override constant that removes the work: the other gradients are bit-identical.
   */
  cameraGrads?: boolean;
  /**
   * Whether project_backward stores the SH gradients (default on). Training with the fused SH
   * Adam (train/sh-adam.ts) turns it off: the SH gradient is computed and applied there, and the
   * gradients' SH region is a placeholder (override SH_GRADS; the other gradients bit-identical).
   */
  shGrads?: boolean;
  /**
   * Whether project_backward stores the screen-space mean gradient (default on; densification
   * reads it). Off it is an override (MEAN2D_GRADS) and `grads.mean2d` may be a placeholder; the
   * other gradients bit-identical. A trainer turns it off once nothing reads it (dropMean2dGrads).
   */
  mean2dGrads?: boolean;
}

/**
 * The differentiable 3DGS rasterizer on the GPU (kernels project, intersect, radix-sort, scan,
 * rasterize, gather). Forward: parameters -> image, alpha, depth. Backward: dL/d(image, alpha,
 * depth) -> gradients of every parameter and of the 2D means. No CPU readback inside either.
 */
export class Rasterizer {
  private constructor(
    private readonly ctx: GpuContext,
    private readonly pipelines: Pipelines,
    private readonly scan: ExclusiveScan,
    private readonly sort: RadixSort,
    readonly workgroupSize: number,
    readonly variant: KernelVariant,
    /** The backward's configuration sized from the device, and why (for info and profiles). */
    readonly backward: BackwardFit,
    readonly outputs: Required<RasterOutputs>,
    readonly cameraGrads: boolean,
    /** Intersection records per gather_grads workgroup (its WG x ITEMS). */
    readonly gatherChunk: number,
    /** project_backward's constants (dropMean2dGrads compiles it again without the mean2d gradient). */
    private readonly projectBackwardConstants: Record<string, number>,
  ) {}

  /** With the per-adapter tuning cache (bench raster --sweep) filling what `options` leaves out. */
  static async createTuned(ctx: GpuContext, options: RasterizerOptions = {}): Promise<Rasterizer> {
    const { loadTuning } = await import('./tuning.js');
    const tuned = (options.variant ?? ctx.info.variant) === ctx.info.variant ? await loadTuning(ctx.info) : undefined;
    const o = options.outputs;
    // the tuned 'cas' backward has no optional outputs: those take the partials backward
    const reduce = o && (o.median || o.normals || o.distortion) && tuned?.backwardReduce === 'cas' ? { backwardReduce: 'partials' as const, backwardBatch: undefined } : {};
    return Rasterizer.create(ctx, { ...tuned, ...reduce, ...options });
  }

  static async create(ctx: GpuContext, options: RasterizerOptions = {}): Promise<Rasterizer> {
    const variant = options.variant ?? ctx.info.variant;
    const WG = options.workgroupSize ?? 256;
    const outputs = options.outputs ?? {};
    const N = outputs.normals ? 1 : 0;
    const BIG = options.bigSplat ?? 32;
    // The portable gather's scan holds a vec4 per record per thread: with the normals' 4th record
    // 256 threads would need 17 KiB of workgroup memory, over WebGPU's 16.
    const gatherWg = N ? Math.min(WG, 128) : WG;
    const gatherItems = options.gatherItems ?? defaultGatherItems();
    if (!Number.isInteger(gatherItems) || gatherItems < 1 || gatherItems > 64) throw new Error(`Rasterizer: gatherItems must be an integer in 1..64 (got ${gatherItems})`);
    const gatherConstants = { WG: gatherWg, ITEMS: gatherItems, OUT_NORMALS: N, SCAN_NORMALS: N ? gatherWg : 1 };
    const features = { OUT_MEDIAN: outputs.median ? 1 : 0, OUT_NORMALS: N, OUT_DISTORTION: outputs.distortion ? 1 : 0, NORMAL_SLOTS: N ? 256 : 1, RECORDS: N ? 4 : 3 };
    // sized from the device: a batch, reduction or variant whose workgroup memory fits
    const backward = fitBackward(deviceLimits(ctx.info), { ...options, variant, features });
    const get = (kernel: string, entryPoint: string, constants: Record<string, number> = { WG }) => ctx.kernels.get({ kernel, entryPoint, constants, variant });
    const weights: Record<string, number> = outputs.weights ? { OUT_WEIGHTS: 1, WEIGHT_SLOTS: 256 } : {};
    const withBackward = (options.passes ?? 'forward+backward') === 'forward+backward';
    const projectBackwardConstants = { WG, OUT_NORMALS: N, ...(options.cameraGrads ? { CAMERA_GRADS: 1 } : {}), ...(options.shGrads === false ? { SH_GRADS: 0 } : {}), ...(options.mean2dGrads === false ? { MEAN2D_GRADS: 0 } : {}) };
    const [visibleArgs, projectForward, projectBackward, finishCount, compactVisible, gatherSorted, emit, resolve, rasterForward, rasterBackward, gatherGrads, gatherCarries, gatherWeights, scan, sort] = await Promise.all([
      get('intersect', 'visible_args'),
      get('project', 'project_forward', { WG, OUT_NORMALS: N, BIG }),
      withBackward ? get('project', 'project_backward', projectBackwardConstants) : undefined,
      get('intersect', 'finish_count'),
      get('intersect', 'compact_visible'),
      get('intersect', 'gather_sorted', { WG, OUT_NORMALS: N }),
      get('intersect', 'emit', { WG, BIG }),
      get('intersect', 'resolve'),
      get('rasterize', 'rasterize_forward', { OUT_MEDIAN: features.OUT_MEDIAN, OUT_NORMALS: N, OUT_DISTORTION: features.OUT_DISTORTION, NORMAL_SLOTS: features.NORMAL_SLOTS, ...weights }),
      withBackward ? ctx.kernels.get({ kernel: 'rasterize', entryPoint: backward.entryPoint, constants: backward.constants, variant: backward.variant }) : undefined,
      withBackward ? get('gather', 'gather_grads', gatherConstants) : undefined,
      withBackward ? get('gather', 'gather_carries', gatherConstants) : undefined,
      outputs.weights ? get('gather', 'gather_weights') : undefined,
      ExclusiveScan.create(ctx, { variant }),
      RadixSort.create(ctx, { variant }),
    ]);
    const pipelines = { visibleArgs, projectForward, projectBackward, finishCount, compactVisible, gatherSorted, emit, resolve, rasterForward, rasterBackward, gatherGrads, gatherCarries, gatherWeights };
    const outputsOn = { median: Boolean(outputs.median), normals: Boolean(outputs.normals), distortion: Boolean(outputs.distortion), weights: Boolean(outputs.weights) };
    return new Rasterizer(ctx, pipelines, scan, sort, WG, variant, backward, outputsOn, Boolean(options.cameraGrads), gatherWg * gatherItems, projectBackwardConstants);
  }

  /**
   * From now on project_backward stores no screen-space mean gradient (as `mean2dGrads: false`):
   * for a trainer whose densifier no longer reads it. Frames bound before must be bound again
   * (bindBackward), after which `grads.mean2d` may be a placeholder.
   */
  async dropMean2dGrads(): Promise<void> {
    this.backwardPipelines('dropMean2dGrads');
    this.projectBackwardConstants.MEAN2D_GRADS = 0;
    this.pipelines.projectBackward = await this.ctx.kernels.get({ kernel: 'project', entryPoint: 'project_backward', constants: this.projectBackwardConstants, variant: this.variant });
  }

  /** Kernel pipelines (for reports: workgroup memory per variant etc.); the backward's are absent with passes 'forward'. */
  get compiled(): Readonly<Pipelines> {
    return this.pipelines;
  }

  /**
   * `visibleCapacity`: the visible splats its depth-ranked arrays hold (default, and at most, the
   * splat capacity); a training frame sizes them by the views' visible counts (Trainer's
   * VisibleCapacity), since they are most of a frame's per-splat bytes.
   */
  async createFrame(splats: GpuSplats, width: number, height: number, isectCapacity = Math.max(1 << 16, splats.capacity * 4), visibleCapacity = splats.capacity): Promise<RasterFrame> {
    const frame = new RasterFrame(this.ctx, splats, width, height, isectCapacity, visibleCapacity, this.outputs);
    const { device } = this.ctx;
    const N = splats.capacity;
    // per depth rank k < V: the ranked attributes, tile counts and their scan, v2d, the depth sort
    const V = frame.visibleCapacity;
    const M = isectCapacity;
    const T = frame.tiles.total;
    const own = (label: string, bytes: number) => {
      const b = createStorage(device, `raster.${label}`, bytes);
      frame.buffers.push(b);
      return b;
    };
    const normalsOn = this.outputs.normals;
    // Arrays the kernels use together share an arena (gpu/arena.ts), so a device with few
    // storage bindings binds each as one; the optional outputs' members are placeholders when off.
    const projected = frame.arena('projected', 'projected', { conicOpacity: N * 16, colorDepth: N * 16, normal: normalsOn ? N * 16 : 0 });
    const projectedXyRect = frame.arena('projected_xy_rect', 'projectedXyRect', { xy: N * 8, rect: N * 8 });
    const ranked = frame.arena('ranked', 'ranked', { conicOpacity: V * 16, colorDepth: V * 16, normal: normalsOn ? V * 16 : 0 });
    const rankedXyRect = frame.arena('ranked_xy_rect', 'rankedXyRect', { xy: V * 8, rect: V * 8 });
    const rankCounts = frame.arena('rank_counts', 'rankCounts', { count: V * 4, rankOfSplat: N * 4 });
    const tileOrder = frame.arena('tile_order', 'tileOrder', { rank: M * 4, emit: M * 4 });
    const isectGrads = frame.arena('isect_grads', 'isectGrads', { g0: M * 16, g1: M * 16, g2: M * 16, g3: normalsOn ? M * 16 : 0 });
    const P = width * height;
    if (this.pipelines.rasterBackward) frame.pixelGrads = frame.arena('pixel_grads', 'pixelGrads', { image: P * 16, aux: P * 16, normals: normalsOn ? P * 16 : 0 });
    const b: FrameBuffers = {
      xy: projectedXyRect.xy,
      conicOpacity: projected.conicOpacity,
      colorDepth: projected.colorDepth,
      normal: projected.normal,
      tileCount: own('tileCount', N * 4),
      tileRect: projectedXyRect.rect,
      visible: own('visible', N * 4),
      visibleOffset: own('visibleOffset', (N + 1) * 4),
      depthKeys: own('depthKeys', V * 4),
      depthVals: own('depthVals', V * 4),
      sortedXy: rankedXyRect.xy,
      sortedConicOpacity: ranked.conicOpacity,
      sortedColorDepth: ranked.colorDepth,
      sortedNormal: ranked.normal,
      sortedCount: rankCounts.count,
      sortedRect: rankedXyRect.rect,
      rankOfSplat: rankCounts.rankOfSplat,
      isectOffset: own('isectOffset', (V + 1) * 4),
      isectKeys: own('isectKeys', M * 4),
      isectVals: own('isectVals', M * 4),
      isectRank: own('isectRank', M * 4),
      sortedRank: tileOrder.rank,
      sortedEmit: tileOrder.emit,
      tileRanges: own('tileRanges', T * 8),
      grads0: isectGrads.g0,
      grads1: isectGrads.g1,
      grads2: isectGrads.g2,
      grads3: isectGrads.g3,
      v2d: own('v2d', V * 64),
      // per gather chunk: head and tail carries of 4 vec4 (gather.wgsl)
      gatherCarries: own('gatherCarries', Math.ceil(M / this.gatherChunk) * 128),
      isectWeights: own('isectWeights', this.outputs.weights ? M * 8 : 16),
    };
    frame.internal = b;
    frame.splatWeights = own('splatWeights', this.outputs.weights ? N * 8 : 16);
    frame.cameraGradPartials = own('cameraGradPartials', this.cameraGrads ? N * 48 : 16);
    // Byte accounting for reports: per splat of capacity, per intersection (sort scratch and
    // histograms: ~9 B a key of the sorts; the depth sort's keys are V), per pixel.
    const perSplat = [b.xy, b.conicOpacity, b.colorDepth, b.tileCount, b.tileRect, b.visible, b.visibleOffset, b.depthKeys, b.depthVals, b.sortedXy, b.sortedConicOpacity, b.sortedColorDepth, b.sortedCount, b.sortedRect, b.rankOfSplat, b.isectOffset, b.v2d].reduce((sum, x) => sum + x.size, 0);
    const perIsect = [b.isectKeys, b.isectVals, b.isectRank, b.sortedRank, b.sortedEmit, b.grads0, b.grads1, b.grads2, b.gatherCarries].reduce((sum, x) => sum + x.size, 0);
    const pixelGradBytes = frame.pixelGrads ? frame.pixelGrads.image.size + frame.pixelGrads.aux.size : 0;
    frame.bytes = { perSplat: (perSplat + 9 * V) / N, perIntersection: perIsect / M + 9, perPixel: (frame.image.size + frame.depth.size + frame.state.size + pixelGradBytes) / (width * height) };
    const dispatchArgs = createStorage(device, 'raster.dispatchArgs', 48, GPUBufferUsage.INDIRECT);
    frame.buffers.push(dispatchArgs);
    frame.dispatchArgs = dispatchArgs;
    const intersect = UniformStruct.of('intersect', 'IntersectParams');
    const intersectParams = createUniform(device, 'raster.intersectParams', intersect.size);
    device.queue.writeBuffer(intersectParams, 0, intersect.pack({ n_index: COUNT.splats, visible_index: COUNT.visible, isect_index: COUNT.intersections, overflow_index: COUNT.overflow, isect_capacity: M, gather_chunk: this.gatherChunk, visible_capacity: V, visible_needed_index: COUNT.visibleNeeded }));
    const gather = UniformStruct.of('gather', 'GatherParams');
    const gatherParams = createUniform(device, 'raster.gatherParams', gather.size);
    device.queue.writeBuffer(gatherParams, 0, gather.pack({ visible_index: COUNT.visible, isect_capacity: M, clamped_index: COUNT.clamped }));
    frame.buffers.push(intersectParams, gatherParams);

    const counts = { buffer: frame.counts, index: 0 };
    frame.scans = {
      visible: this.scan.createPlan(N, b.visible, b.visibleOffset, { ...counts, index: COUNT.splats }, COUNT.visible),
      isect: this.scan.createPlan(V, b.sortedCount, b.isectOffset, { ...counts, index: COUNT.visible }, COUNT.intersections),
    };
    const tileBits = Math.max(1, Math.ceil(Math.log2(T + 1)));
    frame.sorts = {
      depth: await this.sort.createPlan(V, b.depthKeys, b.depthVals, { ...counts, index: COUNT.visible }, 32),
      tile: await this.sort.createPlan(M, b.isectKeys, b.isectVals, { ...counts, index: COUNT.clamped }, tileBits),
    };
    const order = frame.sorts.depth.resultVals;
    const sortedKeys = frame.sorts.tile.resultKeys;
    const sortedVals = frame.sorts.tile.resultVals;
    const p = this.pipelines;
    const cam = frame.camera;
    const s = splats;
    frame.groups = {
      projectForward: bindGroup(device, p.projectForward, { 0: cam, 1: frame.counts, 2: s.means, 3: s.logScales, 4: s.quats, 5: s.opacityLogits, 6: s.sh, 7: b.xy, 8: b.conicOpacity, 9: b.colorDepth, 10: b.tileCount, 11: b.tileRect, 12: b.visible, 22: b.normal }),
      visibleArgs: bindGroup(device, p.visibleArgs, { 1: intersectParams, 2: frame.counts, 34: dispatchArgs }),
      finishCount: bindGroup(device, p.finishCount, { 1: intersectParams, 2: frame.counts, 34: dispatchArgs }),
      compactVisible: bindGroup(device, p.compactVisible, { 1: intersectParams, 2: frame.counts, 4: b.visible, 5: b.visibleOffset, 6: b.colorDepth, 7: b.depthKeys, 8: b.depthVals }),
      gatherSorted: bindGroup(device, p.gatherSorted, { 1: intersectParams, 2: frame.counts, 9: order, 10: b.xy, 11: b.conicOpacity, 12: b.tileCount, 13: b.tileRect, 14: b.sortedXy, 15: b.sortedConicOpacity, 16: b.sortedColorDepth, 17: b.sortedCount, 18: b.sortedRect, 33: b.rankOfSplat, 6: b.colorDepth, 37: b.normal, 38: b.sortedNormal }),
      emit: bindGroup(device, p.emit, { 0: cam, 1: intersectParams, 2: frame.counts, 19: b.sortedXy, 20: b.sortedConicOpacity, 21: b.sortedRect, 22: b.isectOffset, 23: b.isectKeys, 24: b.isectVals, 25: b.isectRank, 26: b.sortedCount }),
      resolve: bindGroup(device, p.resolve, { 0: cam, 1: intersectParams, 2: frame.counts, 27: sortedKeys, 28: sortedVals, 29: b.isectRank, 30: b.sortedRank, 39: b.sortedEmit, 31: b.tileRanges, 32: b.grads0, 35: b.grads1, 36: b.grads2 }),
      rasterForward: bindGroup(device, p.rasterForward, { 0: cam, 1: b.tileRanges, 2: b.sortedRank, 3: b.sortedXy, 4: b.sortedConicOpacity, 5: b.sortedColorDepth, 6: frame.image, 7: frame.depth, 8: frame.state, 18: b.sortedNormal, 19: frame.normals, 20: frame.geometry, 14: b.sortedEmit, 25: b.isectWeights }),
      // set by bindBackward
      rasterBackward: undefined as unknown as GPUBindGroup,
      gatherGrads: p.gatherGrads && bindGroup(device, p.gatherGrads, { 0: gatherParams, 1: frame.counts, 4: b.grads0, 6: b.grads1, 7: b.grads2, 8: b.grads3, 5: b.v2d, 12: b.isectRank, 13: b.gatherCarries }),
      gatherCarries: p.gatherCarries && bindGroup(device, p.gatherCarries, { 0: gatherParams, 1: frame.counts, 2: b.isectOffset, 3: b.sortedCount, 5: b.v2d, 13: b.gatherCarries }),
      projectBackward: undefined as unknown as GPUBindGroup,
    };
    if (p.gatherWeights) frame.groups.gatherWeights = bindGroup(device, p.gatherWeights, { 0: gatherParams, 1: frame.counts, 2: b.isectOffset, 3: b.sortedCount, 9: order, 10: b.isectWeights, 11: frame.splatWeights });
    return frame;
  }

  /**
   * Binds the backward: its inputs are the frame's `pixelGrads` (dL/d image, written by the loss;
   * dL/d the other outputs and the normals, zero unless the geometry loss writes them), its
   * outputs `grads`.
   */
  bindBackward(frame: RasterFrame, grads: GpuSplatGrads): void {
    const { device } = this.ctx;
    const p = this.backwardPipelines('bindBackward');
    const b = frame.internal;
    const s = frame.splats;
    const v = frame.pixelGrads!;
    // The backward entry points use different subsets (the 'cas' one has no optional outputs):
    // bindGroup binds what the chosen one uses.
    frame.groups.rasterBackward = bindGroup(device, p.rasterBackward, {
      0: frame.camera, 1: b.tileRanges, 2: b.sortedRank, 3: b.sortedXy, 4: b.sortedConicOpacity, 5: b.sortedColorDepth,
      10: frame.state, 12: v.image, 13: v.aux, 14: b.sortedEmit, 15: b.grads0, 16: b.grads1, 17: b.grads2,
      18: b.sortedNormal, 21: frame.geometry, 23: v.normals, 24: b.grads3,
    });
    frame.groups.projectBackward = bindGroup(device, p.projectBackward, {
      0: frame.camera, 1: frame.counts, 2: s.means, 3: s.logScales, 4: s.quats, 5: s.opacityLogits, 6: s.sh,
      13: b.rankOfSplat, 14: b.v2d, 15: grads.means, 16: grads.logScales, 17: grads.quats, 18: grads.opacityLogits, 19: grads.sh, 20: grads.mean2d, 21: b.visible,
      23: frame.cameraGradPartials,
    });
  }

  private perSplat(commands: GpuCommands, pipeline: CompiledPipeline, group: GPUBindGroup, count: number) {
    const groups = Math.ceil(count / this.workgroupSize);
    const limit = this.ctx.device.limits.maxComputeWorkgroupsPerDimension;
    const x = Math.min(groups, limit);
    commands.dispatch(pipeline, [group], x, Math.ceil(groups / x));
  }

  /** Writes the camera and records the forward. */
  encodeForward(commands: GpuCommands, frame: RasterFrame, camera: PinholeCamera, settings: RenderSettings): void {
    this.encodeIntersectionCount(commands, frame, camera, settings);
    const p = this.pipelines;
    const g = frame.groups;
    commands.dispatchIndirect(p.emit, [g.emit], frame.dispatchArgs, 0);
    this.sort.encode(commands, frame.sorts.tile);
    commands.clearBuffer(frame.internal.tileRanges);
    commands.dispatchIndirect(p.resolve, [g.resolve], frame.dispatchArgs, 16);
    const tiles = tileCounts(camera);
    frame.activeTiles = tiles;
    if (p.gatherWeights) commands.clearBuffer(frame.internal.isectWeights);
    commands.dispatch(p.rasterForward, [g.rasterForward], tiles.x, tiles.y);
    if (p.gatherWeights && g.gatherWeights) {
      commands.clearBuffer(frame.splatWeights);
      commands.dispatchIndirect(p.gatherWeights, [g.gatherWeights], frame.dispatchArgs, 0);
    }
  }

  /**
   * The forward up to the intersection count (projection, depth order, per-splat tile counts and
   * their scan): frame.counts then holds the intersections the view needs, as after encodeForward.
   * Sizing the buffers needs no more (Trainer.sizeIntersections skips the tile sort and the raster).
   */
  encodeIntersectionCount(commands: GpuCommands, frame: RasterFrame, camera: PinholeCamera, settings: RenderSettings): void {
    // A frame serves every image up to its size (datasets whose images differ by a few pixels).
    if (camera.width > frame.width || camera.height > frame.height) throw new Error(`camera is ${camera.width}x${camera.height}, larger than the frame's ${frame.width}x${frame.height}`);
    if (settings.shDegree > frame.splats.shDegree) throw new Error(`active SH degree ${settings.shDegree} > stored degree ${frame.splats.shDegree}`);
    const { device } = this.ctx;
    device.queue.writeBuffer(frame.camera, 0, packCameraUniform(camera, settings, frame.splats.shCoeffs, COUNT.splats, frame.splats.capacity));
    const p = this.pipelines;
    const g = frame.groups;
    const N = frame.capacity;
    commands.copyBuffer(frame.splats.countBuffer, 0, frame.counts, COUNT.splats * 4, 4);
    this.perSplat(commands, p.projectForward, g.projectForward, N);
    this.scan.encode(commands, frame.scans.visible);
    commands.dispatch(p.visibleArgs, [g.visibleArgs], 1);
    this.perSplat(commands, p.compactVisible, g.compactVisible, N);
    this.sort.encode(commands, frame.sorts.depth);
    commands.dispatchIndirect(p.gatherSorted, [g.gatherSorted], frame.dispatchArgs, 0);
    this.scan.encode(commands, frame.scans.isect);
    commands.dispatch(p.finishCount, [g.finishCount], 1);
  }

  /** Records the backward (after encodeForward of the same frame; bindBackward first). */
  encodeBackward(commands: GpuCommands, frame: RasterFrame): void {
    const p = this.backwardPipelines('encodeBackward');
    const g = frame.groups;
    if (!g.rasterBackward || !g.gatherGrads || !g.gatherCarries) throw new Error('encodeBackward: call bindBackward first');
    commands.dispatch(p.rasterBackward, [g.rasterBackward], frame.activeTiles.x, frame.activeTiles.y);
    commands.dispatchIndirect(p.gatherGrads, [g.gatherGrads], frame.dispatchArgs, 32);
    commands.dispatchIndirect(p.gatherCarries, [g.gatherCarries], frame.dispatchArgs, 0);
    this.perSplat(commands, p.projectBackward, g.projectBackward, frame.capacity);
  }

  private backwardPipelines(caller: string): Required<Pick<Pipelines, 'rasterBackward' | 'gatherGrads' | 'gatherCarries' | 'projectBackward'>> {
    const { rasterBackward, gatherGrads, gatherCarries, projectBackward } = this.pipelines;
    if (!rasterBackward || !gatherGrads || !gatherCarries || !projectBackward) throw new Error(`${caller}: this rasterizer was created with passes 'forward' (no backward pipelines)`);
    return { rasterBackward, gatherGrads, gatherCarries, projectBackward };
  }

  /** Reads the frame's counters (a sync point: tests, benchmarks, sizing; never inside a training step). */
  async readCounts(frame: RasterFrame): Promise<{ splats: number; visible: number; visibleNeeded: number; intersections: number; overflow: boolean }> {
    const c = new Uint32Array(await readBuffer(this.ctx.device, frame.counts, 32));
    return { splats: c[COUNT.splats], visible: c[COUNT.visible], visibleNeeded: c[COUNT.visibleNeeded], intersections: c[COUNT.intersections], overflow: c[COUNT.overflow] !== 0 };
  }
}
