import { afterAll, describe, expect, it } from 'vitest';
import { openGpu, type GpuContext } from '../../../../main/engine/gpu/context.js';
import { extractMesh } from '../../../../main/engine/mesh/extract.js';
import { renderImage } from '../../../../main/engine/render/render-image.js';
import { Rasterizer } from '../../../../main/engine/render/rasterizer.js';
import { orbitCameras, torusKnotSplats } from '../../../../main/engine/train/sample-scene.js';

/** The backward's entry points, by the kernel registry's cache keys (`kernel:entryPoint|...`). */
const BACKWARD = /^(project:project_backward|rasterize:rasterize_backward(_cas)?|gather:gather_(grads|carries))\|/;

// A fresh device per test: the registry's list is everything compiled on it, so a shared one
// would show other tests' pipelines.
const opened: GpuContext[] = [];
async function freshGpu(): Promise<GpuContext> {
  const ctx = await openGpu({ backend: (process.env.ARGONAUT_BACKEND as never) ?? undefined, kernelVariant: 'auto' });
  opened.push(ctx);
  return ctx;
}
afterAll(() => opened.forEach((ctx) => ctx.destroy()));

describe('commands that only draw compile only the forward pass', () => {
  const splats = torusKnotSplats(400, 7);
  const [camera] = orbitCameras(1, 32, 24);

  it('the default (training) rasterizer compiles the backward: the check below can fail', async () => {
    const ctx = await freshGpu();
    await Rasterizer.create(ctx);
    expect(ctx.kernels.requestedKeys.filter((k) => BACKWARD.test(k))).toHaveLength(4);
  });

  it('render (renderImage) draws the image with no backward pipeline compiled', async () => {
    const ctx = await freshGpu();
    const image = await renderImage(ctx, splats, camera, { background: [0, 0, 0], antialiased: false, shDegree: 0 });
    expect(image.visible).toBeGreaterThan(0);
    expect(image.rgba.some((v, i) => i % 4 === 3 && v > 0.1), 'some pixel is covered').toBe(true);
    const keys = ctx.kernels.requestedKeys;
    expect(keys.some((k) => k.startsWith('rasterize:rasterize_forward|'))).toBe(true);
    expect(keys.filter((k) => BACKWARD.test(k))).toEqual([]);
  });

  it('mesh (extractMesh) compiles no backward pipeline', async () => {
    const ctx = await freshGpu();
    const cameras = orbitCameras(4, 32, 24);
    await extractMesh(ctx, { splats, cameras }, { resolution: 16, truncationVoxels: 3, targetTriangles: 0, minComponentFraction: 0.05 });
    const keys = ctx.kernels.requestedKeys;
    expect(keys.some((k) => k.startsWith('rasterize:rasterize_forward|'))).toBe(true);
    expect(keys.filter((k) => BACKWARD.test(k))).toEqual([]);
  });

  it("a forward-only rasterizer refuses the backward, naming why", async () => {
    const ctx = await freshGpu();
    const rasterizer = await Rasterizer.create(ctx, { passes: 'forward' });
    expect(() => rasterizer.encodeBackward(ctx.commands('x'), undefined as never)).toThrow(/passes 'forward'/);
  });
});
