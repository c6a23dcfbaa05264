import { describe, expect, it } from 'vitest';
import { extractMesh } from '../../../../main/engine/mesh/extract.js';
import { triangleComponents } from '../../../../main/engine/mesh/cleanup.js';
import { testGpu } from '../../../helpers/gpu.js';
import { freshSeed } from '../../../helpers/random.js';
import { sphereCameras, uvSphere } from '../../../helpers/mesh-scenes.js';
import { splatsOnMesh } from '../../../helpers/surface-splats.js';

describe('mesh extraction end to end (GPU)', () => {
  it('recovers a sphere of splats: one closed piece, on the surface within a pixel footprint, coloured like the splats', async () => {
    const ctx = await testGpu();
    const seed = freshSeed();
    const sphere = uvSphere(0.7);
    // red above the equator, blue below
    const splats = splatsOnMesh(sphere.positions, sphere.triangles, 3000, seed, (p) => (p[1] > 0 ? [0.9, 0.1, 0.1] : [0.1, 0.1, 0.9]));
    const cameras = sphereCameras(16, 64);
    const { mesh, stats } = await extractMesh(ctx, { splats, cameras }, { resolution: 40, truncationVoxels: 3, targetTriangles: 0, minComponentFraction: 0.05 });
    expect(stats.triangles, `seed ${seed}`).toBeGreaterThan(1000);
    expect(triangleComponents(mesh).sizes.length, `seed ${seed}`).toBe(1);
    const footprint = (3 - 0.7) / cameras[0].fx; // world size of a pixel at the sphere's front
    let sum = 0;
    let wrongColour = 0;
    const n = mesh.positions.length / 3;
    for (let v = 0; v < n; v++) {
      const [x, y, z] = mesh.positions.subarray(3 * v, 3 * v + 3);
      sum += Math.abs(Math.hypot(x, y, z) - 0.7);
      const [r, , b] = mesh.colors.subarray(3 * v, 3 * v + 3);
      if (Math.abs(y) > 0.15 && (y > 0 ? r < 150 || b > 100 : b < 150 || r > 100)) wrongColour++;
    }
    expect(sum / n, `seed ${seed}: mean distance from the sphere (pixel footprint ${footprint.toFixed(4)})`).toBeLessThan(1.5 * footprint);
    expect(wrongColour / n, `seed ${seed}: vertices with the other hemisphere's colour`).toBeLessThan(0.02);
    expect(stats.timings.total_s).toBeGreaterThan(0);
  }, 180_000);

  it('takes each depth source: surface (default) and ray land closest on flat splats, expected and median in front of the surface', async () => {
    const ctx = await testGpu();
    const seed = freshSeed();
    const sphere = uvSphere(0.7);
    const splats = splatsOnMesh(sphere.positions, sphere.triangles, 3000, seed);
    const cameras = sphereCameras(16, 64);
    const bias: Record<string, number> = {};
    for (const depth of ['surface', 'ray', 'expected', 'median'] as const) {
      const { mesh } = await extractMesh(ctx, { splats, cameras }, { resolution: 40, truncationVoxels: 3, targetTriangles: 0, minComponentFraction: 0.3, depth });
      let sum = 0;
      const n = mesh.positions.length / 3;
      for (let v = 0; v < n; v++) sum += Math.hypot(mesh.positions[3 * v], mesh.positions[3 * v + 1], mesh.positions[3 * v + 2]) - 0.7;
      bias[depth] = sum / n;
    }
    const footprint = (3 - 0.7) / cameras[0].fx;
    expect(Math.abs(bias.ray), `seed ${seed}: ${JSON.stringify(bias)}`).toBeLessThan(0.4 * footprint);
    expect(Math.abs(bias.surface), `seed ${seed}: ${JSON.stringify(bias)}`).toBeLessThan(0.4 * footprint);
    expect(bias.expected, `seed ${seed}: ${JSON.stringify(bias)}`).toBeGreaterThan(2 * Math.abs(bias.ray));
    expect(bias.median, `seed ${seed}: ${JSON.stringify(bias)}`).toBeGreaterThan(2 * Math.abs(bias.ray));
  }, 300_000);

  it('fat opaque splats: surface depth lies on or outside ray depth, both between the centres and the union\'s visible extent', async () => {
    const ctx = await testGpu();
    const seed = freshSeed();
    const centres = 0.6;
    const sigma = 0.05;
    const sphere = uvSphere(centres);
    const splats = splatsOnMesh(sphere.positions, sphere.triangles, 3000, seed);
    splats.logScales.fill(Math.log(sigma));
    splats.opacityLogits.fill(Math.log(0.99 / 0.01));
    const cameras = sphereCameras(16, 64);
    const radius: Record<string, number> = {};
    for (const depth of ['surface', 'ray'] as const) {
      const { mesh } = await extractMesh(ctx, { splats, cameras }, { resolution: 48, truncationVoxels: 3, targetTriangles: 0, minComponentFraction: 0.3, depth });
      let sum = 0;
      const n = mesh.positions.length / 3;
      for (let v = 0; v < n; v++) sum += Math.hypot(mesh.positions[3 * v], mesh.positions[3 * v + 1], mesh.positions[3 * v + 2]);
      radius[depth] = sum / n;
    }
    // A single splat shows out to k sigma (0.99 exp(-k^2 / 2) = 1/2); overlapping neighbours make
    // the union show a little further; measured here: ray ~1.4 sigma out, surface ~0.06 sigma more.
    const k = Math.sqrt(2 * Math.log(2 * 0.99));
    const detail = `seed ${seed}: ${JSON.stringify(radius)}`;
    expect(radius.ray - centres, detail).toBeGreaterThan(0.5 * k * sigma);
    expect(radius.surface - centres, detail).toBeLessThan(2 * k * sigma);
    expect(radius.surface, detail).toBeGreaterThanOrEqual(radius.ray);
  }, 300_000);
});
