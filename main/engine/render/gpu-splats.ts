import { emptySplats, shCoefficientCount, type SplatSet } from '../../../shared/scene/splats.js';
import { GpuArena } from '../gpu/arena.js';
import { createStorage, readBuffer, type GpuRegion } from '../gpu/buffers.js';
import type { GpuContext } from '../gpu/context.js';

/**
 * SH on the GPU is planar: value j (= 3 coefficient + channel) of splat s at j * capacity + s,
 * so a warp reading or writing one value of 32 consecutive splats touches one contiguous range
 * (the host's [splat][coefficient][channel] order would scatter every access over 32 lines).
 */
export function shAosToPlanar(aos: Float32Array, count: number, lanes: number, capacity: number, out: Float32Array = new Float32Array(lanes * capacity)): Float32Array {
  for (let s = 0; s < count; s++) for (let j = 0; j < lanes; j++) out[j * capacity + s] = aos[s * lanes + j];
  return out;
}

export function shPlanarToAos(planar: Float32Array, count: number, lanes: number, capacity: number, out: Float32Array = new Float32Array(count * lanes)): Float32Array {
  for (let s = 0; s < count; s++) for (let j = 0; j < lanes; j++) out[s * lanes + j] = planar[j * capacity + s];
  return out;
}

/**
 * Splat parameters on the GPU, structure of arrays with room for `capacity` splats, and the
 * live count in a GPU buffer (densification changes it on the GPU). Each attribute is its own
 * region of one arena (gpu/arena.ts) and binds on its own where the device allows, so 10M
 * splats at SH degree 3 stay under a 2 GiB binding (SH: 192 B a splat); a device that binds the
 * arena whole (packed kernels) needs it under its binding limit. SH is planar (see shAosToPlanar).
 */
export class GpuSplats {
  readonly arena: GpuArena<'splat_params'>;
  readonly means: GpuRegion;
  readonly logScales: GpuRegion;
  readonly quats: GpuRegion;
  readonly opacityLogits: GpuRegion;
  readonly sh: GpuRegion;
  /** u32[4]: [0] = count. */
  readonly countBuffer: GPUBuffer;
  readonly shCoeffs: number;

  constructor(
    private readonly ctx: GpuContext,
    readonly capacity: number,
    readonly shDegree: number,
    public count: number,
    label = 'splats',
  ) {
    const { device } = ctx;
    this.shCoeffs = shCoefficientCount(shDegree);
    const shBytes = capacity * this.shCoeffs * 12;
    const binding = device.limits.maxStorageBufferBindingSize;
    if (shBytes > binding) throw new Error(`${capacity} splats at SH degree ${shDegree} need ${shBytes} bytes of SH, over this device's ${binding}-byte binding limit`);
    this.arena = new GpuArena(device, 'splat_params', label, { means: capacity * 12, logScales: capacity * 12, quats: capacity * 16, opacityLogits: capacity * 4, sh: shBytes });
    ({ means: this.means, logScales: this.logScales, quats: this.quats, opacityLogits: this.opacityLogits, sh: this.sh } = this.arena.regions);
    this.countBuffer = createStorage(device, `${label}.count`, 16);
    device.queue.writeBuffer(this.countBuffer, 0, new Uint32Array([count, 0, 0, 0]));
  }

  static fromHost(ctx: GpuContext, splats: SplatSet, capacity = splats.count, label?: string): GpuSplats {
    const g = new GpuSplats(ctx, Math.max(1, capacity), splats.shDegree, splats.count, label);
    g.upload(splats);
    return g;
  }

  upload(splats: SplatSet): void {
    if (splats.count > this.capacity) throw new Error(`upload: ${splats.count} splats exceed the capacity ${this.capacity}`);
    if (splats.shDegree !== this.shDegree) throw new Error(`upload: SH degree ${splats.shDegree} != ${this.shDegree}`);
    const q = this.ctx.device.queue;
    const put = (region: GpuRegion, data: Float32Array) => {
      if (data.byteLength) q.writeBuffer(region.buffer, region.offset, data.buffer, data.byteOffset, data.byteLength);
    };
    put(this.means, splats.means);
    put(this.logScales, splats.logScales);
    put(this.quats, splats.quats);
    put(this.opacityLogits, splats.opacityLogits);
    put(this.sh, shAosToPlanar(splats.sh, splats.count, this.shCoeffs * 3, this.capacity));
    this.count = splats.count;
    q.writeBuffer(this.countBuffer, 0, new Uint32Array([splats.count, 0, 0, 0]));
  }

  /** Reads the parameters back (export, checkpoints, tests). */
  async download(count = this.count): Promise<SplatSet> {
    const out = emptySplats(count, this.shDegree);
    const { device } = this.ctx;
    const read = async (region: GpuRegion, bytes: number) => (bytes ? new Float32Array(await readBuffer(device, region.buffer, bytes, region.offset)) : new Float32Array(0));
    out.means.set(await read(this.means, count * 12));
    out.logScales.set(await read(this.logScales, count * 12));
    out.quats.set(await read(this.quats, count * 16));
    out.opacityLogits.set(await read(this.opacityLogits, count * 4));
    if (count) shPlanarToAos(await read(this.sh, this.capacity * this.shCoeffs * 12), count, this.shCoeffs * 3, this.capacity, out.sh);
    return out;
  }

  destroy(): void {
    this.arena.destroy();
    this.countBuffer.destroy();
  }
}

/**
 * Gradients w.r.t. every parameter, same layout as GpuSplats (planar SH), plus the screen-space
 * ones. `sh` false: no SH gradients (a 16-byte placeholder): training's fused SH Adam
 * (train/sh-adam.ts) applies them where they are computed.
 */
export class GpuSplatGrads {
  readonly arena: GpuArena<'splat_grads'>;
  readonly means: GpuRegion;
  readonly logScales: GpuRegion;
  readonly quats: GpuRegion;
  readonly opacityLogits: GpuRegion;
  readonly sh: GpuRegion;
  /** vec4 per splat: (d mean2d x, y, sum |.| x, y) for densification; a placeholder after releaseMean2d. */
  mean2d: GPUBuffer;

  constructor(ctx: GpuContext, readonly capacity: number, readonly shCoeffs: number, label = 'grads', sh = true) {
    const { device } = ctx;
    this.arena = new GpuArena(device, 'splat_grads', label, { means: capacity * 12, logScales: capacity * 12, quats: capacity * 16, opacityLogits: capacity * 4, sh: sh ? capacity * shCoeffs * 12 : 0 });
    ({ means: this.means, logScales: this.logScales, quats: this.quats, opacityLogits: this.opacityLogits, sh: this.sh } = this.arena.regions);
    this.mean2d = createStorage(device, `${label}.mean2d`, capacity * 16);
  }

  /**
   * Frees the screen-space gradient (16 B a splat of capacity) for a 16-byte placeholder: only for
   * a rasterizer whose project_backward no longer writes it (Rasterizer.dropMean2dGrads).
   */
  releaseMean2d(device: GPUDevice): void {
    if (this.mean2d.size <= 16) return;
    const label = this.mean2d.label;
    this.mean2d.destroy();
    this.mean2d = createStorage(device, label, 16);
  }

  /** Every gradient range (clearing before a step). */
  get all(): (GpuRegion | GPUBuffer)[] {
    return [this.means, this.logScales, this.quats, this.opacityLogits, this.sh, this.mean2d];
  }

  destroy(): void {
    this.arena.destroy();
    this.mean2d.destroy();
  }
}
