import { bindGroup, createStorage, createUniform, type GpuRange } from '../gpu/buffers.js';
import type { GpuCommands } from '../gpu/commands.js';
import type { GpuContext } from '../gpu/context.js';
import type { CompiledPipeline } from '../gpu/kernels.js';
import { UniformStruct } from '../gpu/uniforms.js';
import type { ParamValues } from '../../../shared/params/index.js';

const TS = 16;
const HALO = 5;

type Rgb = readonly [number, number, number];
const BLACK: Rgb = [0, 0, 0];

/**
 * Border handling of the SSIM term: 'same' averages over every pixel with zero padding (3DGS);
 * 'valid' over the pixels whose 11x11 window lies inside the image (gsplat's trainer). The
 * registry's `train.ssimPadding` choices.
 */
export type SsimPadding = ParamValues['train.ssimPadding'];

/** Values (pixels x 3) the mean SSIM is over; 'valid' falls back to 'same' at 10 px or less. */
export function ssimValueCount(width: number, height: number, padding: SsimPadding): number {
  if (padding === 'valid' && width > 2 * HALO && height > 2 * HALO) return (width - 2 * HALO) * (height - 2 * HALO) * 3;
  return width * height * 3;
}

/**
 * How many values the loss's means are over (kernels/loss.wgsl, "Masks"): 3 x the unmasked pixels
 * for L1 and MSE, 3 x the unmasked pixels SSIM counts (all of them, or the valid interior).
 */
export interface LossCounts {
  l1Values: number;
  ssimValues: number;
}

/**
 * The counts for an image whose mask is `mask` (one byte per pixel, 0 = ignored; undefined: none
 * masked, the unmasked loss's counts). At least 1 each, so a view masked whole has a finite loss
 * (0.2: no SSIM counted) and no gradient.
 */
export function lossCounts(width: number, height: number, padding: SsimPadding, mask?: ArrayLike<number>): LossCounts {
  if (!mask) return { l1Values: width * height * 3, ssimValues: ssimValueCount(width, height, padding) };
  const valid = padding === 'valid' && width > 2 * HALO && height > 2 * HALO;
  let kept = 0;
  let counted = 0;
  for (let y = 0; y < height; y++) {
    const interiorRow = !valid || (y >= HALO && y < height - HALO);
    for (let x = 0; x < width; x++) {
      if (mask[y * width + x] === 0) continue;
      kept++;
      if (interiorRow && (!valid || (x >= HALO && x < width - HALO))) counted++;
    }
  }
  return { l1Values: Math.max(1, kept * 3), ssimValues: Math.max(1, counted * 3) };
}

/** Per image size: the buffers of the L1 + D-SSIM loss (kernels/loss.wgsl). */
export class LossFrame {
  readonly tilesX: number;
  readonly tilesY: number;
  readonly partials: GPUBuffer;
  /** vec4 per workgroup: (sum SSIM, sum |I - T|, sum (I - T)^2, 0); read back asynchronously. */
  readonly sums: GPUBuffer;
  /** dL/d image (vec4 per pixel), the rasterizer backward's input. */
  readonly vImage: GpuRange;
  readonly params: GPUBuffer;
  forwardGroup?: GPUBindGroup;
  backwardGroup?: GPUBindGroup;
  private boundTo?: { image: GpuRange; targets: GPUBuffer };
  private readonly ownsVImage: boolean;

  /** `vImage`: where dL/d image goes (training: the rasterizer frame's pixelGrads.image); else its own buffer. */
  constructor(device: GPUDevice, readonly width: number, readonly height: number, vImage?: GpuRange) {
    this.tilesX = Math.ceil(width / TS);
    this.tilesY = Math.ceil(height / TS);
    const pixels = width * height;
    this.partials = createStorage(device, 'loss.partials', pixels * 36); // kernels/loss.wgsl PARTIALS floats a pixel
    this.sums = createStorage(device, 'loss.sums', this.tilesX * this.tilesY * 16);
    this.ownsVImage = !vImage;
    this.vImage = vImage ?? createStorage(device, 'loss.vImage', pixels * 16);
    this.params = createUniform(device, 'loss.params', UniformStruct.of('loss', 'LossParams').size);
  }

