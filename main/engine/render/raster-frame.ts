/**
 * A frame of the rasterizer: every buffer and bind group one (splat set, image size,
 * intersection capacity) needs, and the names the kernels and callers share for them
 * (`COUNT`, `FrameBuffers`). Rasterizer.createFrame fills it; rasterizer.ts encodes it.
 */
import { GpuArena, type ArenaKindName, type ArenaMember } from '../gpu/arena.js';
import { createStorage, createUniform, type GpuRegion } from '../gpu/buffers.js';
import type { GpuContext } from '../gpu/context.js';
import type { CompiledPipeline } from '../gpu/kernels.js';
import type { SortPlan } from '../gpu/primitives/radix-sort.js';
import type { ScanPlan } from '../gpu/primitives/scan.js';
import { cameraStruct, tileCounts } from './camera-uniform.js';
import type { GpuSplats } from './gpu-splats.js';

export interface RasterOutputs {
  median?: boolean;
  normals?: boolean;
  distortion?: boolean;
  /** Per splat (sum over pixels of its blending weight w, max w): `RasterFrame.splatWeights`. Not differentiated. */
  weights?: boolean;
}

/** A frame's own buffers (buffers) and arena regions, by what they hold. */
export interface FrameBuffers {
  xy: GpuRegion; conicOpacity: GpuRegion; colorDepth: GpuRegion; normal: GpuRegion; tileCount: GPUBuffer; tileRect: GpuRegion;
  visible: GPUBuffer; visibleOffset: GPUBuffer; depthKeys: GPUBuffer; depthVals: GPUBuffer;
  sortedXy: GpuRegion; sortedConicOpacity: GpuRegion; sortedColorDepth: GpuRegion; sortedNormal: GpuRegion; sortedCount: GpuRegion; sortedRect: GpuRegion; rankOfSplat: GpuRegion;
  isectOffset: GPUBuffer; isectKeys: GPUBuffer; isectVals: GPUBuffer; isectRank: GPUBuffer; sortedRank: GpuRegion; sortedEmit: GpuRegion; tileRanges: GPUBuffer;
  grads0: GpuRegion; grads1: GpuRegion; grads2: GpuRegion; grads3: GpuRegion; v2d: GPUBuffer; gatherCarries: GPUBuffer; isectWeights: GPUBuffer;
}

/**
 * Indices into a frame's `counts` buffer (see kernels/intersect.wgsl): `visible` is the count the
 * frame ranked (at most its visibleCapacity), `visibleNeeded` the view's visible splats.
 */
export const COUNT = { splats: 0, visible: 1, intersections: 2, overflow: 3, clamped: 4, visibleNeeded: 5 } as const;

/** The rasterizer's compiled pipelines (the backward's absent with passes 'forward'). */
export interface Pipelines {
  visibleArgs: CompiledPipeline;
  projectForward: CompiledPipeline;
  projectBackward?: CompiledPipeline;
  finishCount: CompiledPipeline;
  compactVisible: CompiledPipeline;
  gatherSorted: CompiledPipeline;
  emit: CompiledPipeline;
  resolve: CompiledPipeline;
  rasterForward: CompiledPipeline;
  rasterBackward?: CompiledPipeline;
  gatherGrads?: CompiledPipeline;
  gatherCarries?: CompiledPipeline;
  gatherWeights?: CompiledPipeline;
}

/**
 * Every buffer and bind group one (splat set, image size, intersection capacity) needs; made
 * once and reused every frame, so encoding a frame only writes the camera and records dispatches.
 */
