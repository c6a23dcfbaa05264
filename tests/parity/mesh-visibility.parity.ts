import { uploadStorage } from '../../main/engine/gpu/buffers.js';
import type { GpuContext } from '../../main/engine/gpu/context.js';
import type { KernelVariant } from '../../main/engine/gpu/kernels.js';
import { MeshVisibility } from '../../main/engine/mesh/visibility.js';
import { rng } from '../helpers/random.js';
import { visibilityReference } from '../reference/tsdf.js';
import { randomCamera, randomShapes, renderView } from './mesh.parity.js';
import type { ParityResult } from './types.js';

export interface VisibilityParityOptions {
  vertices?: number;
  views?: number;
  depthMode?: 'expected' | 'direct';
  /** f32 values per pixel of the depth buffer (4: a frame's geometry, median first). */
  depthStride?: number;
  variant?: KernelVariant;
}

const SEEN_DEPTH = 0.05;

/**
 * The visibility count (tsdf.wgsl tsdf_visibility) over several random views of random shapes
 * (ray-marched depth, random alpha): vertices half on the surfaces a view shows, moved along its
 * ray by up to twice the seen depth either way (so both sides of the bound are hit), half anywhere
 * in the cube; counts start from random values (a kernel that assigned instead of adding would
 * differ). Every count must equal the float64 reference's, but for vertices at a float32 decision
 * boundary, left out and counted. A case where no vertex or every vertex is counted proves little.
 */
export async function meshVisibilityParity(ctx: GpuContext, seed: number, options: VisibilityParityOptions = {}): Promise<ParityResult> {
  const random = rng(seed);
  const shapes = randomShapes(random, 3);
  const depthMode = options.depthMode ?? 'expected';
  const stride = options.depthStride ?? 1;
  const vertexCount = options.vertices ?? 5000;
  const viewCount = options.views ?? 3;
  const views = Array.from({ length: viewCount }, () => {
    const width = 24 + Math.floor(random() * 16);
    const height = 20 + Math.floor(random() * 16);
    const camera = randomCamera(random, width, height);
    return { camera, ...renderView(random, camera, shapes, depthMode) };
  });
  const positions = new Float32Array(3 * vertexCount);
  for (let i = 0; i < vertexCount; i++) {
    const view = views[Math.floor(random() * viewCount)];
    const { camera } = view;
    const pixel = Math.floor(random() * camera.width * camera.height);
    const alpha = view.image[4 * pixel + 3];
    if (i % 2 === 0 && alpha >= 0.5) {
      // a point on the surface this pixel shows, moved along the ray
      const x = (pixel % camera.width) + random();
      const y = Math.floor(pixel / camera.width) + random();
      const z = (depthMode === 'expected' ? view.depth[pixel] / alpha : view.depth[pixel]) + (random() * 4 - 2) * SEEN_DEPTH;
      const c = [((x - camera.cx) / camera.fx) * z, ((y - camera.cy) / camera.fy) * z, z];
      const m = camera.worldToCamera;
      // world = R^T (c - t)
      for (let k = 0; k < 3; k++) positions[3 * i + k] = m[k] * (c[0] - m[3]) + m[4 + k] * (c[1] - m[7]) + m[8 + k] * (c[2] - m[11]);
    } else {
      for (let k = 0; k < 3; k++) positions[3 * i + k] = random() * 2.4 - 1.2;
    }
  }
  const initial = Uint32Array.from({ length: vertexCount }, () => Math.floor(random() * 5));
  const want = Float64Array.from(initial);
  const ambiguous = new Set<number>();
  const visibility = await MeshVisibility.create(ctx, positions, { depthMode: depthMode === 'direct' ? 'direct' : 'expected', depthStride: stride, seenDepth: SEEN_DEPTH, variant: options.variant });
  const { device } = ctx;
  device.queue.writeBuffer(visibility.seen, 0, initial);
  for (const view of views) {
    const strided = new Float32Array(view.depth.length * stride).map((_, i) => (i % stride === 0 ? view.depth[i / stride] : -1e6));
    visibilityReference(positions, want, { camera: view.camera, depth: strided, image: view.image }, { alphaMin: 0.5, depthMode, near: 0.01, seenDepth: SEEN_DEPTH, depthStride: stride }, ambiguous);
    const depthBuffer = uploadStorage(device, 'visibility.test.depth', strided);
    const imageBuffer = uploadStorage(device, 'visibility.test.image', view.image);
    const commands = ctx.commands('visibility.test');
    visibility.encodeView(commands, visibility.bindView(depthBuffer, imageBuffer), view.camera);
    await commands.submit();
    await device.queue.onSubmittedWorkDone();
    depthBuffer.destroy();
    imageBuffer.destroy();
  }
  const got = await visibility.read();
  visibility.destroy();
  ctx.assertNoErrors('visibility parity');
  let mismatches = 0;
  let counted = 0;
  let firstBad = -1;
  for (let v = 0; v < vertexCount; v++) {
    if (ambiguous.has(v)) continue;
    if (want[v] > initial[v]) counted++;
    if (got[v] !== want[v]) {
      mismatches++;
      if (firstBad < 0) firstBad = v;
    }
  }
  const considered = vertexCount - ambiguous.size;
  const proves = counted > considered / 20 && counted < considered;
  return {
    name: `mesh visibility (${vertexCount} vertices, ${viewCount} views, ${depthMode} depth, stride ${stride}): ${counted} seen at least once, ${ambiguous.size} at a float32 boundary left out`,
    variant: options.variant ?? ctx.info.variant,
    seed,
    ok: mismatches === 0 && proves,
    error: mismatches,
    tolerance: 0,
    detail: mismatches ? `${mismatches} counts differ (first: vertex ${firstBad}, ${got[firstBad]} want ${want[firstBad]})` : proves ? undefined : `${counted} of ${considered} vertices counted`,
  };
}
