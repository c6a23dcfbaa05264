/**
 * Orientations and descriptors on the GPU (kernels/sift-describe.wgsl): the kept keypoints,
 * grouped by octave, are uploaded once as sample points; `orient` fills max_orientations slots
 * per point (-1 where a point has fewer peaks), the host may drop slots (the feature budget),
 * `describe` fills 128 floats per remaining slot and `to_bytes` turns them into COLMAP's bytes
 * (a quarter of the floats' read-back, and no conversion on the host). Without a budget to apply
 * (no `keep`), all run in one submit with one read-back of the orientations and bytes; with one,
 * the orientations come back first.
 */
import { bindGroup, createStorage, createUniform, readBuffer } from '../gpu/buffers.js';
import type { GpuContext } from '../gpu/context.js';
import type { CompiledPipeline, KernelVariant } from '../gpu/kernels.js';
import { UniformStruct } from '../gpu/uniforms.js';
import type { SiftPyramid } from './sift-pyramid.js';
import { DESCRIPTOR_SIZE, levelSigma, type SiftOptions } from './sift-options.js';
import { mappableBuffer, timeHost, type DetectedKeypoint, type HostTimes } from './sift-detect.js';

const WORKGROUP = 64;

/** Where a keypoint's gradients are sampled: Gaussian level `level` of `octave`, octave units. */
export interface SamplePoint {
  octave: number;
  level: number;
  x: number;
  y: number;
  sigma: number;
}

export function samplePoint(k: DetectedKeypoint, options: SiftOptions): SamplePoint {
  return { octave: k.octave, level: k.si, x: k.x, y: k.y, sigma: levelSigma(k.s, options) };
}

export interface DescribePipelines {
  orient: CompiledPipeline;
  describe: CompiledPipeline;
  toBytes: CompiledPipeline;
}

export async function describePipelines(ctx: GpuContext, variant?: KernelVariant): Promise<DescribePipelines> {
  const [orient, describe, toBytes] = await ctx.kernels.preload(['orient', 'describe', 'to_bytes'].map((entryPoint) => ({ kernel: 'sift-describe', entryPoint, variant })));
  return { orient, describe, toBytes };
}

export interface Described {
  /** max_orientations per point: radians in [0, 2 pi), or -1 for an empty or dropped slot. */
  orientations: Float32Array;
  /** 128 per slot: min(255, round(512 v)) of the floats, made on the GPU; undefined content where the slot is -1. */
  bytes: Uint8Array;
  /**
   * 128 per slot (RootSIFT floats, L2 norm 1; undefined content where the slot is -1): read back
   * only when asked for (the parity tests), as they are 4x the bytes.
   */
  descriptors?: Float32Array;
}

/** A storage buffer of at least `bytes`, kept where it is large enough, else replaced (grown, never shrunk). */
interface Grown {
  buffer: GPUBuffer | undefined;
  bytes: number;
}

/**
 * Description for many images: the points, orientations, descriptors and the mappable read-back
 * buffer are kept from image to image and grown, never shrunk; one uniform per octave is
 * rewritten each image and the bind groups are made again only when a buffer they bind changed
 * (another pyramid, a grown buffer), so a frame of a clip creates no GPU object.
 */
export class KeypointDescriber {
  private readonly points: Grown = { buffer: undefined, bytes: 0 };
  private readonly orientations: Grown = { buffer: undefined, bytes: 0 };
  private readonly descriptors: Grown = { buffer: undefined, bytes: 0 };
  private readonly descriptorBytes: Grown = { buffer: undefined, bytes: 0 };
  private readback: GPUBuffer | undefined;
  private readonly params: GPUBuffer[] = [];
  /** Bind groups by octave, for the buffers of `boundTo`. */
  private groups: { orient: GPUBindGroup; describe: GPUBindGroup; toBytes: GPUBindGroup }[] = [];
  private boundTo: readonly (GPUBuffer | undefined)[] = [];

  constructor(
    private readonly ctx: GpuContext,
    private readonly pipelines: DescribePipelines,
  ) {}

