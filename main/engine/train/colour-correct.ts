/**
 * Colour-corrected PSNR (gsplat's `color_correct` idea): before scoring a held-out view, fit the
 * affine colour transform (3x4, least squares in float64) that maps the render closest to the
 * ground truth, and score the corrected render, clamped to [0, 1] as the render is. A model
 * trained with per-image appearance compensation renders a held-out view with no colour model of
 * its own, so its plain PSNR also counts the test image's exposure; this one does not.
 *
 * Both the fit and the score are over the pixels the plain PSNR scores, against the target it
 * scores (masked pixels left out; a random or alpha background composited): on the GPU
 * (`GpuColourCorrection`, kernels/colour-correct.wgsl) the fit's moments and the corrected error
 * are reductions and only 24 floats and 1 come back; the host functions here are its float64
 * reference and solve the 4x4 systems.
 */
import { bindGroup, createStorage, createUniform, readBuffer, type GpuRange } from '../gpu/buffers.js';
import type { GpuCommands } from '../gpu/commands.js';
import type { GpuContext } from '../gpu/context.js';
import type { CompiledPipeline } from '../gpu/kernels.js';
import { UniformStruct } from '../gpu/uniforms.js';
import { solveLinearSystem } from '../../../shared/math/linear-solve.js';

/** Floats of the moments (kernels/colour-correct.wgsl's row: 22 moments and 2 zeros). */
export const COLOUR_MOMENTS = 24;
/** Where the moments centre the values: x = render - 0.5, t = target - 0.5. */
const CENTRE = 0.5;
/** Pixels per reduction block (kernels/colour-correct.wgsl BLOCK_PIXELS) and threads per workgroup. */
const BLOCK_PIXELS = 16384;

/** Whether pixel p counts (mask undefined: every pixel; else mask[p] !== 0). */
const kept = (mask: ArrayLike<number> | undefined, p: number) => !mask || mask[p] !== 0;

/**
 * The moments of the fit in float64 (the GPU's layout, kernels/colour-correct.wgsl): count, sum x,
 * sum t, sum x_i x_j, sum x_i t_r of x = render - 0.5 and t = target - 0.5 over the kept pixels.
 */
export function colourMoments(render: ArrayLike<number>, renderStride: number, target: ArrayLike<number>, targetStride: number, pixels: number, mask?: ArrayLike<number>): Float64Array {
  const m = new Float64Array(COLOUR_MOMENTS);
  for (let p = 0; p < pixels; p++) {
    if (!kept(mask, p)) continue;
    const x0 = render[p * renderStride] - CENTRE;
    const x1 = render[p * renderStride + 1] - CENTRE;
    const x2 = render[p * renderStride + 2] - CENTRE;
    const t0 = target[p * targetStride] - CENTRE;
    const t1 = target[p * targetStride + 1] - CENTRE;
    const t2 = target[p * targetStride + 2] - CENTRE;
    m[0] += 1;
    m[1] += x0;
    m[2] += x1;
    m[3] += x2;
    m[4] += t0;
    m[5] += t1;
    m[6] += t2;
    m[7] += x0 * x0;
    m[8] += x1 * x1;
    m[9] += x2 * x2;
    m[10] += x0 * x1;
    m[11] += x0 * x2;
    m[12] += x1 * x2;
    m[13] += x0 * t0;
    m[14] += x0 * t1;
    m[15] += x0 * t2;
    m[16] += x1 * t0;
    m[17] += x1 * t1;
    m[18] += x1 * t2;
    m[19] += x2 * t0;
    m[20] += x2 * t1;
    m[21] += x2 * t2;
  }
  return m;
}

