/**
 * Renders the views mesh extraction reads: each camera with the training rasterizer over a black
 * background, then the depth source's extra pass (ray-depth.ts) where it has one. One frame is
 * reused for every view; when a view's intersections overflow it, the frame grows and the view is
 * rendered again, and `generation` moves on so bind groups made for the old buffers are remade.
 * Fusion (tsdf.ts) and the visibility count (visibility.ts) both render through it.
 */
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import type { SplatSet } from '../../../shared/scene/splats.js';
import type { GpuRange } from '../gpu/buffers.js';
import type { GpuCommands } from '../gpu/commands.js';
import type { GpuContext } from '../gpu/context.js';
import { GpuSplats } from '../render/gpu-splats.js';
import { Rasterizer, type RasterFrame } from '../render/rasterizer.js';
import { RayDepth } from './ray-depth.js';

/** The depth a view contributes, resolved ('auto' taken): see extract.ts DepthSource. */
export type ResolvedDepthSource = 'surface' | 'ray' | 'expected' | 'median';

interface ViewDepth {
  buffer: GpuRange;
  /** Extra work after the frame's forward (the ray depth pass). */
  encode?: (commands: GpuCommands) => void;
  destroy?: () => void;
}

function viewDepthOf(frame: RasterFrame, source: ResolvedDepthSource, rayDepth: RayDepth | undefined): ViewDepth {
  if (source === 'expected') return { buffer: frame.depth };
  if (source === 'median') return { buffer: frame.geometry }; // (median, distortion, slot, depth) per pixel
  const target = rayDepth!.bind(frame);
  return { buffer: target.depth, encode: (commands) => rayDepth!.encode(commands, target), destroy: () => target.destroy() };
}

export class ViewRenderer {
  /** Bumped whenever the frame's buffers are replaced. */
  generation = 0;

  private constructor(
    private readonly ctx: GpuContext,
    private readonly rasterizer: Rasterizer,
    private readonly splats: GpuSplats,
    private readonly rayDepth: RayDepth | undefined,
    private readonly source: ResolvedDepthSource,
    private readonly settings: { background: readonly [number, number, number]; antialiased: boolean; shDegree: number },
    readonly width: number,
    readonly height: number,
    private frame: RasterFrame,
    private depth: ViewDepth,
    private capacity: number,
  ) {}

  /** Frames as large as the largest camera. */
  static async create(ctx: GpuContext, splats: SplatSet, cameras: readonly PinholeCamera[], source: ResolvedDepthSource, antialiased: boolean): Promise<ViewRenderer> {
    const width = Math.max(...cameras.map((c) => c.width));
    const height = Math.max(...cameras.map((c) => c.height));
    const rasterizer = await Rasterizer.createTuned(ctx, { passes: 'forward', ...(source === 'median' ? { outputs: { median: true } } : {}) });
    const rayDepth = source === 'ray' || source === 'surface' ? await RayDepth.create(ctx, { entry: source === 'surface' }) : undefined;
    const gpuSplats = GpuSplats.fromHost(ctx, splats);
    const capacity = Math.max(1 << 16, splats.count * 4);
    const frame = await rasterizer.createFrame(gpuSplats, width, height, capacity);
    const settings = { background: [0, 0, 0] as const, antialiased, shDegree: splats.shDegree };
    return new ViewRenderer(ctx, rasterizer, gpuSplats, rayDepth, source, settings, width, height, frame, viewDepthOf(frame, source, rayDepth), capacity);
  }

  /** The per-pixel depth buffer the last render wrote (as the source stores it). */
  get depthBuffer(): GpuRange {
    return this.depth.buffer;
  }

  /** The last render's image (vec4 per pixel: rgb over black, alpha). */
  get image(): GpuRange {
    return this.frame.image;
  }

  /** Renders `camera` into the frame (submitted and finished: its buffers are ready to read). */
  async render(camera: PinholeCamera): Promise<void> {
    for (;;) {
      const commands = this.ctx.commands('mesh.render');
      this.rasterizer.encodeForward(commands, this.frame, camera, this.settings);
      this.depth.encode?.(commands);
      await commands.submit();
      const counts = await this.rasterizer.readCounts(this.frame);
      if (!counts.overflow) return;
      this.releaseFrame();
      this.capacity = Math.ceil(counts.intersections * 1.1);
      this.frame = await this.rasterizer.createFrame(this.splats, this.width, this.height, this.capacity);
      this.depth = viewDepthOf(this.frame, this.source, this.rayDepth);
      this.generation++;
    }
  }

  /**
   * Renders every camera in turn and hands each view to `each` with the binding `bind` made for
   * the current buffers (made again after a frame grows). `before` runs ahead of each view (a
   * cancellation check).
   */
  async forEachView<B>(cameras: readonly PinholeCamera[], bind: () => B, each: (binding: B, view: number) => Promise<void>, before?: () => void): Promise<void> {
    let binding = bind();
    let bound = this.generation;
    for (let v = 0; v < cameras.length; v++) {
      before?.();
      await this.render(cameras[v]);
      if (bound !== this.generation) {
        binding = bind();
        bound = this.generation;
      }
      await each(binding, v);
    }
  }

  private releaseFrame(): void {
    this.depth.destroy?.();
    this.frame.destroy();
  }

  destroy(): void {
    this.releaseFrame();
    this.splats.destroy();
  }
}