export class RasterFrame {
  readonly width: number;
  readonly height: number;
  readonly tiles: { x: number; y: number; total: number };
  /** Tiles of the camera last encoded (<= tiles). */
  activeTiles: { x: number; y: number; total: number };
  readonly capacity: number;
  readonly isectCapacity: number;
  /**
   * Visible splats the depth-ranked arrays hold (<= capacity): a view with more renders the first
   * this many by index and counts the rest in COUNT.visibleNeeded (kernels/intersect.wgsl).
   */
  readonly visibleCapacity: number;
  /** Arenas (gpu/arena.ts): the per-pixel outputs and, from createFrame, the per-splat and per-intersection data. */
  readonly arenas: GpuArena[] = [];
  // outputs
  readonly image: GpuRegion; // vec4 per pixel: rgb, alpha
  readonly depth: GPUBuffer; // f32 per pixel: sum of w z
  /** Per pixel (final transmittance bits, 1 + last composited list index): the backward's state. */
  readonly state: GPUBuffer;
  readonly counts: GPUBuffer;
  readonly buffers: GPUBuffer[] = [];
  readonly camera: GPUBuffer;
  groups!: Record<Exclude<keyof Pipelines, 'gatherWeights' | 'gatherGrads' | 'gatherCarries'>, GPUBindGroup> & { gatherWeights?: GPUBindGroup; gatherGrads?: GPUBindGroup; gatherCarries?: GPUBindGroup };
  scans!: { visible: ScanPlan; isect: ScanPlan };
  sorts!: { depth: SortPlan; tile: SortPlan };
  /** Rendered normals (vec4 per pixel) with outputs.normals; a placeholder otherwise. */
  readonly normals: GpuRegion;
  /** (median depth, distortion, median slot, depth) per pixel with outputs.median/distortion. */
  readonly geometry: GpuRegion;
  /**
   * The backward's inputs, vec4 per pixel, zero until written: dL/d image (the loss writes it),
   * dL/d (depth, median depth, distortion, 0) and dL/d normals (the geometry loss). One arena, so
   * a device with few storage bindings binds them as one. Absent for a forward-only rasterizer.
   */
  pixelGrads?: Record<ArenaMember<'pixel_grads'>, GpuRegion>;
  /** vec2 per splat (capacity): (sum over pixels of w, max w) with outputs.weights; 0 for splats not visible. */
  splatWeights!: GPUBuffer;
  /** Three vec4 per splat (capacity) with cameraGrads: its share of dL/d(camera) (kernels/project.wgsl); a placeholder otherwise. */
  cameraGradPartials!: GPUBuffer;

  /** A new arena owned (and destroyed) by this frame. */
  arena<K extends ArenaKindName>(kind: K, label: string, bytes: Readonly<Record<ArenaMember<K>, number>>): Record<ArenaMember<K>, GpuRegion> {
    const arena = new GpuArena(this.ctx.device, kind, `raster.${label}`, bytes);
    this.arenas.push(arena);
    return arena.regions;
  }

  /** Indirect dispatch arguments written on the GPU (bytes): [0] per visible splat, [16] per intersection, [32] per gather chunk. */
  dispatchArgs!: GPUBuffer;
  /** GPU bytes this frame holds per splat of capacity, per intersection of capacity, per pixel. */
  bytes = { perSplat: 0, perIntersection: 0, perPixel: 0 };
  /** Buffers the backward needs that callers may bind (v2d etc.). */
  internal!: FrameBuffers;

  constructor(readonly ctx: GpuContext, readonly splats: GpuSplats, width: number, height: number, isectCapacity: number, visibleCapacity: number, outputs: Required<RasterOutputs>) {
    this.width = width;
    this.height = height;
    this.tiles = tileCounts({ width, height });
    this.activeTiles = this.tiles;
    this.capacity = splats.capacity;
    this.isectCapacity = isectCapacity;
    this.visibleCapacity = Math.max(1, Math.min(splats.capacity, Math.ceil(visibleCapacity)));
    const { device } = ctx;
    const pixels = width * height;
    const own = (label: string, bytes: number, usage = 0) => {
      const b = createStorage(device, `raster.${label}`, bytes, usage);
      this.buffers.push(b);
      return b;
    };
    const geometryOn = outputs.median || outputs.distortion;
    ({ image: this.image, normals: this.normals, geometry: this.geometry } = this.arena('pixels', 'pixels', { image: pixels * 16, normals: outputs.normals ? pixels * 16 : 0, geometry: geometryOn ? pixels * 16 : 0 }));
    this.depth = own('depth', pixels * 4);
    this.state = own('state', pixels * 8);
    this.counts = own('counts', 32);
    this.camera = createUniform(device, 'raster.camera', cameraStruct().size);
    this.buffers.push(this.camera);
  }

  destroy(): void {
    this.scans?.visible.destroy();
    this.scans?.isect.destroy();
    this.sorts?.depth.destroy();
    this.sorts?.tile.destroy();
    for (const b of this.buffers) b.destroy();
    for (const a of this.arenas) a.destroy();
  }
}
