import { createStorage, createUniform, bindGroup, readBuffer } from '../gpu/buffers.js';
import type { GpuCommands } from '../gpu/commands.js';
import type { GpuContext } from '../gpu/context.js';
import type { CompiledPipeline, KernelVariant } from '../gpu/kernels.js';
import { UniformStruct } from '../gpu/uniforms.js';
import type { CameraGradient } from '../../../shared/scene/camera-correction.js';
import { COUNT, type RasterFrame } from './rasterizer.js';

export type { CameraGradient };

/** Splats one workgroup of reduce_chunks sums (kernels/camera-grads.wgsl: WG x PER_THREAD). */
export const CAMERA_GRAD_CHUNK = 256 * 16;

/**
 * Floats of one camera gradient as the GPU writes it (`CameraGradSum.result`, three vec4):
 * (omega, fx), (tau, fy), (cx, cy, 0, 0). `cameraGradientOf` is the one reader of that layout.
 */
export const CAMERA_GRADIENT_FLOATS = 12;
export const CAMERA_GRADIENT_BYTES = CAMERA_GRADIENT_FLOATS * 4;

/** The gradient in CAMERA_GRADIENT_FLOATS floats as read back (a readback, or a checkpoint's pending gradient). */
export function cameraGradientOf(floats: ArrayLike<number>): CameraGradient {
  if (floats.length < CAMERA_GRADIENT_FLOATS) throw new Error(`camera gradient: expected ${CAMERA_GRADIENT_FLOATS} floats, got ${floats.length}`);
  return { omega: [floats[0], floats[1], floats[2]], tau: [floats[4], floats[5], floats[6]], fx: floats[3], fy: floats[7], cx: floats[8], cy: floats[9] };
}

/**
 * Sums a frame's per-splat camera shares (RasterFrame.cameraGradPartials, written by
 * project_backward with the rasterizer's `cameraGrads`) into one gradient on the GPU, in a fixed
 * order (two passes: chunks of CAMERA_GRAD_CHUNK splats, then the chunks): deterministic.
 */
export class CameraGradSum {
  /** Three vec4 (the layout of `cameraGradientOf`), written by `encode`. */
  readonly result: GPUBuffer;
  private readonly chunkSums: GPUBuffer;
  private readonly params: GPUBuffer;
  private readonly groups: { chunks: GPUBindGroup; final: GPUBindGroup };
  private readonly chunks: number;

  private constructor(
    private readonly ctx: GpuContext,
    private readonly pipelines: { chunks: CompiledPipeline; final: CompiledPipeline },
    frame: RasterFrame,
  ) {
    const { device } = ctx;
    if (frame.cameraGradPartials.size < frame.capacity * CAMERA_GRADIENT_BYTES) throw new Error('camera gradients: the frame has no per-splat camera shares (create the rasterizer with cameraGrads)');
    this.chunks = Math.ceil(frame.capacity / CAMERA_GRAD_CHUNK);
    this.chunkSums = createStorage(device, 'cameraGrads.chunkSums', this.chunks * CAMERA_GRADIENT_BYTES);
    this.result = createStorage(device, 'cameraGrads.result', CAMERA_GRADIENT_BYTES);
    const struct = UniformStruct.of('camera-grads', 'CameraGradParams');
    this.params = createUniform(device, 'cameraGrads.params', struct.size);
    device.queue.writeBuffer(this.params, 0, struct.pack({ count_index: COUNT.splats, chunks: this.chunks }));
    this.groups = {
      chunks: bindGroup(device, pipelines.chunks, { 0: this.params, 1: frame.counts, 2: frame.cameraGradPartials, 3: this.chunkSums }),
      final: bindGroup(device, pipelines.final, { 0: this.params, 3: this.chunkSums, 5: this.result }),
    };
  }

  static async create(ctx: GpuContext, frame: RasterFrame, variant: KernelVariant = ctx.info.variant): Promise<CameraGradSum> {
    const get = (entryPoint: string) => ctx.kernels.get({ kernel: 'camera-grads', entryPoint, constants: {}, variant });
    const [chunks, final] = await Promise.all([get('reduce_chunks'), get('reduce_chunk_sums')]);
    return new CameraGradSum(ctx, { chunks, final }, frame);
  }

  /** Records the sum (after the rasterizer's encodeBackward of the same frame). */
  encode(commands: GpuCommands): void {
    commands.dispatch(this.pipelines.chunks, [this.groups.chunks], this.chunks);
    commands.dispatch(this.pipelines.final, [this.groups.final], 1);
  }

  /** Reads `result` (a sync point). */
  async read(): Promise<CameraGradient> {
    return cameraGradientOf(new Float32Array(await readBuffer(this.ctx.device, this.result, CAMERA_GRADIENT_BYTES)));
  }

  destroy(): void {
    this.chunkSums.destroy();
    this.result.destroy();
    this.params.destroy();
  }
}