/** Rows of the 3x4 matrix A (row-major) minimising sum |A [x, 1] - y|^2, from the moments (colourMoments' layout). */
export function affineFromMoments(moments: ArrayLike<number>): Float64Array {
  // normal equations in the centred values: M a_r = b_r, M = sum x~ x~^T (x~ = [x, 1]), b_r = sum x~ t_r
  const xx = [
    [moments[7], moments[10], moments[11]],
    [moments[10], moments[8], moments[12]],
    [moments[11], moments[12], moments[9]],
  ];
  const m = new Float64Array(16);
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) m[4 * i + j] = xx[i][j];
    m[4 * i + 3] = m[12 + i] = moments[1 + i];
  }
  m[15] = moments[0];
  // A tiny ridge keeps a flat render (a singular M) solvable; it moves no well-posed fit measurably.
  const ridge = 1e-12 * (m[0] + m[5] + m[10] + m[15]) + 1e-300;
  for (let i = 0; i < 4; i++) m[5 * i] += ridge;
  const a = new Float64Array(12);
  const rows = [0, 1, 2, 3].map((r) => m.subarray(4 * r, 4 * r + 4));
  for (let r = 0; r < 3; r++) {
    const b = [moments[13 + r], moments[16 + r], moments[19 + r], moments[4 + r]];
    // tolerance 0: the ridge holds a flat render's system up; only a NaN moment is refused
    const centred = solveLinearSystem(rows, b, 0) ?? [NaN, NaN, NaN, NaN];
    // y - 0.5 = L (x - 0.5) + c  =>  y = L x + c + 0.5 (1 - sum L)
    a.set([centred[0], centred[1], centred[2], centred[3] + CENTRE * (1 - centred[0] - centred[1] - centred[2])], 4 * r);
  }
  return a;
}

/** Rows of the 3x4 matrix A (row-major) minimising sum |A [x, 1] - y|^2 over the (kept) pixels. */
export function fitAffineColour(render: ArrayLike<number>, renderStride: number, target: ArrayLike<number>, targetStride: number, pixels: number, mask?: ArrayLike<number>): Float64Array {
  return affineFromMoments(colourMoments(render, renderStride, target, targetStride, pixels, mask));
}

/** PSNR (dB) of a sum of squared errors over `values` values of [0, 1] colours (the plain PSNR's floor). */
export function psnrOfSquaredError(sse: number, values: number): number {
  return -10 * Math.log10(Math.max(sse / Math.max(values, 1), 1e-20));
}

/**
 * PSNR (dB) of `render` after the best affine colour fit to `target`, the corrected values clamped
 * to [0, 1], over the kept pixels (`mask`: 0 = left out, as the loss leaves it). Both hold colours
 * in [0, 1], channel k of pixel p at p * stride + k.
 */
export function colourCorrectedPsnr(render: ArrayLike<number>, renderStride: number, target: ArrayLike<number>, targetStride: number, pixels: number, mask?: ArrayLike<number>): number {
  const a = fitAffineColour(render, renderStride, target, targetStride, pixels, mask);
  let sq = 0;
  let values = 0;
  for (let p = 0; p < pixels; p++) {
    if (!kept(mask, p)) continue;
    const r0 = render[p * renderStride];
    const r1 = render[p * renderStride + 1];
    const r2 = render[p * renderStride + 2];
    for (let r = 0; r < 3; r++) {
      const corrected = Math.min(1, Math.max(0, a[4 * r] * r0 + a[4 * r + 1] * r1 + a[4 * r + 2] * r2 + a[4 * r + 3]));
      const d = corrected - target[p * targetStride + r];
      sq += d * d;
    }
    values += 3;
  }
  return psnrOfSquaredError(sq, values);
}

type Rgb = readonly [number, number, number];

/**
 * Colour-corrected PSNR of evaluation renders on the GPU (kernels/colour-correct.wgsl), for
 * images of up to `maxPixels`: `encodeMoments` records the fit's moments of the clamped render
 * against its target in the evaluation's submit; `psnr` then reads 24 floats back, solves in
 * float64, and runs the corrected error's reduction (1 float back).
 */
export class GpuColourCorrection {
  private readonly partials: GPUBuffer;
  private readonly totals: GPUBuffer;
  private readonly params: GPUBuffer;
  private readonly layout = UniformStruct.of('colour-correct', 'ColourParams');
  /** The image `encodeMoments` last recorded (what `psnr` scores). */
  private pending?: { render: GpuRange; targets: GPUBuffer; targetOffset: number; pixels: number; background: Rgb };

