/**
 * What the training state costs in GPU bytes, read from the buffers' sizes of the parts as built
 * (never declared twice): per splat of capacity by part, what `bench train` reports, and the
 * footprint the memory ledger grows by (memory-growth.ts).
 */
import type { RasterFrame } from '../render/rasterizer.js';
import type { DensifyStrategy } from './densify-strategy.js';
import type { TrainingFootprint } from './memory-growth.js';
import type { Model } from './model.js';

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

/** The state by part, per splat of capacity, from the buffers' sizes. */
export function stateBytesBreakdown(model: Model, densify: DensifyStrategy, frame: RasterFrame): StateBytesBreakdown {
  const n = model.splats.capacity;
  const bytes = model.bytesByPart;
  const moments = Object.fromEntries(Object.entries(bytes.moments).map(([name, part]) => [name, part / n])) as StateBytesBreakdown['moments'];
  return { params: bytes.params / n, grads: bytes.grads / n, moments, densifier: densify.bytes / n, frame: frame.bytes.perSplat };
}

/** The breakdown's parts summed: the state per splat of capacity. */
export function stateBytesTotal(b: StateBytesBreakdown): number {
  return b.params + b.grads + Object.values(b.moments).reduce((sum, x) => sum + x, 0) + b.densifier + b.frame;
}

/** What the state costs per splat of capacity and per intersection, as built now (memory-growth.ts). */
export function trainingFootprint(model: Model, densify: DensifyStrategy, frame: RasterFrame): TrainingFootprint {
  const n = model.splats.capacity;
  return { modelPerSplat: model.bytes / n, rebuiltPerSplat: densify.bytes / n + frame.bytes.perSplat, perIntersection: frame.bytes.perIntersection, readbackPerSplat: model.splats.sh.size / n };
}