  /** Size of the image last encoded (<= the frame's), whose statistics `sums` holds. */
  active = { width: 0, height: 0, tilesX: 0, tilesY: 0 };

  setSize(width: number, height: number): { x: number; y: number } {
    if (width > this.width || height > this.height) throw new Error(`loss: image ${width}x${height} is larger than the frame's ${this.width}x${this.height}`);
    this.active = { width, height, tilesX: Math.ceil(width / TS), tilesY: Math.ceil(height / TS) };
    return { x: this.active.tilesX, y: this.active.tilesY };
  }

  /** Bytes of `sums` that hold the last encoded image's statistics. */
  get activeSumsBytes(): number {
    return this.active.tilesX * this.active.tilesY * 16;
  }

  bind(device: GPUDevice, forward: CompiledPipeline, backward: CompiledPipeline, image: GpuRange, targets: GPUBuffer): void {
    if (this.boundTo?.image === image && this.boundTo.targets === targets) return;
    this.forwardGroup = bindGroup(device, forward, { 0: this.params, 1: image, 2: targets, 3: this.partials, 4: this.sums });
    this.backwardGroup = bindGroup(device, backward, { 0: this.params, 1: image, 2: targets, 5: this.partials, 6: this.vImage });
    this.boundTo = { image, targets };
  }

  get sumsBytes(): number {
    return this.tilesX * this.tilesY * 16;
  }

  /** Loss value, SSIM, L1 and PSNR from the read-back sums (`padding`: the loss's, see kernels/loss.wgsl; `counts`: a masked view's). */
  static value(sums: Float32Array, width: number, height: number, padding: SsimPadding = 'same', counts = lossCounts(width, height, padding)): { loss: number; ssim: number; l1: number; mse: number; psnr: number } {
    let s = 0;
    let l = 0;
    let q = 0;
    for (let i = 0; i < sums.length; i += 4) {
      s += sums[i];
      l += sums[i + 1];
      q += sums[i + 2];
    }
    const n = counts.l1Values;
    const ssim = s / counts.ssimValues;
    const l1 = l / n;
    const mse = q / n;
    return { loss: 0.8 * l1 + 0.2 * (1 - ssim), ssim, l1, mse, psnr: -10 * Math.log10(Math.max(mse, 1e-20)) };
  }

  destroy(): void {
    for (const b of [this.partials, this.sums, this.params]) b.destroy();
    if (this.ownsVImage) (this.vImage as GPUBuffer).destroy();
  }
}

/** L = 0.8 L1 + 0.2 (1 - SSIM) and dL/dI on the GPU. */
export class TrainingLoss {
  private constructor(
    private readonly ctx: GpuContext,
    readonly forward: CompiledPipeline,
    readonly backward: CompiledPipeline,
    readonly padding: SsimPadding,
  ) {}

  /** `randomBackground`: targets keep alpha (premultiplied, 1 + 254 a) and are composited over each encode's background (kernels/loss.wgsl). */
  static async create(ctx: GpuContext, padding: SsimPadding = 'same', options: { randomBackground?: boolean } = {}): Promise<TrainingLoss> {
    const random: Record<string, number> = options.randomBackground ? { RANDOM_BACKGROUND: 1 } : {};
    const constants = { SSIM_VALID: padding === 'valid' ? 1 : 0, ...random };
    const [forward, backward, clamp] = await ctx.kernels.preload([
      { kernel: 'loss', entryPoint: 'ssim_forward', constants },
      { kernel: 'loss', entryPoint: 'ssim_backward', constants: random },
      { kernel: 'loss', entryPoint: 'clamp_image' },
    ]);
    const loss = new TrainingLoss(ctx, forward, backward, padding);
    loss.clampPipeline = clamp;
    return loss;
  }

  private clampPipeline!: CompiledPipeline;