  /**
   * `points` must be sorted by octave. `keep` sees the orientations and returns those to describe
   * (slots set to -1 are skipped); without it, all are described.
   */
  async describe(pyramid: SiftPyramid, points: readonly SamplePoint[], options: SiftOptions, keep?: (orientations: Float32Array) => Float32Array, host?: HostTimes, floats = false): Promise<Described> {
    const { device } = this.ctx;
    const M = options.maxOrientations;
    const slots = points.length * M;
    if (!points.length) return { orientations: new Float32Array(0), bytes: new Uint8Array(0), ...(floats ? { descriptors: new Float32Array(0) } : {}) };
    const packed = new ArrayBuffer(points.length * 16);
    const f = new Float32Array(packed);
    const u = new Uint32Array(packed);
    timeHost(host, 'describe.pack', () => {
      for (let i = 0; i < points.length; i++) {
        const p = points[i];
        if (i && p.octave < points[i - 1].octave) throw new Error('sift: describe points must be sorted by octave');
        const o = pyramid.octaves[p.octave];
        f[4 * i] = p.x;
        f[4 * i + 1] = p.y;
        f[4 * i + 2] = p.sigma;
        u[4 * i + 3] = p.level * o.width * o.height;
      }
    });
    const pointBuffer = this.grow(this.points, 'sift.points', packed.byteLength);
    device.queue.writeBuffer(pointBuffer, 0, packed);
    const orientations = this.grow(this.orientations, 'sift.orientations', slots * 4);
    const descriptors = this.grow(this.descriptors, 'sift.descriptors', slots * DESCRIPTOR_SIZE * 4);
    const descriptorBytes = this.grow(this.descriptorBytes, 'sift.descriptor.bytes', slots * DESCRIPTOR_SIZE);
    const bytes = slots * 4 + slots * DESCRIPTOR_SIZE + (floats ? slots * DESCRIPTOR_SIZE * 4 : 0);
    if (!this.readback || this.readback.size < bytes) {
      this.readback?.destroy();
      this.readback = mappableBuffer(device, 'sift.described.readback', bytes);
    }
    const readback = this.readback;
    const groups = this.groupsFor(pyramid);
    const struct = UniformStruct.of('sift-describe', 'DescribeParams');
    const runs: { octave: number; count: number }[] = [];
    for (let first = 0; first < points.length; ) {
      const octave = points[first].octave;
      let end = first;
      while (end < points.length && points[end].octave === octave) end++;
      const o = pyramid.octaves[octave];
      device.queue.writeBuffer(this.params[octave], 0, struct.pack({ width: o.width, height: o.height, first, count: end - first, max_orientations: M }));
      runs.push({ octave, count: end - first });
      first = end;
    }
    let commands = this.ctx.commands('sift.orient');
    for (const r of runs) commands.dispatch(this.pipelines.orient, [groups[r.octave].orient], Math.ceil(r.count / WORKGROUP));
    let angles: Float32Array | undefined;
    if (keep) {
      await commands.submit();
      angles = keep(new Float32Array(await readBuffer(device, orientations, slots * 4)));
      device.queue.writeBuffer(orientations, 0, angles);
      commands = this.ctx.commands('sift.describe');
    }
    for (const r of runs) commands.dispatch(this.pipelines.describe, [groups[r.octave].describe], Math.ceil((r.count * M) / WORKGROUP));
    for (const r of runs) commands.dispatch(this.pipelines.toBytes, [groups[r.octave].toBytes], Math.ceil((r.count * M * (DESCRIPTOR_SIZE / 4)) / WORKGROUP));
    // the outputs side by side, straight into the mappable buffer: one read-back
    commands.copyBuffer(orientations, 0, readback, 0, slots * 4);
    commands.copyBuffer(descriptorBytes, 0, readback, slots * 4, slots * DESCRIPTOR_SIZE);
    if (floats) commands.copyBuffer(descriptors, 0, readback, slots * 4 + slots * DESCRIPTOR_SIZE, slots * DESCRIPTOR_SIZE * 4);
    await commands.submit();
    await readback.mapAsync(GPUMapMode.READ, 0, bytes);
    const raw = readback.getMappedRange(0, bytes).slice(0);
    readback.unmap();
    return {
      orientations: angles ?? new Float32Array(raw, 0, slots),
      bytes: new Uint8Array(raw, slots * 4, slots * DESCRIPTOR_SIZE),
      ...(floats ? { descriptors: new Float32Array(raw, slots * 4 + slots * DESCRIPTOR_SIZE, slots * DESCRIPTOR_SIZE) } : {}),
    };
  }

  private grow(grown: Grown, label: string, bytes: number): GPUBuffer {
    if (!grown.buffer || grown.bytes < bytes) {
      grown.buffer?.destroy();
      grown.buffer = createStorage(this.ctx.device, label, bytes);
      grown.bytes = grown.buffer.size;
    }
    return grown.buffer;
  }

  /** Per octave its uniform and bind groups, made again only when a bound buffer changed. */
  private groupsFor(pyramid: SiftPyramid) {
    const { device } = this.ctx;
    const bound = [...pyramid.octaves.map((o) => o.gauss), this.points.buffer, this.orientations.buffer, this.descriptors.buffer, this.descriptorBytes.buffer];
    if (bound.length === this.boundTo.length && bound.every((b, i) => b === this.boundTo[i])) return this.groups;
    const struct = UniformStruct.of('sift-describe', 'DescribeParams');
    while (this.params.length < pyramid.octaves.length) this.params.push(createUniform(device, 'sift.describe.params', struct.size));
    const [points, orientations, descriptors, descriptorBytes] = [this.points.buffer!, this.orientations.buffer!, this.descriptors.buffer!, this.descriptorBytes.buffer!];
    this.groups = pyramid.octaves.map((o, i) => ({
      orient: bindGroup(device, this.pipelines.orient, { 0: this.params[i], 1: o.gauss, 2: points, 3: orientations }),
      describe: bindGroup(device, this.pipelines.describe, { 0: this.params[i], 1: o.gauss, 2: points, 4: orientations, 5: descriptors }),
      toBytes: bindGroup(device, this.pipelines.toBytes, { 0: this.params[i], 5: descriptors, 6: descriptorBytes }),
    }));
    this.boundTo = bound;
    return this.groups;
  }

  destroy(): void {
    for (const g of [this.points, this.orientations, this.descriptors, this.descriptorBytes]) g.buffer?.destroy();
    this.readback?.destroy();
    for (const b of this.params) b.destroy();
    this.groups = [];
    this.boundTo = [];
  }
}

/** One image's description with a describer of its own (SiftExtractor keeps one for all its images). */
export async function describeKeypoints(ctx: GpuContext, pipelines: DescribePipelines, pyramid: SiftPyramid, points: readonly SamplePoint[], options: SiftOptions, keep?: (orientations: Float32Array) => Float32Array, host?: HostTimes, floats = false): Promise<Described> {
  const describer = new KeypointDescriber(ctx, pipelines);
  try {
    return await describer.describe(pyramid, points, options, keep, host, floats);
  } finally {
    describer.destroy();
  }
}
