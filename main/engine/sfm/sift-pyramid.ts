/**
 * The Gaussian scale space and DoG of one image size on the GPU (kernels/sift-pyramid.wgsl): per
 * octave one buffer of its S + 3 Gaussian levels and one of its S + 2 differences, each difference
 * written by the column blur of the level above it (no pass of its own). Everything but
 * the input pixels is fixed by the size, so a plan's buffers, uniforms and bind groups are made
 * once and reused for every image of that size (a capture's frames share one).
 *
 * The blurs: one thread per run of 8 outputs from a window of inputs it loads once, with the radius
 * an override constant so the loops unroll into registers. Measured on llvmpipe (1000x656, first
 * octave 0, CPU time of the whole pyramid): 16x16 tiles staging a strip and its halo in workgroup
 * memory 1,500 ms; direct reads per tap 1,270 ms; the same with the radius constant 1,230 ms; runs
 * of 8 from a register window 380 ms. (On GPUs a run's window is read by neighbouring threads from
 * neighbouring addresses, which coalesces; the H200 numbers are still to measure.)
 */
import { ArgonautError } from '../../../shared/rpc/errors.js';
import { bindGroup, createStorage, createUniform, readBuffer, uploadStorage } from '../gpu/buffers.js';
import type { GpuCommands } from '../gpu/commands.js';
import type { GpuContext } from '../gpu/context.js';
import type { CompiledPipeline, KernelVariant } from '../gpu/kernels.js';
import { UniformStruct } from '../gpu/uniforms.js';
import { blurSigmas, gaussianKernel, MIN_OCTAVE_SIZE, octaveLayout, type OctaveLayout, type SiftOptions } from './sift-options.js';

const TILE = 16;

export interface PyramidPipelines {
  /** By radius (an override constant of the blurs). */
  blurRows: ReadonlyMap<number, CompiledPipeline>;
  blurColumns: ReadonlyMap<number, CompiledPipeline>;
  /** blurColumns that also writes the DoG level below (levels 1..S + 2). */
  blurColumnsDog: ReadonlyMap<number, CompiledPipeline>;
  downsample: CompiledPipeline;
}

/** Outputs per blur thread (kernels/sift-pyramid.wgsl RUN). */
const RUN = 8;
const BLUR_WORKGROUP = 64;

/** The blurs' radii for these options: one pipeline each. */
export function blurRadii(options: SiftOptions): number[] {
  const sigmas = blurSigmas(options);
  return [...new Set([sigmas.base, ...sigmas.levels].map((sigma) => (gaussianKernel(sigma).length - 1) / 2))].sort((a, b) => a - b);
}

export async function pyramidPipelines(ctx: GpuContext, options: SiftOptions, variant?: KernelVariant): Promise<PyramidPipelines> {
  const radii = blurRadii(options);
  const blur = (entryPoint: string) => ctx.kernels.preload(radii.map((RADIUS) => ({ kernel: 'sift-pyramid', entryPoint, variant, constants: { RADIUS } })));
  const [rows, columns, columnsDog, [downsample]] = await Promise.all([
    blur('blur_rows'),
    blur('blur_columns'),
    blur('blur_columns_dog'),
    ctx.kernels.preload([{ kernel: 'sift-pyramid', entryPoint: 'downsample', variant }]),
  ]);
  const byRadius = (pipelines: CompiledPipeline[]) => new Map(radii.map((r, i) => [r, pipelines[i]]));
  return { blurRows: byRadius(rows), blurColumns: byRadius(columns), blurColumnsDog: byRadius(columnsDog), downsample };
}

export interface OctaveBuffers extends OctaveLayout {
  /** S + 3 planes of width x height. */
  gauss: GPUBuffer;
  /** S + 2 planes. */
  dog: GPUBuffer;
}

interface Step {
  pipeline: CompiledPipeline;
  group: GPUBindGroup;
  x: number;
  y: number;
}

export class SiftPyramid {
  readonly octaves: OctaveBuffers[];
  /** The (upsampled, for first octave -1) grey image: width x height of octave 0. */
  readonly input: GPUBuffer;
  private readonly scratch: GPUBuffer;
  private readonly owned: GPUBuffer[] = [];
  private readonly steps: Step[] = [];