  /** Loss value, SSIM, L1 and PSNR of read-back `sums` of this loss (its SSIM padding; `mask`: the view's, if any). */
  value(sums: Float32Array, width: number, height: number, counts?: LossCounts): ReturnType<typeof LossFrame.value> {
    return LossFrame.value(sums, width, height, this.padding, counts ?? lossCounts(width, height, this.padding));
  }

  /**
   * Evaluation: clamps `image` to [0, 1] into `scratch` and records the forward statistics of the
   * clamped render against the target (PSNR and SSIM come from `frame.sums`).
   */
  encodeEvaluation(commands: GpuCommands, frame: LossFrame, image: GpuRange, scratch: GPUBuffer, targets: GPUBuffer, targetOffset: number, width = frame.width, height = frame.height, counts?: LossCounts, background: Rgb = BLACK): void {
    const { device } = this.ctx;
    const tiles = frame.setSize(width, height);
    device.queue.writeBuffer(frame.params, 0, packLossParams(width, height, targetOffset, tiles.x, counts ?? lossCounts(width, height, this.padding), background));
    const clampGroup = bindGroup(device, this.clampPipeline, { 0: frame.params, 1: image, 7: scratch });
    commands.dispatch(this.clampPipeline, [clampGroup], tiles.x, tiles.y);
    const statsGroup = bindGroup(device, this.forward, { 0: frame.params, 1: scratch, 2: targets, 3: frame.partials, 4: frame.sums });
    commands.dispatch(this.forward, [statsGroup], tiles.x, tiles.y);
  }

  createFrame(width: number, height: number, vImage?: GpuRange): LossFrame {
    return new LossFrame(this.ctx.device, width, height, vImage);
  }

  /**
   * Records loss + gradient of `image` (vec4 per pixel, row length `width`) against the RGBA8
   * target at `targetOffset` (pixels). The image may be smaller than the frame. `counts`: the
   * view's mask's (lossCounts), for a target with masked pixels (alpha 0). `background`: what a
   * random-background loss composites the target over (the render's background this step).
   */
  encode(commands: GpuCommands, frame: LossFrame, image: GpuRange, targets: GPUBuffer, targetOffset: number, width = frame.width, height = frame.height, counts?: LossCounts, background: Rgb = BLACK): void {
    const { device } = this.ctx;
    frame.bind(device, this.forward, this.backward, image, targets);
    const tiles = frame.setSize(width, height);
    device.queue.writeBuffer(frame.params, 0, packLossParams(width, height, targetOffset, tiles.x, counts ?? lossCounts(width, height, this.padding), background));
    commands.dispatch(this.forward, [frame.forwardGroup!], tiles.x, tiles.y);
    commands.dispatch(this.backward, [frame.backwardGroup!], tiles.x, tiles.y);
  }
}

/**
 * Packs RGB floats in [0,1] (H*W*3) as RGBA8 u32 words, the targets' GPU layout; alpha is the
 * mask (`mask[i]` 0: ignored by the loss; without a mask 255).
 */
export function packRgba8(rgb: ArrayLike<number>, pixels: number, out = new Uint32Array(pixels), offset = 0, mask?: ArrayLike<number>): Uint32Array {
  for (let i = 0; i < pixels; i++) {
    const r = Math.round(Math.min(1, Math.max(0, rgb[3 * i])) * 255);
    const g = Math.round(Math.min(1, Math.max(0, rgb[3 * i + 1])) * 255);
    const b = Math.round(Math.min(1, Math.max(0, rgb[3 * i + 2])) * 255);
    const a = mask && mask[i] === 0 ? 0 : 255;
    out[offset + i] = (r | (g << 8) | (b << 16) | (a << 24)) >>> 0;
  }
  return out;
}

/** kernels/loss.wgsl's LossParams. */
function packLossParams(width: number, height: number, targetOffset: number, tilesX: number, counts: LossCounts, background: Rgb): ArrayBuffer {
  return UniformStruct.of('loss', 'LossParams').pack({ width, height, target_offset: targetOffset, tiles_x: tilesX, l1_values: counts.l1Values, ssim_values: counts.ssimValues, background: [...background] });
}
