import { createStorage } from '../gpu/buffers.js';
import type { GpuContext } from '../gpu/context.js';
import { lossCounts, packRgba8, type LossCounts, type SsimPadding } from './loss.js';
import type { TrainingData } from './data.js';

/** Per view: which buffer, the pixel offset in it, and (once loaded) the masked loss counts. */
export interface TargetLocation {
  buffer: number;
  offset: number;
  width: number;
  height: number;
  /** For a view with masked pixels, the loss's counts per SSIM padding (lossCounts; absent: nothing masked). Set when the view is loaded. */
  masked?: Record<SsimPadding, LossCounts>;
}

export interface TargetLoading {
  /** Views loaded first, in this order (the first epoch's draw); the others follow in the order given to `start`. */
  first?: readonly number[];
  onProgress?: (done: number, total: number) => void;
}

/** Images decoded at once: sharp decodes on libuv's pool while this thread packs and uploads the ones done. */
const LOADS_IN_FLIGHT = 16;

/**
 * Every view's target image on the GPU as RGBA8 words, packed into as few buffers as the
 * device's binding limit allows (one buffer per chunk; a view never straddles two).
 *
 * The buffers and every view's place in them follow from the cameras alone, so `start` returns
 * at once and the images load behind it: training's first steps need only their own views
 * (issue 18: on the H200 mic's 150 images took most of the start-up). A step waits for its view
 * (`whenReady`), an evaluation for all (`allReady`); what a view's words are never depends on
 * when it arrived, so a run trains bit-identically with or without the overlap.
 */
export class GpuTargets {
  private readonly buffers: GPUBuffer[] = [];
  readonly location: TargetLocation[] = [];
  private readonly ready = new Map<number, Deferred>();
  private readonly pending: number[] = [];
  private inFlight = 0;
  private done = 0;
  private destroyed = false;
  /** The first load error (reported by every later whenReady). */
  private failure: unknown;
  private readonly total: number;

  private constructor(
    private readonly ctx: GpuContext,
    private readonly data: TrainingData,
    views: readonly number[],
    private readonly onProgress?: (done: number, total: number) => void,
  ) {
    this.total = views.length;
  }

  /** Every view uploaded before it resolves (tests, and callers that want the images first). */
  static async upload(ctx: GpuContext, data: TrainingData, views: readonly number[], onProgress?: (done: number, total: number) => void): Promise<GpuTargets> {
    const targets = GpuTargets.start(ctx, data, views, { onProgress });
    try {
      await targets.allReady();
    } catch (error) {
      targets.destroy();
      throw error;
    }
    return targets;
  }

  /** Plans the buffers, places every view and starts loading; returns before any image has arrived. */
  static start(ctx: GpuContext, data: TrainingData, views: readonly number[], loading: TargetLoading = {}): GpuTargets {
    const targets = new GpuTargets(ctx, data, views, loading.onProgress);
    targets.place(views);
    const first = (loading.first ?? []).filter((v) => targets.ready.has(v));
    const chosen = new Set(first);
    targets.pending.push(...first, ...views.filter((v) => !chosen.has(v)));
    targets.pump();
    return targets;
  }

  private place(views: readonly number[]) {
    const { ctx, data } = this;
    const limit = Math.min(ctx.device.limits.maxStorageBufferBindingSize, ctx.device.limits.maxBufferSize);
    const chunks: { views: { view: number; pixels: number }[]; pixels: number }[] = [];
    for (const view of views) {
      const pixels = data.views[view].camera.width * data.views[view].camera.height;
      if (pixels * 4 > limit) throw new Error(`view ${data.views[view].name}: ${pixels} pixels exceed the device's binding limit`);
      let chunk = chunks.at(-1);
      if (!chunk || (chunk.pixels + pixels) * 4 > limit) chunks.push((chunk = { views: [], pixels: 0 }));
      chunk.views.push({ view, pixels });
      chunk.pixels += pixels;
    }
    this.location.length = data.views.length;
    for (const [c, chunk] of chunks.entries()) {
      this.buffers.push(createStorage(ctx.device, `targets.${c}`, chunk.pixels * 4));
      let offset = 0;
      for (const { view, pixels } of chunk.views) {
        const cam = data.views[view].camera;
        this.location[view] = { buffer: c, offset, width: cam.width, height: cam.height };
        this.ready.set(view, deferred());
        offset += pixels;
      }
    }
  }

  /** Starts loads up to the in-flight limit, in the pending order. */
  private pump() {
    while (this.inFlight < LOADS_IN_FLIGHT && this.pending.length && !this.destroyed) this.load(this.pending.shift()!);
  }