  private constructor(
    private readonly ctx: GpuContext,
    private readonly pipelines: { moments: CompiledPipeline; sse: CompiledPipeline; reduce: CompiledPipeline },
    readonly maxPixels: number,
  ) {
    const blocks = Math.ceil(maxPixels / BLOCK_PIXELS);
    this.partials = createStorage(ctx.device, 'colourCorrect.partials', blocks * COLOUR_MOMENTS * 4);
    this.totals = createStorage(ctx.device, 'colourCorrect.totals', COLOUR_MOMENTS * 4);
    this.params = createUniform(ctx.device, 'colourCorrect.params', this.layout.size);
  }

  /** `randomBackground`: the targets keep alpha and are composited over each call's background (the loss's RANDOM_BACKGROUND). */
  static async create(ctx: GpuContext, maxPixels: number, options: { randomBackground?: boolean } = {}): Promise<GpuColourCorrection> {
    const constants: Record<string, number> = options.randomBackground ? { RANDOM_BACKGROUND: 1 } : {};
    const [moments, sse, reduce] = await ctx.kernels.preload(['colour_moments', 'colour_sse', 'colour_totals'].map((entryPoint) => ({ kernel: 'colour-correct', entryPoint, constants })));
    return new GpuColourCorrection(ctx, { moments, sse, reduce }, maxPixels);
  }

  /**
   * Records the fit's moments of `render` (vec4 per pixel, clamped to [0, 1]) against the RGBA8
   * target at `targetOffset` (pixels) of `targets`, composited over `background` where the loss
   * composites. Submit, then call `psnr`.
   */
  encodeMoments(commands: GpuCommands, render: GpuRange, targets: GPUBuffer, targetOffset: number, pixels: number, background: Rgb = [0, 0, 0]): void {
    if (pixels > this.maxPixels) throw new Error(`colour correction: image of ${pixels} pixels is larger than the ${this.maxPixels} it was sized for`);
    this.pending = { render, targets, targetOffset, pixels, background };
    this.encodePass(commands, this.pipelines.moments, COLOUR_MOMENTS);
  }

  /** The colour-corrected PSNR of the image `encodeMoments` recorded (after its submit), with the fitted transform and the pixels it was over. */
  async psnr(): Promise<{ psnr: number; affine: Float64Array; pixels: number }> {
    const { device } = this.ctx;
    if (!this.pending) throw new Error('colour correction: psnr() before encodeMoments()');
    const moments = new Float32Array(await readBuffer(device, this.totals, COLOUR_MOMENTS * 4));
    const affine = affineFromMoments(moments);
    const commands = this.ctx.commands('eval.colourCorrect');
    this.encodePass(commands, this.pipelines.sse, 1, affine);
    await commands.submit();
    const sse = new Float32Array(await readBuffer(device, this.totals, 4))[0];
    const pixels = moments[0];
    return { psnr: psnrOfSquaredError(sse, 3 * pixels), affine, pixels };
  }

  /** One block pass (`pass`) and the reduction of its rows' first `columns` into `totals`. */
  private encodePass(commands: GpuCommands, pass: CompiledPipeline, columns: number, affine: ArrayLike<number> = new Float64Array(12)): void {
    const { device } = this.ctx;
    const { render, targets, targetOffset, pixels, background } = this.pending!;
    const blocks = Math.ceil(pixels / BLOCK_PIXELS);
    const rows = Array.from(affine);
    device.queue.writeBuffer(this.params, 0, this.layout.pack({
      pixels, target_offset: targetOffset, blocks, columns, background: [...background],
      affine_r: rows.slice(0, 4), affine_g: rows.slice(4, 8), affine_b: rows.slice(8, 12),
    }));
    const x = Math.min(blocks, device.limits.maxComputeWorkgroupsPerDimension);
    commands.dispatch(pass, [bindGroup(device, pass, { 0: this.params, 1: render, 2: targets, 3: this.partials })], x, Math.ceil(blocks / x));
    commands.dispatch(this.pipelines.reduce, [bindGroup(device, this.pipelines.reduce, { 0: this.params, 3: this.partials, 4: this.totals })], 1);
  }

  destroy(): void {
    for (const b of [this.partials, this.totals, this.params]) b.destroy();
  }
}