  constructor(
    private readonly ctx: GpuContext,
    pipelines: PyramidPipelines,
    /** The image's size before any upsampling. */
    readonly width: number,
    readonly height: number,
    readonly options: SiftOptions,
  ) {
    const { device } = ctx;
    const layout = octaveLayout(width, height, options);
    if (!layout.length) throw new ArgonautError('bad_input', `sift: a ${width}x${height} image is too small for one octave (${MIN_OCTAVE_SIZE} px a side)`, { width, height });
    const S = options.scalesPerOctave;
    const pixels0 = layout[0].width * layout[0].height;
    // An octave's S + 3 levels are one binding (per-level buffers would lift this: docs/sfm.md, Next).
    const limit = device.limits.maxStorageBufferBindingSize;
    if ((S + 3) * pixels0 * 4 > limit) {
      const scale = Math.sqrt(limit / ((S + 3) * pixels0 * 4));
      throw new ArgonautError('bad_input', `sift: a ${width}x${height} image${options.firstOctave === -1 ? ' upsampled to first octave -1' : ''} needs ${(S + 3) * pixels0 * 4} bytes per octave, over this device's ${limit}-byte binding limit; at most about ${Math.floor(width * scale)}x${Math.floor(height * scale)} fits`, { width, height, limit });
    }
    this.input = this.own(createStorage(device, 'sift.input', pixels0 * 4));
    this.scratch = this.own(createStorage(device, 'sift.scratch', pixels0 * 4));
    this.octaves = layout.map((o) => ({
      ...o,
      gauss: this.own(createStorage(device, `sift.gauss${o.index}`, (S + 3) * o.width * o.height * 4)),
      dog: this.own(createStorage(device, `sift.dog${o.index}`, (S + 2) * o.width * o.height * 4)),
    }));
    // every blur's weights, one after the other
    const sigmas = blurSigmas(options);
    const kernels = [sigmas.base, ...sigmas.levels].map((sigma) => gaussianKernel(sigma));
    const offsets: number[] = [];
    let total = 0;
    for (const k of kernels) {
      offsets.push(total);
      total += k.length;
    }
    const packed = new Float32Array(total);
    kernels.forEach((k, i) => packed.set(k, offsets[i]));
    const weights = this.own(uploadStorage(device, 'sift.weights', packed));
    const struct = UniformStruct.of('sift-pyramid', 'PyramidParams');
    const params = (values: Record<string, number>) => {
      const buffer = this.own(createUniform(device, 'sift.pyramid.params', struct.size));
      device.queue.writeBuffer(buffer, 0, struct.pack({ width: 0, height: 0, src_offset: 0, dst_offset: 0, radius: 0, weights_offset: 0, src_width: 0, dog_offset: 0, ...values }));
      return buffer;
    };
    // Gaussian level `level` of octave `o` from `src`; every level above 0 also writes DoG level - 1
    const blur = (o: OctaveBuffers, src: GPUBuffer, srcOffset: number, level: number, kernel: number) => {
      const radius = (kernels[kernel].length - 1) / 2;
      const rows = pipelines.blurRows.get(radius);
      const columns = (level ? pipelines.blurColumnsDog : pipelines.blurColumns).get(radius);
      if (!rows || !columns) throw new Error(`sift: no blur pipeline of radius ${radius} (pyramidPipelines was made for other options)`);
      const plane = o.width * o.height;
      const common = { width: o.width, height: o.height, radius, weights_offset: offsets[kernel] };
      this.steps.push({ pipeline: rows, group: bindGroup(device, rows, { 0: params({ ...common, src_offset: srcOffset, dst_offset: 0 }), 1: src, 2: this.scratch, 3: weights }), x: Math.ceil(Math.ceil(o.width / RUN) / BLUR_WORKGROUP), y: o.height });
      const columnParams = params({ ...common, src_offset: 0, dst_offset: level * plane, dog_offset: Math.max(0, level - 1) * plane });
      const columnBindings: Record<number, GPUBuffer> = { 0: columnParams, 1: this.scratch, 2: o.gauss, 3: weights };
      if (level) columnBindings[4] = o.dog;
      this.steps.push({ pipeline: columns, group: bindGroup(device, columns, columnBindings), x: Math.ceil(o.width / BLUR_WORKGROUP), y: Math.ceil(o.height / RUN) });
    };
    for (const o of this.octaves) {
      const plane = o.width * o.height;
      const tiles = { x: Math.ceil(o.width / TILE), y: Math.ceil(o.height / TILE) };
      if (o.index === 0) blur(o, this.input, 0, 0, 0);
      else {
        const prev = this.octaves[o.index - 1];
        const group = bindGroup(device, pipelines.downsample, { 0: params({ width: o.width, height: o.height, src_offset: S * prev.width * prev.height, src_width: prev.width }), 1: prev.gauss, 2: o.gauss });
        this.steps.push({ pipeline: pipelines.downsample, group, ...tiles });
      }
      for (let s = 1; s <= S + 2; s++) blur(o, o.gauss, (s - 1) * plane, s, s);
    }
  }

  private own(buffer: GPUBuffer): GPUBuffer {
    this.owned.push(buffer);
    return buffer;
  }

  /** Uploads octave 0's pixels (already upsampled where the first octave is -1). */
  upload(pixels: Float32Array): void {
    const o = this.octaves[0];
    if (pixels.length !== o.width * o.height) throw new Error(`sift: ${pixels.length} pixels for an octave of ${o.width}x${o.height}`);
    this.ctx.device.queue.writeBuffer(this.input, 0, pixels.buffer, pixels.byteOffset, pixels.byteLength);
  }

  encode(commands: GpuCommands): void {
    for (const step of this.steps) commands.dispatch(step.pipeline, [step.group], step.x, step.y);
  }

  /** One octave's Gaussian levels and DoG, read back (tests). */
  async read(octave: number): Promise<{ gauss: Float32Array[]; dog: Float32Array[] }> {
    const o = this.octaves[octave];
    const plane = o.width * o.height;
    const S = this.options.scalesPerOctave;
    const gauss = new Float32Array(await readBuffer(this.ctx.device, o.gauss, (S + 3) * plane * 4));
    const dog = new Float32Array(await readBuffer(this.ctx.device, o.dog, (S + 2) * plane * 4));
    return {
      gauss: Array.from({ length: S + 3 }, (_, s) => gauss.subarray(s * plane, (s + 1) * plane)),
      dog: Array.from({ length: S + 2 }, (_, s) => dog.subarray(s * plane, (s + 1) * plane)),
    };
  }

  destroy(): void {
    for (const b of this.owned) b.destroy();
  }
}
