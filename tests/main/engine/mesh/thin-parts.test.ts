/**
 * Free-space carving and the splat-support clean-up keep thin parts: a table with four legs about
 * 2 px (3 voxels) wide (tests/helpers/table-scene.ts), as ideal splats on its surface plus two
 * spurious things a trained model leaves, each a surface the TSDF fuses:
 *   - an opaque floater above the table (a ball of splats every view renders, the photos do not
 *     show: only the images' alpha can say it is not there);
 *   - a haze beside a leg (many splats of opacity 0.3 that render opaque together: no splat of
 *     it is opaque enough to support a surface).
 * Small-piece removal is off (minComponentFraction 0), so what goes is what carving and the
 * support test remove, not what the size rule would have.
 */
import { describe, expect, it } from 'vitest';
import { loadDataset } from '../../../../main/engine/dataset/dataset.js';
import { extractMesh, type MeshOptions } from '../../../../main/engine/mesh/extract.js';
import type { TriangleMesh } from '../../../../main/engine/mesh/mesh.js';
import { loadImageAlpha } from '../../../../main/engine/mesh/view-alpha.js';
import { emptySplats, SH_C0, type SplatSet } from '../../../../shared/scene/splats.js';
import { testGpu } from '../../../helpers/gpu.js';
import { rng } from '../../../helpers/random.js';
import { splatsOnMesh } from '../../../helpers/surface-splats.js';
import { tableAvailable, tableScene } from '../../../helpers/table-scene.js';

const available = tableAvailable();
if (!available) console.warn('skipping the thin-parts mesh test: needs ../shared/tools/render-views.mjs (the shared team folder)');

/** `count` isotropic splats of scale `scale` and opacity logit `logit` uniformly in a ball. */
function ballOfSplats(random: () => number, center: number[], radius: number, count: number, scale: number, logit: number): SplatSet {
  const splats = emptySplats(count, 0);
  for (let i = 0; i < count; i++) {
    let p: number[];
    do p = [0, 1, 2].map(() => random() * 2 - 1);
    while (Math.hypot(p[0], p[1], p[2]) > 1);
    splats.means.set(p.map((x, a) => center[a] + radius * x), 3 * i);
    splats.logScales.fill(Math.log(scale), 3 * i, 3 * i + 3);
    splats.quats.set([1, 0, 0, 0], 4 * i);
    splats.opacityLogits[i] = logit;
    for (let c = 0; c < 3; c++) splats.sh[3 * i + c] = (0.3 - 0.5) / SH_C0;
  }
  return splats;
}

function concat(sets: SplatSet[]): SplatSet {
  const out = emptySplats(sets.reduce((n, s) => n + s.count, 0), 0);
  let at = 0;
  for (const s of sets) {
    out.means.set(s.means, 3 * at);
    out.logScales.set(s.logScales, 3 * at);
    out.quats.set(s.quats, 4 * at);
    out.opacityLogits.set(s.opacityLogits, at);
    out.sh.set(s.sh, 3 * at);
    at += s.count;
  }
  return out;
}

/** Fraction of the sample points within `tau` of a mesh vertex (brute force; vertices lie about a voxel apart). */
function recall(samples: Float32Array, mesh: TriangleMesh, tau: number): number {
  const p = mesh.positions;
  let hit = 0;
  for (let s = 0; s < samples.length; s += 3) {
    for (let v = 0; v < p.length; v += 3) {
      const dx = p[v] - samples[s];
      const dy = p[v + 1] - samples[s + 1];
      const dz = p[v + 2] - samples[s + 2];
      if (dx * dx + dy * dy + dz * dz < tau * tau) {
        hit++;
        break;
      }
    }
  }
  return hit / (samples.length / 3);
}

/** Mesh vertices within `radius` of `center`. */
function verticesNear(mesh: TriangleMesh, center: number[], radius: number): number {
  let n = 0;
  for (let v = 0; v < mesh.positions.length; v += 3) if (Math.hypot(mesh.positions[v] - center[0], mesh.positions[v + 1] - center[1], mesh.positions[v + 2] - center[2]) < radius) n++;
  return n;
}