  private load(view: number) {
    this.inFlight++;
    const { data } = this;
    const image = data.loadImageRgb8 ? data.loadImageRgb8(view) : data.loadImage(view);
    void image
      .then((rgb) => {
        if (!this.destroyed) this.write(view, rgb);
      })
      .then(() => this.ready.get(view)!.resolve(), (error: unknown) => {
        this.failure ??= error;
        this.ready.get(view)!.reject(error);
      })
      .finally(() => {
        this.inFlight--;
        this.pump();
      });
  }

  private write(view: number, rgb: Float32Array | Uint8Array) {
    const loc = this.location[view];
    const { name } = this.data.views[view];
    const pixels = loc.width * loc.height;
    // 8-bit RGB, or RGB + mask (view-image.ts: the 4th byte 0 where the loss ignores the pixel)
    const masked = rgb instanceof Uint8Array && rgb.length === pixels * 4;
    if (rgb.length !== pixels * 3 && !masked) throw new Error(`view ${name}: image has ${rgb.length / 3} pixels, camera says ${loc.width}x${loc.height}`);
    const words = masked ? new Uint32Array(rgb.buffer.slice(rgb.byteOffset, rgb.byteOffset + rgb.byteLength)) : rgb instanceof Uint8Array ? packRgb8(rgb, pixels) : packRgba8(rgb, pixels);
    this.ctx.device.queue.writeBuffer(this.buffers[loc.buffer], loc.offset * 4, words);
    if (masked) {
      const mask = new Uint8Array(pixels);
      for (let p = 0; p < pixels; p++) mask[p] = rgb[4 * p + 3];
      loc.masked = { same: lossCounts(loc.width, loc.height, 'same', mask), valid: lossCounts(loc.width, loc.height, 'valid', mask) };
    }
    this.onProgress?.(++this.done, this.total);
  }

  /**
   * Resolves once `view`'s image is on the GPU (a view not started yet goes next). Rejects with
   * the first load that failed, whichever view it was: a bad image stops the run at the next step
   * rather than when the sampler reaches it.
   */
  whenReady(view: number): Promise<void> {
    const entry = this.ready.get(view);
    if (!entry) return Promise.reject(new Error(`view ${view} has no target on the GPU`));
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const at = this.pending.indexOf(view);
    if (at >= 0) {
      this.pending.splice(at, 1);
      this.load(view); // the sampler waits for it: past the in-flight limit
    }
    return entry.promise;
  }

  /** Resolves once every view is on the GPU; rejects with the first load error. */
  async allReady(): Promise<void> {
    await Promise.all([...this.ready.values()].map((d) => d.promise));
  }

  /** Views on the GPU so far. */
  get loaded(): number {
    return [...this.ready.values()].filter((d) => d.settled === 'resolved').length;
  }

  buffer(view: number): GPUBuffer {
    const loc = this.location[view];
    if (!loc) throw new Error(`view ${view} has no target on the GPU`);
    if (this.ready.get(view)?.settled !== 'resolved') throw new Error(`view ${this.data.views[view].name}: its target is not on the GPU yet (await whenReady first)`);
    return this.buffers[loc.buffer];
  }

  get bytes(): number {
    return this.buffers.reduce((s, b) => s + b.size, 0);
  }

  /** Frees the buffers; loads still running finish without writing. */
  destroy(): void {
    this.destroyed = true;
    this.pending.length = 0;
    for (const b of this.buffers) b.destroy();
  }
}

interface Deferred {
  promise: Promise<void>;
  settled?: 'resolved' | 'rejected';
  resolve(): void;
  reject(error: unknown): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // a view nobody waits for (a run cancelled early) must not be an unhandled rejection
  promise.catch(() => undefined);
  const d: Deferred = {
    promise,
    resolve: () => {
      d.settled ??= 'resolved';
      resolve();
    },
    reject: (error) => {
      d.settled ??= 'rejected';
      reject(error);
    },
  };
  return d;
}

/** 8-bit RGB (H*W*3 bytes) as the targets' RGBA8 words (alpha 255). */
export function packRgb8(rgb: Uint8Array, pixels: number): Uint32Array {
  const out = new Uint32Array(pixels);
  for (let i = 0, j = 0; i < pixels; i++, j += 3) out[i] = (rgb[j] | (rgb[j + 1] << 8) | (rgb[j + 2] << 16) | 0xff000000) >>> 0;
  return out;
}
