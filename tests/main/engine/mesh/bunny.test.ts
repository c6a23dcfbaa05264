/**
 * The mesh pipeline on a small Stanford bunny, on whatever adapter this machine has (llvmpipe in
 * CI), from ideal splats (flat discs sampled on gt_mesh): the extraction alone, tight bounds. The
 * trained bunny (the whole product) is bunny-trained.test.ts, a file of its own so that the two
 * run side by side; the scene is tests/helpers/bunny-scene.ts. Timings and metrics are printed.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bunnyAvailable, bunnyScene, extractAndScore, tools } from '../../../helpers/bunny-scene.js';
import { splatsOnMesh } from '../../../helpers/surface-splats.js';

const available = bunnyAvailable();

describe('bunny: render, extract, score', () => {
  it.runIf(available)('ideal splats (flat discs on the true surface) come back on the surface: F >= 0.4 at tau 0.01, >= 0.98 at 0.05, chamfer <= 0.014', async () => {
    const s = await bunnyScene();
    const { loadMesh } = (await import(/* @vite-ignore */ path.join(tools, 'lib/mesh-io.mjs'))) as { loadMesh: (f: string, o: object) => { positions: Float32Array; triangles: Uint32Array } };
    const gt = loadMesh(s.gt, { loadTextures: false });
    const { stats, meshS, at01, at05 } = await extractAndScore(splatsOnMesh(gt.positions, gt.triangles, 8000, 1), s, 'ideal', 'surface'); // flat splats: the ray-entry depth ('auto' would take the expected depth, made for fat splats)
    const report = { render_views_s: s.renderS, mesh_s: meshS, triangles: stats.triangles, fscore_01: at01.fscore, precision_01: at01.precision, recall_01: at01.recall, fscore_05: at05.fscore, precision_05: at05.precision, recall_05: at05.recall, chamfer: at01.chamfer };
    console.log(`bunny mesh from ideal splats: ${JSON.stringify(report)}`);
    expect(stats.componentsKept).toBe(1);
    expect(at01.fscore, JSON.stringify(report)).toBeGreaterThanOrEqual(0.4);
    expect(at05.fscore, JSON.stringify(report)).toBeGreaterThanOrEqual(0.98);
    expect(at01.chamfer, JSON.stringify(report)).toBeLessThanOrEqual(0.014);
  }, 600_000);
});
