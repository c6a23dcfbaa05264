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
 * Detection for many images: the list, its counter, the uniforms, the bind groups and the mappable
 * read-back buffer are kept from image to image (rebuilt for another pyramid, grown never shrunk),
 * so a frame of a clip creates no GPU object. One submit holds the dispatches and the copies of
 * the counter and the list's head into the read-back buffer.
 */
export class KeypointDetector {
  private list: GPUBuffer | undefined;
  private listSlots = 0;
  private readonly counter: GPUBuffer;
  private readback: GPUBuffer | undefined;
  private readbackBytes = 0;
  /** Uniforms and bind groups of one pyramid at one list capacity. */
  private plan: { pyramid: SiftPyramid; capacity: number; list: GPUBuffer; params: GPUBuffer[]; groups: GPUBindGroup[] } | undefined;

  constructor(
    private readonly ctx: GpuContext,
    private readonly pipeline: CompiledPipeline,
  ) {
    this.counter = createStorage(ctx.device, 'sift.keypoints.count', 16);
  }

  /**
   * `capacity`: the list slots per octave (tests make it tiny to take the overflow path);
   * `expected`: keypoints to read back with the counter (tests make it tiny to take the second read-back).
   */
  async detect(pyramid: SiftPyramid, options: SiftOptions, capacity = initialCapacity, expected = EXPECTED_KEYPOINTS, host?: HostTimes): Promise<Detection> {
    const slots = pyramid.octaves.reduce((sum, o) => sum + capacity(o.width, o.height, options), 0);
    let list = await this.detectAll(pyramid, options, slots, expected, host);
    // overflowing: again, at the capacity it needed (rare: a noise image)
    if (list.count > slots) list = await this.detectAll(pyramid, options, list.count, list.count, host);
    return { keypoints: timeHost(host, 'detect.sort', () => sortUnique(list.keypoints)), listed: list.count };
  }

  private async detectAll(pyramid: SiftPyramid, options: SiftOptions, capacity: number, expected: number, host?: HostTimes): Promise<{ count: number; keypoints: DetectedKeypoint[] }> {
    const { device } = this.ctx;
    const plan = timeHost(host, 'detect.plan', () => this.planFor(pyramid, options, capacity));
    const head = Math.max(1, Math.min(capacity, expected));
    const readback = this.readbackOf(16 + head * KEYPOINT_BYTES);
    const commands = this.ctx.commands('sift.detect');
    commands.clearBuffer(this.counter);
    pyramid.octaves.forEach((o, i) => commands.dispatch(this.pipeline, [plan.groups[i]], Math.ceil(o.width / TILE), Math.ceil(o.height / TILE)));
    // the counter and the list's head side by side: one read-back when the list fits the guess
    commands.copyBuffer(this.counter, 0, readback, 0, 16);
    commands.copyBuffer(plan.list, 0, readback, 16, head * KEYPOINT_BYTES);
    await commands.submit();
    await readback.mapAsync(GPUMapMode.READ, 0, 16 + head * KEYPOINT_BYTES);
    const raw = readback.getMappedRange(0, 16 + head * KEYPOINT_BYTES).slice(0);
    readback.unmap();
    const count = new Uint32Array(raw, 0, 1)[0];
    const stored = Math.min(count, capacity);
    const listed = timeHost(host, 'detect.unpack', () => unpackKeypoints(raw.slice(16, 16 + Math.min(stored, head) * KEYPOINT_BYTES), Math.min(stored, head)));
    if (stored > head) for (const k of unpackKeypoints(await readBuffer(device, plan.list, (stored - head) * KEYPOINT_BYTES, head * KEYPOINT_BYTES), stored - head)) listed.push(k);
    return { count, keypoints: listed };
  }

  private planFor(pyramid: SiftPyramid, options: SiftOptions, capacity: number) {
    const { device } = this.ctx;
    if (this.plan && this.plan.pyramid === pyramid && this.plan.capacity === capacity) return this.plan;
    if (!this.list || this.listSlots < capacity) {
      this.list?.destroy();
      this.list = createStorage(device, 'sift.keypoints', capacity * KEYPOINT_BYTES);
      this.listSlots = capacity;
    }
    const struct = UniformStruct.of('sift-detect', 'DetectParams');
    for (const b of this.plan?.params ?? []) b.destroy();
    const params = pyramid.octaves.map((o) => {
      const buffer = createUniform(device, 'sift.detect.params', struct.size);
      device.queue.writeBuffer(buffer, 0, struct.pack({
        width: o.width, height: o.height, levels: options.scalesPerOctave, border: DETECT_BORDER,
        peak_threshold: options.peakThreshold, pre_threshold: PRE_THRESHOLD_FRACTION * options.peakThreshold,
        edge_ratio: options.edgeThreshold, max_offset: REFINE_MAX_OFFSET, capacity, octave: o.index,
      }));
      return buffer;
    });
    const list = this.list;
    const groups = pyramid.octaves.map((o, i) => bindGroup(device, this.pipeline, { 0: params[i], 1: o.dog, 2: list, 3: this.counter }));
    this.plan = { pyramid, capacity, list, params, groups };
    return this.plan;
  }

  private readbackOf(bytes: number): GPUBuffer {
    if (!this.readback || this.readbackBytes < bytes) {
      this.readback?.destroy();
      this.readback = mappableBuffer(this.ctx.device, 'sift.keypoints.readback', bytes);
      this.readbackBytes = this.readback.size;
    }
    return this.readback;
  }

  destroy(): void {
    this.list?.destroy();
    this.counter.destroy();
    this.readback?.destroy();
    for (const b of this.plan?.params ?? []) b.destroy();
    this.plan = undefined;
  }
}

/** A buffer the GPU copies into and the host maps (a read-back kept across images). */
export function mappableBuffer(device: GPUDevice, label: string, bytes: number): GPUBuffer {
  return device.createBuffer({ label, size: Math.max(16, Math.ceil(bytes / 16) * 16), usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
}

/** One image's detection with a detector of its own (tests; SiftExtractor keeps one for all its images). */
export async function detectKeypoints(ctx: GpuContext, pipeline: CompiledPipeline, pyramid: SiftPyramid, options: SiftOptions, capacity = initialCapacity, expected = EXPECTED_KEYPOINTS, host?: HostTimes): Promise<Detection> {
  const detector = new KeypointDetector(ctx, pipeline);
  try {
    return await detector.detect(pyramid, options, capacity, expected, host);
  } finally {
    detector.destroy();
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