describe('thin parts survive carving and the support clean-up', () => {
  it.runIf(available)('a table keeps its four legs (recall >= 0.95 within 0.025) while an opaque floater and a transparent haze go', async () => {
    const s = await tableScene();
    const ctx = await testGpu();
    const dataset = await loadDataset(s.data);
    const views = dataset.views.filter((v) => v.split === 'train');
    const cameras = views.map((v) => v.camera);
    const imageAlpha = await loadImageAlpha(dataset, views);
    const random = rng(17);
    const floaterAt = [0, s.topY + 0.3, 0];
    const hazeAt = [0, -0.3, 0];
    const table = splatsOnMesh(s.gt.positions, s.gt.triangles, 12_000, 5);
    const splats = concat([table, ballOfSplats(random, floaterAt, 0.08, 300, 0.02, 4), ballOfSplats(random, hazeAt, 0.1, 1500, 0.02, Math.log(0.3 / 0.7))]);
    const legSamples = splatsOnMesh(s.gt.positions, s.legTriangles, 1500, 9).means;
    const base: MeshOptions = { resolution: 96, truncationVoxels: 4, targetTriangles: 0, minComponentFraction: 0, depth: 'surface' };
    const extract = async (options: Partial<MeshOptions>, withAlpha: boolean) => (await extractMesh(ctx, { splats, cameras, imageAlpha: withAlpha ? imageAlpha : undefined }, { ...base, ...options })).mesh;
    const plain = await extract({ carveVotes: 0 }, false);
    const cleaned = await extract({ carveVotes: 2, support: { radiusScales: 3, minOpacity: 0.5, minFraction: 0.5 } }, true);
    const supportOnly = await extract({ carveVotes: 0, support: { radiusScales: 3, minOpacity: 0.5, minFraction: 0.5 } }, false);
    // the default clean-up: carving, support and the visibility pass (docs/mesh.md "Unseen surfaces")
    const visible = await extract({ carveVotes: 2, support: { radiusScales: 3, minOpacity: 0.5, minFraction: 0.5 }, minViews: 2, seenDepthTruncations: 0.5 }, true);
    const meshes = [plain, cleaned, supportOnly, visible];
    const report = {
      legRecall: meshes.map((m) => recall(legSamples, m, 0.025)),
      floater: meshes.map((m) => verticesNear(m, floaterAt, 0.15)),
      haze: meshes.map((m) => verticesNear(m, hazeAt, 0.18)),
      vertices: meshes.map((m) => m.positions.length / 3),
    };
    console.log(`thin parts (plain, carved + support, support only, carved + support + visibility): ${JSON.stringify(report)}`);
    const why = JSON.stringify(report);
    // the scene has both spurious surfaces without the new stages
    expect(report.floater[0], why).toBeGreaterThan(20);
    expect(report.haze[0], why).toBeGreaterThan(20);
    // the support test alone drops the haze but not the floater (its splats are opaque) ...
    expect(report.haze[2], why).toBe(0);
    expect(report.floater[2], why).toBeGreaterThan(20);
    // ... which carving with the images' alpha removes
    expect(report.floater[1], why).toBe(0);
    expect(report.haze[1], why).toBe(0);
    // and the legs stay: measured 0.985 carved (0.891 without: the haze's surface hides part of them)
    expect(report.legRecall[1], why).toBeGreaterThanOrEqual(0.95);
    expect(report.legRecall[1], why).toBeGreaterThanOrEqual(report.legRecall[0] - 0.02);
    // the visibility pass keeps the legs too (each is seen face on by several views) and brings nothing back
    expect(report.legRecall[3], why).toBeGreaterThanOrEqual(0.95);
    expect(report.floater[3] + report.haze[3], why).toBe(0);
  }, 600_000);
});
