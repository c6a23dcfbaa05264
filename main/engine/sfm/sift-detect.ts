/**
 * Scale-space extrema on the GPU (kernels/sift-detect.wgsl), one dispatch per octave, each into
 * its own list through an atomic counter. The order atomics give changes from run to run, so the
 * host sorts each list by (octave, yi, xi, si) and keeps one keypoint per final sample (two
 * extrema can refine to the same one): the result is reproducible. A list that overflows its
 * capacity is grown and that octave detected again, so nothing is dropped by chance.
 */
import { bindGroup, createStorage, createUniform, readBuffer } from '../gpu/buffers.js';
import type { GpuContext } from '../gpu/context.js';
import type { CompiledPipeline, KernelVariant } from '../gpu/kernels.js';
import { UniformStruct } from '../gpu/uniforms.js';
import type { SiftPyramid } from './sift-pyramid.js';
import { DETECT_BORDER, PRE_THRESHOLD_FRACTION, REFINE_MAX_OFFSET, type SiftOptions } from './sift-options.js';

const KEYPOINT_BYTES = 32;
const TILE = 16;

/** A refined extremum, octave units (the reference's ReferenceKeypoint has the same fields). */
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

export async function detectKeypoints(ctx: GpuContext, pipeline: CompiledPipeline, pyramid: SiftPyramid, options: SiftOptions): Promise<DetectedKeypoint[]> {
  const { device } = ctx;
  const struct = UniformStruct.of('sift-detect', 'DetectParams');
  const all: DetectedKeypoint[] = [];
  for (const o of pyramid.octaves) {
    let capacity = Math.max(1024, Math.ceil((o.width * o.height * options.scalesPerOctave) / 64));
    for (;;) {
      const params = createUniform(device, 'sift.detect.params', struct.size);
      device.queue.writeBuffer(params, 0, struct.pack({
        width: o.width, height: o.height, levels: options.scalesPerOctave, border: DETECT_BORDER,
        peak_threshold: options.peakThreshold, pre_threshold: PRE_THRESHOLD_FRACTION * options.peakThreshold,
        edge_ratio: options.edgeThreshold, max_offset: REFINE_MAX_OFFSET, capacity, octave: o.index,
      }));
      const keypoints = createStorage(device, 'sift.keypoints', capacity * KEYPOINT_BYTES);
      const counter = createStorage(device, 'sift.keypoints.count', 16);
      const commands = ctx.commands('sift.detect');
      commands.clearBuffer(counter);
      commands.dispatch(pipeline, [bindGroup(device, pipeline, { 0: params, 1: o.dog, 2: keypoints, 3: counter })], Math.ceil(o.width / TILE), Math.ceil(o.height / TILE), options.scalesPerOctave);
      await commands.submit();
      const count = new Uint32Array(await readBuffer(device, counter, 4))[0];
      if (count <= capacity) {
        const raw = count ? await readBuffer(device, keypoints, count * KEYPOINT_BYTES) : new ArrayBuffer(0);
        all.push(...sortUnique(unpackKeypoints(raw, count)));
      }
      for (const b of [params, keypoints, counter]) b.destroy();
      if (count <= capacity) break;
      capacity = count;
    }
  }
  return all;
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
