import { describe, expect, it } from 'vitest';
import { lookAt } from '../../../../shared/scene/camera.js';
import { ViewRenderer } from '../../../../main/engine/mesh/view-render.js';
import { MeshVisibility } from '../../../../main/engine/mesh/visibility.js';
import { testGpu } from '../../../helpers/gpu.js';
import { freshSeed, rng } from '../../../helpers/random.js';
import { uvSphere } from '../../../helpers/mesh-scenes.js';
import { splatsOnMesh } from '../../../helpers/surface-splats.js';

/**
 * The visibility pass on real renders: a sphere of flat splats (radius 0.7) seen by one camera on
 * +z. Vertices on the cap facing the camera (within 30 degrees) are seen; vertices on the far
 * side and inside the sphere (a lid's place, behind the surface) are not; vertices in front of
 * the surface count as seen (the test is one-sided: what lies in front is the carve's business).
 * Near the rim the view is conservative: a vertex whose 3x3 pixels show the slanted surface more
 * than the seen depth in front of it is not seen by this view (others see it face on).
 */
describe('mesh visibility on rendered views (GPU)', async () => {
  const ctx = await testGpu();
  for (const source of ['surface', 'median', 'expected'] as const) {
    it(`counts the sphere's visible cap and nothing hidden (${source} depth)`, async () => {
      const seed = freshSeed();
      const random = rng(seed);
      const sphere = uvSphere(0.7);
      const splats = splatsOnMesh(sphere.positions, sphere.triangles, 3000, seed);
      const camera = { width: 64, height: 64, fx: 70, fy: 70, cx: 32, cy: 32, worldToCamera: lookAt([0, 0, 3], [0, 0, 0]) };
      const point = (r: number, facing: (z: number) => boolean) => {
        for (;;) {
          const d = [random() * 2 - 1, random() * 2 - 1, random() * 2 - 1];
          const n = Math.hypot(d[0], d[1], d[2]);
          if (n < 0.1 || n > 1) continue;
          const p = d.map((x) => (r * x) / n);
          if (facing(p[2] / r)) return p;
        }
      };
      const groups = {
        cap: Array.from({ length: 200 }, () => point(0.7, (z) => z > 0.87)),
        rim: Array.from({ length: 200 }, () => point(0.7, (z) => z > 0.3 && z < 0.5)),
        far: Array.from({ length: 200 }, () => point(0.7, (z) => z < -0.3)),
        inside: Array.from({ length: 200 }, () => point(0.45, (z) => z > 0.5)),
        front: Array.from({ length: 200 }, () => point(0.85, (z) => z > 0.8)),
      };
      const all = Object.values(groups).flat();
      const renderer = await ViewRenderer.create(ctx, splats, [camera], source, false);
      const visibility = await MeshVisibility.create(ctx, Float32Array.from(all.flat()), {
        depthMode: source === 'expected' ? 'expected' : 'direct',
        depthStride: source === 'median' ? 4 : 1,
        seenDepth: 0.05,
      });
      try {
        await renderer.forEachView([camera], () => visibility.bindView(renderer.depthBuffer, renderer.image), async (group) => {
          const commands = ctx.commands('visibility.test');
          visibility.encodeView(commands, group, camera);
          await commands.submit();
        });
        const seen = await visibility.read();
        const share: Record<string, number> = {};
        let at = 0;
        for (const [name, points] of Object.entries(groups)) {
          share[name] = seen.subarray(at, at + points.length).reduce((s, c) => s + c, 0) / points.length;
          at += points.length;
        }
        const detail = `seed ${seed}, ${source}: ${JSON.stringify(share)}`;
        expect(share.cap, detail).toBeGreaterThan(0.97);
        expect(share.front, detail).toBeGreaterThan(0.97);
        expect(share.far, detail).toBe(0);
        expect(share.inside, detail).toBe(0);
        expect(share.rim, detail).toBeLessThan(share.cap);
      } finally {
        visibility.destroy();
        renderer.destroy();
      }
    }, 60_000);
  }
});
