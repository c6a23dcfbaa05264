/**
 * The frame's counters for a set of cameras (kernels/intersect.wgsl's `counts`: visible splats,
 * intersections, ...), from the forward up to the intersection count, no sort or raster: what the
 * trainer sizes its intersection buffers and its visible capacity from. One submit per camera
 * (each writes the camera uniform), one readback for all: the queue keeps order. A sync point.
 */
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import type { GpuContext } from '../gpu/context.js';
import type { RenderSettings } from '../render/camera-uniform.js';
import type { RasterFrame, Rasterizer } from '../render/rasterizer.js';

/** Each camera's 8 counters (index them with COUNT), in the order given. */
export async function countViews(ctx: GpuContext, rasterizer: Rasterizer, frame: RasterFrame, cameras: readonly PinholeCamera[], settings: RenderSettings): Promise<Uint32Array[]> {
  if (!cameras.length) return [];
  const staging = ctx.device.createBuffer({ label: 'train.viewCounts', size: cameras.length * 32, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  try {
    for (const [i, camera] of cameras.entries()) {
      const commands = ctx.commands('count');
      rasterizer.encodeIntersectionCount(commands, frame, camera, settings);
      commands.copyBuffer(frame.counts, 0, staging, i * 32, 32);
      await commands.submit();
    }
    await staging.mapAsync(GPUMapMode.READ);
    const counts = new Uint32Array(staging.getMappedRange().slice(0));
    return cameras.map((_, i) => counts.subarray(i * 8, i * 8 + 8));
  } finally {
    staging.destroy();
  }
}
