/**
 * Scale-space extrema on the GPU (kernels/sift-detect.wgsl), one dispatch per octave, each into
 * its own list through an atomic counter. The order atomics give changes from run to run, so the
 * host sorts each list by (octave, yi, xi, si) and keeps one keypoint per final sample (two
 * extrema can refine to the same one): the result is reproducible. A list that overflows its
 * capacity is grown and that octave detected again, so nothing is dropped by chance. All octaves
 * go in one submit with two read-backs (counts, then the lists), not two per octave.
 */
import { bindGroup, createStorage, createUniform, readBuffer } from '../gpu/buffers.js';
import type { GpuContext } from '../gpu/context.js';
import type { CompiledPipeline, KernelVariant } from '../gpu/kernels.js';
import { UniformStruct } from '../gpu/uniforms.js';
import type { SiftPyramid } from './sift-pyramid.js';
import { DETECT_BORDER, PRE_THRESHOLD_FRACTION, REFINE_MAX_OFFSET, type SiftOptions } from './sift-options.js';

const KEYPOINT_BYTES = 32;
const TILE = 16;

/** A refined extremum, octave units (tests/reference/sift.ts computes the same fields in float64). */
export interface DetectedKeypoint {
  octave: number;
  x: number;
  y: number;
  s: number;
  response: number;
  xi: number;
  yi: number;
  si: number;
}

export function detectPipeline(ctx: GpuContext, variant?: KernelVariant): Promise<CompiledPipeline> {
  return ctx.kernels.get({ kernel: 'sift-detect', entryPoint: 'detect_extrema', variant });
}

/** Keypoints an octave's list first holds: one per 64 samples, at least 1024 (photos use a tenth of it). */
export function initialCapacity(width: number, height: number, options: SiftOptions): number {
  return Math.max(1024, Math.ceil((width * height * options.scalesPerOctave) / 64));
}

/** `capacity`: the first list size of an octave (tests make it tiny to take the overflow path). */
export async function detectKeypoints(ctx: GpuContext, pipeline: CompiledPipeline, pyramid: SiftPyramid, options: SiftOptions, capacity = initialCapacity): Promise<DetectedKeypoint[]> {
  const capacities = pyramid.octaves.map((o) => capacity(o.width, o.height, options));
  let lists = await detectOctaves(ctx, pipeline, pyramid, options, pyramid.octaves.map((_, i) => i), capacities);
  // an overflowing octave again, at the capacity it needed (rare: a noise image)
  const overflowing = lists.filter((l) => l.count > l.capacity);
  if (overflowing.length) {
    const again = await detectOctaves(ctx, pipeline, pyramid, options, overflowing.map((l) => l.octave), overflowing.map((l) => l.count));
    lists = lists.map((l) => again.find((a) => a.octave === l.octave) ?? l);
  }
  return lists.flatMap((l) => sortUnique(l.keypoints));
}

/**
 * Detects in the given octaves in one submit: every octave's list and counter, the counters
 * copied side by side and read back at once, then the lists' used parts in one more read-back.
 */
async function detectOctaves(ctx: GpuContext, pipeline: CompiledPipeline, pyramid: SiftPyramid, options: SiftOptions, octaves: readonly number[], capacities: readonly number[]): Promise<{ octave: number; count: number; capacity: number; keypoints: DetectedKeypoint[] }[]> {
  const { device } = ctx;
  const struct = UniformStruct.of('sift-detect', 'DetectParams');
  const owned: GPUBuffer[] = [];
  const own = (b: GPUBuffer) => (owned.push(b), b);
  try {
    const counts = own(createStorage(device, 'sift.keypoints.counts', octaves.length * 4));
    const commands = ctx.commands('sift.detect');
    const lists = octaves.map((index, i) => {
      const o = pyramid.octaves[index];
      const capacity = capacities[i];
      const params = own(createUniform(device, 'sift.detect.params', struct.size));
      device.queue.writeBuffer(params, 0, struct.pack({
        width: o.width, height: o.height, levels: options.scalesPerOctave, border: DETECT_BORDER,
        peak_threshold: options.peakThreshold, pre_threshold: PRE_THRESHOLD_FRACTION * options.peakThreshold,
        edge_ratio: options.edgeThreshold, max_offset: REFINE_MAX_OFFSET, capacity, octave: o.index,
      }));
      const keypoints = own(createStorage(device, 'sift.keypoints', capacity * KEYPOINT_BYTES));
      const counter = own(createStorage(device, 'sift.keypoints.count', 16));
      commands.clearBuffer(counter);
      commands.dispatch(pipeline, [bindGroup(device, pipeline, { 0: params, 1: o.dog, 2: keypoints, 3: counter })], Math.ceil(o.width / TILE), Math.ceil(o.height / TILE));
      commands.copyBuffer(counter, 0, counts, 4 * i, 4);
      return { octave: index, capacity, keypoints };
    });
    await commands.submit();
    const found = new Uint32Array(await readBuffer(device, counts, octaves.length * 4));
    // the used part of every list, side by side in one buffer
    const stored = lists.map((l, i) => Math.min(found[i], l.capacity));
    const total = stored.reduce((a, b) => a + b, 0);
    const gathered = own(createStorage(device, 'sift.keypoints.gathered', Math.max(1, total) * KEYPOINT_BYTES));
    const copies = ctx.commands('sift.detect.gather');
    let at = 0;
    lists.forEach((l, i) => {
      if (stored[i]) copies.copyBuffer(l.keypoints, 0, gathered, at * KEYPOINT_BYTES, stored[i] * KEYPOINT_BYTES);
      at += stored[i];
    });
    await copies.submit();
    const raw = total ? await readBuffer(device, gathered, total * KEYPOINT_BYTES) : new ArrayBuffer(0);
    at = 0;
    return lists.map((l, i) => {
      const keypoints = unpackKeypoints(raw.slice(at * KEYPOINT_BYTES, (at + stored[i]) * KEYPOINT_BYTES), stored[i]);
      at += stored[i];
      return { octave: l.octave, count: found[i], capacity: l.capacity, keypoints };
    });
  } finally {
    for (const b of owned) b.destroy();
  }
}

function unpackKeypoints(raw: ArrayBuffer, count: number): DetectedKeypoint[] {
  const f = new Float32Array(raw);
  const u = new Uint32Array(raw);
  const out: DetectedKeypoint[] = [];
  for (let i = 0; i < count; i++) {
    const b = 8 * i;
    out.push({ x: f[b], y: f[b + 1], s: f[b + 2], response: f[b + 3], octave: u[b + 4], xi: u[b + 5], yi: u[b + 6], si: u[b + 7] });
  }
  return out;
}

/** Sorted by (octave, yi, xi, si); one per final sample (the first of equals in that order). */
export function sortUnique<K extends DetectedKeypoint>(keypoints: K[]): K[] {
  // equal samples refined from different starts carry the same values (the same fit at the same
  // sample), so which one is kept does not change the output
  const sorted = [...keypoints].sort((a, b) => a.octave - b.octave || a.yi - b.yi || a.xi - b.xi || a.si - b.si || a.x - b.x || a.y - b.y || a.s - b.s);
  return sorted.filter((k, i) => i === 0 || k.octave !== sorted[i - 1].octave || k.yi !== sorted[i - 1].yi || k.xi !== sorted[i - 1].xi || k.si !== sorted[i - 1].si);
}
