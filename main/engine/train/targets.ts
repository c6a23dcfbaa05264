import { createStorage } from '../gpu/buffers.js';
import type { GpuContext } from '../gpu/context.js';
import { lossCounts, packRgba8, type LossCounts, type SsimPadding } from './loss.js';
import type { TrainingData } from './data.js';

/**
 * Every view's target image on the GPU as RGBA8 words, packed into as few buffers as the
 * device's binding limit allows (one buffer per chunk; a view never straddles two).
 */
export class GpuTargets {
  private readonly buffers: GPUBuffer[] = [];
  /**
   * Per view: which buffer and the pixel offset in it; for a view with masked pixels, the loss's
   * counts per SSIM padding (lossCounts; absent: nothing masked).
   */
  readonly location: { buffer: number; offset: number; width: number; height: number; masked?: Record<SsimPadding, LossCounts> }[] = [];

  private constructor() {}

  static async upload(ctx: GpuContext, data: TrainingData, views: readonly number[], onProgress?: (done: number, total: number) => void): Promise<GpuTargets> {
    const targets = new GpuTargets();
    const limit = Math.min(ctx.device.limits.maxStorageBufferBindingSize, ctx.device.limits.maxBufferSize);
    // plan chunks
    const plan: { view: number; pixels: number }[] = views.map((v) => ({ view: v, pixels: data.views[v].camera.width * data.views[v].camera.height }));
    const chunks: { views: typeof plan; pixels: number }[] = [];
    for (const item of plan) {
      if (item.pixels * 4 > limit) throw new Error(`view ${data.views[item.view].name}: ${item.pixels} pixels exceed the device's binding limit`);
      let chunk = chunks.at(-1);
      if (!chunk || (chunk.pixels + item.pixels) * 4 > limit) chunks.push((chunk = { views: [], pixels: 0 }));
      chunk.views.push(item);
      chunk.pixels += item.pixels;
    }
    targets.location.length = data.views.length;
    let done = 0;
    // Decode ahead (the loader decodes in worker threads) while uploading in order.
    const ahead = 16;
    const queue = plan.map((p) => p.view);
    const loading = new Map<number, Promise<Float32Array | Uint8Array>>();
    const startNext = () => {
      const next = queue.shift();
      if (next === undefined) return;
      const image = data.loadImageRgb8 ? data.loadImageRgb8(next) : data.loadImage(next);
      image.catch(() => undefined); // reported when awaited, in order
      loading.set(next, image);
    };
    for (let i = 0; i < ahead; i++) startNext();
    for (const [c, chunk] of chunks.entries()) {
      const buffer = createStorage(ctx.device, `targets.${c}`, chunk.pixels * 4);
      targets.buffers.push(buffer);
      let offset = 0;
      for (const { view, pixels } of chunk.views) {
        const rgb = await loading.get(view)!;
        loading.delete(view);
        startNext();
        const cam = data.views[view].camera;
        // 8-bit RGB, or RGB + mask (view-image.ts: the 4th byte 0 where the loss ignores the pixel)
        const masked = rgb instanceof Uint8Array && rgb.length === pixels * 4;
        if (rgb.length !== pixels * 3 && !masked) throw new Error(`view ${data.views[view].name}: image has ${rgb.length / 3} pixels, camera says ${cam.width}x${cam.height}`);
        const words = masked ? new Uint32Array(rgb.buffer.slice(rgb.byteOffset, rgb.byteOffset + rgb.byteLength)) : rgb instanceof Uint8Array ? packRgb8(rgb, pixels) : packRgba8(rgb, pixels);
        ctx.device.queue.writeBuffer(buffer, offset * 4, words);
        targets.location[view] = { buffer: c, offset, width: cam.width, height: cam.height };
        if (masked) {
          const mask = Uint8Array.from({ length: pixels }, (_, p) => rgb[4 * p + 3]);
          targets.location[view].masked = { same: lossCounts(cam.width, cam.height, 'same', mask), valid: lossCounts(cam.width, cam.height, 'valid', mask) };
        }
        offset += pixels;
        onProgress?.(++done, views.length);
      }
    }
    return targets;
  }

  buffer(view: number): GPUBuffer {
    const loc = this.location[view];
    if (!loc) throw new Error(`view ${view} has no target on the GPU`);
    return this.buffers[loc.buffer];
  }

  get bytes(): number {
    return this.buffers.reduce((s, b) => s + b.size, 0);
  }

  destroy(): void {
    for (const b of this.buffers) b.destroy();
  }
}

/** 8-bit RGB (H*W*3 bytes) as the targets' RGBA8 words (alpha 255). */
export function packRgb8(rgb: Uint8Array, pixels: number): Uint32Array {
  const out = new Uint32Array(pixels);
  for (let i = 0, j = 0; i < pixels; i++, j += 3) out[i] = (rgb[j] | (rgb[j + 1] << 8) | (rgb[j + 2] << 16) | 0xff000000) >>> 0;
  return out;
}
