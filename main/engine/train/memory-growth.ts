/**
 * How far training may grow within the GPU memory budget (gpu/memory.ts): the trainer asks these
 * before it grows its capacity or its intersection buffers, and words the refusals. Pure numbers:
 * what the trainer's parts cost per splat and per intersection is measured from the parts it
 * has (their `bytes`), never declared twice.
 *
 * A resize allocates the new model (parameters, gradients, moments) while the old one lives, then
 * frees the old frame and densifier before building the new ones, so its peak is
 *   live + next * model + (next - capacity) * rebuilt + (nextIsect - isect) * perIntersection,
 * and afterwards a checkpoint or download reads the largest model region back through a staging
 * buffer of its size (the SH: `readbackPerSplat`): that must fit too.
 */
import { shCoefficientCount } from '../../../shared/scene/splats.js';
import { ARENA_KINDS, ELEMENT_BYTES } from '../gpu/arena-kinds.js';
import { formatBytes, type GpuMemory } from '../gpu/memory.js';

/** Bytes of the trainer's state, per splat of capacity and per intersection. */
export interface TrainingFootprint {
  /** Allocated anew by a resize while the old copy lives: parameters, gradients, moments. */
  modelPerSplat: number;
  /** Freed before they are rebuilt: the frame's per-splat working set and the densifier's state. */
  rebuiltPerSplat: number;
  perIntersection: number;
  /** The largest single readback of the model (its SH region), per splat of capacity. */
  readbackPerSplat: number;
}

/** What stays free for uniforms, staging and small buffers: 2% of the budget. */
const HEADROOM = 0.02;

/** The budget less the headroom kept for small allocations. */
function usable(memory: GpuMemory): number {
  return memory.budget.totalBytes * (1 - HEADROOM);
}

/** Bytes alive at the worst moment of a resize from `capacity` to `next` (with its intersections), and after it at a readback. */
export function resizePeakBytes(f: TrainingFootprint, live: number, capacity: number, next: number, isect: number, nextIsect: number): number {
  const grown = Math.max(0, next - capacity) * f.rebuiltPerSplat + Math.max(0, nextIsect - isect) * f.perIntersection;
  const during = live + next * f.modelPerSplat + grown;
  const after = live + (next - capacity) * f.modelPerSplat + grown + next * f.readbackPerSplat;
  return Math.max(during, after);
}

/**
 * The largest capacity in [capacity, wanted] whose resize fits the budget (intersections grow to
 * `isectFor(next)`); `capacity` when none does. Binary search: the peak only grows with `next`.
 */
export function fittingCapacity(f: TrainingFootprint, memory: GpuMemory, capacity: number, wanted: number, isect: number, isectFor: (next: number) => number): number {
  const budget = usable(memory);
  const fits = (next: number) => resizePeakBytes(f, memory.live, capacity, next, isect, Math.max(isect, isectFor(next))) <= budget;
  if (fits(wanted)) return wanted;
  let low = capacity;
  let high = wanted;
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (fits(mid)) low = mid;
    else high = mid;
  }
  return low;
}

/**
 * The most intersections a frame can bind: its widest per-intersection array is a member of the
 * isect_grads arena (one vec4f each), bound on its own (16 B: 134M under a 2 GiB limit).
 */
export function intersectionBindingLimit(maxBindingBytes: number): number {
  return Math.floor(maxBindingBytes / ELEMENT_BYTES[ARENA_KINDS.isect_grads.element]);
}

/**
 * The most splats of capacity whose widest per-splat array binds on its own: the SH (planar, 3
 * floats a coefficient: GpuSplats, its gradients and each of its moments). SH degree 3 under a
 * 2 GiB limit: 11,184,810.
 */
export function capacityBindingLimit(maxBindingBytes: number, shDegree: number): number {
  return Math.floor(maxBindingBytes / (shCoefficientCount(shDegree) * 12));
}

/** The largest intersection capacity in [isect, wanted] that fits (the old buffers are freed first). */
export function fittingIntersections(perIntersection: number, memory: GpuMemory, isect: number, wanted: number): number {
  if (perIntersection <= 0) return wanted;
  const room = Math.floor((usable(memory) - memory.live) / perIntersection);
  return Math.max(isect, Math.min(wanted, isect + room));
}

/** The most splats `capacity` holds with room for the next refine's growth (the largest n with hasRoom). */
export function splatsWithRoom(capacity: number, hasRoom: (count: number, capacity: number) => boolean): number {
  if (hasRoom(capacity, capacity)) return capacity;
  let low = 0;
  let high = capacity;
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (hasRoom(mid, capacity)) low = mid;
    else high = mid;
  }
  return low;
}

/** Training's growth stopped by GPU memory: the log line's and the Train view's banner's numbers. */
export interface MemoryCap {
  step: number;
  /** The splat count training now stays at or under (the capacity, or --max-splats below it). */
  splats: number;
  /** What it wanted to grow to (capacity) and had room for. */
  wantedCapacity: number;
  capacity: number;
  /** Bytes the wanted growth needed at its peak, and the budget (absent when unlimited: a driver refusal). */
  neededBytes: number;
  budgetBytes?: number;
  message: string;
}

/** What stopped a growth: the budget, the driver, or the device's binding limit (capacityBindingLimit). */
export type GrowthLimit = 'budget' | 'driver' | 'binding';

export function describeCap(cap: Omit<MemoryCap, 'message'>, refusedBy: GrowthLimit): string {
  const budget = cap.budgetBytes !== undefined ? `the GPU memory budget of ${formatBytes(cap.budgetBytes)}` : 'what the GPU could allocate';
  const why = refusedBy === 'driver' ? 'the driver refused the allocation' : refusedBy === 'binding' ? `${cap.wantedCapacity.toLocaleString('en-US')} splats of capacity would put their SH over the device's storage binding limit (maxStorageBufferBindingSize)` : `growing to ${cap.wantedCapacity.toLocaleString('en-US')} splats of capacity needs ${formatBytes(cap.neededBytes)}, over ${budget}`;
  return `GPU memory: splat growth stopped at step ${cap.step}, the splat count held at or under ${cap.splats.toLocaleString('en-US')} (capacity ${cap.capacity.toLocaleString('en-US')}): ${why}. Training goes on without growing; raise --gpu-memory-budget or lower --max-splats to silence this.`;
}
