/**
 * One image of a splat set from one camera, on the GPU (the CLI's `render`): the forward pass,
 * retried with a larger intersection buffer when the first guess overflows.
 */
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import type { SplatSet } from '../../../shared/scene/splats.js';
import { readBuffer } from '../gpu/buffers.js';
import type { GpuContext } from '../gpu/context.js';
import { GpuSplats } from './gpu-splats.js';
import { Rasterizer } from './rasterizer.js';

export interface RenderImageOptions {
  background: readonly [number, number, number];
  antialiased: boolean;
  shDegree: number;
}

export async function renderImage(gpu: GpuContext, splats: SplatSet, camera: PinholeCamera, options: RenderImageOptions): Promise<{ rgba: Float32Array; visible: number; intersections: number }> {
  const rasterizer = await Rasterizer.create(gpu, { passes: 'forward' });
  const gpuSplats = GpuSplats.fromHost(gpu, splats);
  try {
    let capacity = Math.max(1 << 16, splats.count * 4);
    for (;;) {
      const frame = await rasterizer.createFrame(gpuSplats, camera.width, camera.height, capacity);
      try {
        const commands = gpu.commands('render');
        rasterizer.encodeForward(commands, frame, camera, { background: [...options.background], antialiased: options.antialiased, shDegree: options.shDegree });
        await commands.submit();
        const counts = await rasterizer.readCounts(frame);
        if (counts.overflow) {
          capacity = Math.ceil(counts.intersections * 1.05);
          continue;
        }
        const rgba = new Float32Array(await readBuffer(gpu.device, frame.image, camera.width * camera.height * 16));
        return { rgba, visible: counts.visible, intersections: counts.intersections };
      } finally {
        frame.destroy();
      }
    }
  } finally {
    gpuSplats.destroy();
  }
}
