/**
 * Orientations and descriptors on the GPU (kernels/sift-describe.wgsl): the kept keypoints,
 * grouped by octave, are uploaded once as sample points; `orient` fills max_orientations slots
 * per point (-1 where a point has fewer peaks), the host may drop slots (the feature budget),
 * and `describe` fills 128 floats per remaining slot. Without a budget to apply (no `keep`), both
 * run in one submit with one read-back of both outputs; with one, the orientations come back first.
 */
import { bindGroup, createStorage, createUniform, readBuffer, uploadStorage } from '../gpu/buffers.js';
import type { GpuContext } from '../gpu/context.js';
import type { CompiledPipeline, KernelVariant } from '../gpu/kernels.js';
import { UniformStruct } from '../gpu/uniforms.js';
import type { SiftPyramid } from './sift-pyramid.js';
import { DESCRIPTOR_SIZE, levelSigma, type SiftOptions } from './sift-options.js';
import { timeHost, type DetectedKeypoint, type HostTimes } from './sift-detect.js';

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
}

export async function describePipelines(ctx: GpuContext, variant?: KernelVariant): Promise<DescribePipelines> {
  const [orient, describe] = await ctx.kernels.preload(['orient', 'describe'].map((entryPoint) => ({ kernel: 'sift-describe', entryPoint, variant })));
  return { orient, describe };
}

export interface Described {
  /** max_orientations per point: radians in [0, 2 pi), or -1 for an empty or dropped slot. */
  orientations: Float32Array;
  /** 128 per slot (RootSIFT floats, L2 norm 1); undefined content where the slot is -1. */
  descriptors: Float32Array;
}

/**
 * `points` must be sorted by octave. `keep` sees the orientations and returns those to describe
 * (slots set to -1 are skipped); without it, all are described.
 */
export async function describeKeypoints(ctx: GpuContext, pipelines: DescribePipelines, pyramid: SiftPyramid, points: readonly SamplePoint[], options: SiftOptions, keep?: (orientations: Float32Array) => Float32Array, host?: HostTimes): Promise<Described> {
  const { device } = ctx;
  const M = options.maxOrientations;
  const slots = points.length * M;
  if (!points.length) return { orientations: new Float32Array(0), descriptors: new Float32Array(0) };
  const packed = new ArrayBuffer(points.length * 16);
  const f = new Float32Array(packed);
  const u = new Uint32Array(packed);
  timeHost(host, 'describe.pack', () => points.forEach((p, i) => {
    if (i && p.octave < points[i - 1].octave) throw new Error('sift: describe points must be sorted by octave');
    const o = pyramid.octaves[p.octave];
    f.set([p.x, p.y, p.sigma], 4 * i);
    u[4 * i + 3] = p.level * o.width * o.height;
  }));
  const pointBuffer = uploadStorage(device, 'sift.points', f);
  const orientations = createStorage(device, 'sift.orientations', slots * 4);
  const descriptors = createStorage(device, 'sift.descriptors', slots * DESCRIPTOR_SIZE * 4);
  const struct = UniformStruct.of('sift-describe', 'DescribeParams');
  const owned: GPUBuffer[] = [pointBuffer, orientations, descriptors];
  const groups: { octave: number; first: number; count: number; params: GPUBuffer }[] = [];
  for (let first = 0; first < points.length; ) {
    const octave = points[first].octave;
    let end = first;
    while (end < points.length && points[end].octave === octave) end++;
    const o = pyramid.octaves[octave];
    const params = createUniform(device, 'sift.describe.params', struct.size);
    device.queue.writeBuffer(params, 0, struct.pack({ width: o.width, height: o.height, first, count: end - first, max_orientations: M }));
    owned.push(params);
    groups.push({ octave, first, count: end - first, params });
    first = end;
  }
  try {
    let commands = ctx.commands('sift.orient');
    const encodeOrient = () => {
      for (const g of groups) {
        const group = bindGroup(device, pipelines.orient, { 0: g.params, 1: pyramid.octaves[g.octave].gauss, 2: pointBuffer, 3: orientations });
        commands.dispatch(pipelines.orient, [group], Math.ceil(g.count / WORKGROUP));
      }
    };
    const encodeDescribe = () => {
      for (const g of groups) {
        const group = bindGroup(device, pipelines.describe, { 0: g.params, 1: pyramid.octaves[g.octave].gauss, 2: pointBuffer, 4: orientations, 5: descriptors });
        commands.dispatch(pipelines.describe, [group], Math.ceil((g.count * M) / WORKGROUP));
      }
    };
    encodeOrient();
    let angles: Float32Array | undefined;
    if (keep) {
      await commands.submit();
      angles = keep(new Float32Array(await readBuffer(device, orientations, slots * 4)));
      device.queue.writeBuffer(orientations, 0, angles);
      commands = ctx.commands('sift.describe');
    }
    encodeDescribe();
    // both outputs side by side: one read-back
    const both = createStorage(device, 'sift.described', slots * 4 + slots * DESCRIPTOR_SIZE * 4);
    owned.push(both);
    commands.copyBuffer(orientations, 0, both, 0, slots * 4);
    commands.copyBuffer(descriptors, 0, both, slots * 4, slots * DESCRIPTOR_SIZE * 4);
    await commands.submit();
    const raw = await readBuffer(device, both, slots * 4 + slots * DESCRIPTOR_SIZE * 4);
    return { orientations: angles ?? new Float32Array(raw, 0, slots), descriptors: new Float32Array(raw, slots * 4, slots * DESCRIPTOR_SIZE) };
  } finally {
    for (const b of owned) b.destroy();
  }
}
