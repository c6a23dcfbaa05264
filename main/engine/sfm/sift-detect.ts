/**
 * Scale-space extrema on the GPU (kernels/sift-detect.wgsl), one dispatch per octave, all into one
 * list through one atomic counter (each keypoint names its octave). The order atomics give changes
 * from run to run, so the host sorts the list by (octave, yi, xi, si) and keeps one keypoint per
 * final sample (two extrema can refine to the same one): the result is reproducible. A list that
 * overflows its capacity is grown and every octave detected again, so nothing is dropped by
 * chance. The counter and the list's first `expected` keypoints come back in one read-back (the
 * caller's guess, e.g. the previous frame's count); only a longer list needs a second one.
 */
import { bindGroup, createStorage, createUniform, readBuffer } from '../gpu/buffers.js';
import type { GpuContext } from '../gpu/context.js';
import type { CompiledPipeline, KernelVariant } from '../gpu/kernels.js';
import { UniformStruct } from '../gpu/uniforms.js';
import type { SiftPyramid } from './sift-pyramid.js';
import { DETECT_BORDER, PRE_THRESHOLD_FRACTION, REFINE_MAX_OFFSET, type SiftOptions } from './sift-options.js';

const KEYPOINT_BYTES = 32;
const TILE = 16;
/** Keypoints read back with the counter when the caller has no better guess. */
export const EXPECTED_KEYPOINTS = 8192;

/** Host ms by section of one image's extraction (ExtractionStages.timings.host: benchmarks). */
export type HostTimes = Record<string, number>;

/** Runs `run`, adding its host ms to `host[name]`. */
export function timeHost<T>(host: HostTimes | undefined, name: string, run: () => T): T {
  if (!host) return run();
  const started = performance.now();
  try {
    return run();
  } finally {
    host[name] = (host[name] ?? 0) + performance.now() - started;
  }
}

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

/** List slots an octave adds: one per 64 samples, at least 1024 (photos use a tenth of it). */
export function initialCapacity(width: number, height: number, options: SiftOptions): number {
  return Math.max(1024, Math.ceil((width * height * options.scalesPerOctave) / 64));
}

export interface Detection {
  /** Sorted, one per final sample. */
  keypoints: DetectedKeypoint[];
  /** Extrema the kernel listed (before one per sample was kept): a guess for the next image's `expected`. */
  listed: number;
}

/**
 * `capacity`: the list slots per octave (tests make it tiny to take the overflow path);
 * `expected`: keypoints to read back with the counter (tests make it tiny to take the second read-back).
 */
export async function detectKeypoints(ctx: GpuContext, pipeline: CompiledPipeline, pyramid: SiftPyramid, options: SiftOptions, capacity = initialCapacity, expected = EXPECTED_KEYPOINTS, host?: HostTimes): Promise<Detection> {
  const slots = pyramid.octaves.reduce((sum, o) => sum + capacity(o.width, o.height, options), 0);
  let list = await detectAll(ctx, pipeline, pyramid, options, slots, expected, host);
  // overflowing: again, at the capacity it needed (rare: a noise image)
  if (list.count > slots) list = await detectAll(ctx, pipeline, pyramid, options, list.count, list.count, host);
  return { keypoints: timeHost(host, 'detect.sort', () => sortUnique(list.keypoints)), listed: list.count };
}

async function detectAll(ctx: GpuContext, pipeline: CompiledPipeline, pyramid: SiftPyramid, options: SiftOptions, capacity: number, expected: number, host?: HostTimes): Promise<{ count: number; keypoints: DetectedKeypoint[] }> {
  const { device } = ctx;
  const struct = UniformStruct.of('sift-detect', 'DetectParams');
  const owned: GPUBuffer[] = [];
  const own = (b: GPUBuffer) => (owned.push(b), b);
  try {
    const keypoints = own(createStorage(device, 'sift.keypoints', capacity * KEYPOINT_BYTES));
    const counter = own(createStorage(device, 'sift.keypoints.count', 16));
    const commands = ctx.commands('sift.detect');
    commands.clearBuffer(counter);
    for (const o of pyramid.octaves) {
      const params = own(createUniform(device, 'sift.detect.params', struct.size));
      device.queue.writeBuffer(params, 0, struct.pack({
        width: o.width, height: o.height, levels: options.scalesPerOctave, border: DETECT_BORDER,
        peak_threshold: options.peakThreshold, pre_threshold: PRE_THRESHOLD_FRACTION * options.peakThreshold,
        edge_ratio: options.edgeThreshold, max_offset: REFINE_MAX_OFFSET, capacity, octave: o.index,
      }));
      commands.dispatch(pipeline, [bindGroup(device, pipeline, { 0: params, 1: o.dog, 2: keypoints, 3: counter })], Math.ceil(o.width / TILE), Math.ceil(o.height / TILE));
    }
    // the counter and the list's head side by side: one read-back when the list fits the guess
    const head = Math.max(1, Math.min(capacity, expected));
    const first = own(createStorage(device, 'sift.keypoints.head', 16 + head * KEYPOINT_BYTES));
    commands.copyBuffer(counter, 0, first, 0, 16);
    commands.copyBuffer(keypoints, 0, first, 16, head * KEYPOINT_BYTES);
    await commands.submit();
    const raw = await readBuffer(device, first, 16 + head * KEYPOINT_BYTES);
    const count = new Uint32Array(raw, 0, 1)[0];
    const stored = Math.min(count, capacity);
    const listed = timeHost(host, 'detect.unpack', () => unpackKeypoints(raw.slice(16, 16 + Math.min(stored, head) * KEYPOINT_BYTES), Math.min(stored, head)));
    if (stored > head) for (const k of unpackKeypoints(await readBuffer(device, keypoints, (stored - head) * KEYPOINT_BYTES, head * KEYPOINT_BYTES), stored - head)) listed.push(k);
    return { count, keypoints: listed };
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
