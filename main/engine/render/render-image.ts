/**
 * Images of a splat set from cameras, on the GPU (the CLI's `render`, video frames): the forward
 * pass, retried with a larger intersection buffer when the guess overflows. An ImageRenderer keeps
 * the uploaded splats, the pipelines and the frame buffers between images of one size (a video
 * renders hundreds), so only the first frame pays for them.
 */
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import type { SplatSet } from '../../../shared/scene/splats.js';
import { readBuffer } from '../gpu/buffers.js';
import type { GpuContext } from '../gpu/context.js';
import { GpuSplats } from './gpu-splats.js';
import { Rasterizer, type RasterFrame } from './rasterizer.js';

export interface RenderImageOptions {
  background: readonly [number, number, number];
  antialiased: boolean;
  shDegree: number;
}

export interface RenderedImage {
  /** RGBA floats, display values in [0, 1], row-major, width * height * 4. */
  rgba: Float32Array;
  visible: number;
  intersections: number;
}

export interface ImageRenderer {
  render(camera: PinholeCamera): Promise<RenderedImage>;
  destroy(): void;
}

export async function createImageRenderer(gpu: GpuContext, splats: SplatSet, options: RenderImageOptions): Promise<ImageRenderer> {
  const rasterizer = await Rasterizer.create(gpu, { passes: 'forward' });
  const gpuSplats = GpuSplats.fromHost(gpu, splats);
  let capacity = Math.max(1 << 16, splats.count * 4);
  let frame: RasterFrame | undefined;
  let frameSize = '';
  const dropFrame = () => {
    frame?.destroy();
    frame = undefined;
  };
  return {
    async render(camera) {
      for (;;) {
        const size = `${camera.width}x${camera.height}`;
        if (!frame || frameSize !== size) {
          dropFrame();
          frame = await rasterizer.createFrame(gpuSplats, camera.width, camera.height, capacity);
          frameSize = size;
        }
        const commands = gpu.commands('render');
        rasterizer.encodeForward(commands, frame, camera, { background: [...options.background], antialiased: options.antialiased, shDegree: options.shDegree });
        await commands.submit();
        const counts = await rasterizer.readCounts(frame);
        if (counts.overflow) {
          capacity = Math.ceil(counts.intersections * 1.05);
          dropFrame();
          continue;
        }
        const rgba = new Float32Array(await readBuffer(gpu.device, frame.image, camera.width * camera.height * 16));
        return { rgba, visible: counts.visible, intersections: counts.intersections };
      }
    },
    destroy() {
      dropFrame();
      gpuSplats.destroy();
    },
  };
}

export async function renderImage(gpu: GpuContext, splats: SplatSet, camera: PinholeCamera, options: RenderImageOptions): Promise<RenderedImage> {
  const renderer = await createImageRenderer(gpu, splats, options);
  try {
    return await renderer.render(camera);
  } finally {
    renderer.destroy();
  }
}
