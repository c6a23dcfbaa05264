/**
 * The small Stanford bunny scene of the mesh tests (tests/main/engine/mesh/bunny*.test.ts): a posed
 * dataset rendered with ../shared/tools/render-views.mjs (24 + 4 views, 96 px, once per file), mesh
 * extraction from splats, and the score of ../shared/tools/mesh-metrics.mjs against its gt_mesh.ply.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadDataset } from '../../main/engine/dataset/dataset.js';
import { writeMesh } from '../../main/engine/formats/mesh-file.js';
import { extractMesh, type DepthSource } from '../../main/engine/mesh/extract.js';
import { meshOptionsFromParams, resolveMeshValues } from '../../main/engine/mesh/params.js';
import { loadImageAlpha } from '../../main/engine/mesh/view-alpha.js';
import type { SplatSet } from '../../shared/scene/splats.js';
import { sharedData } from './build.js';
import { testGpu } from './gpu.js';

export const tools = path.resolve(sharedData, '../tools');
const bunny = path.join(sharedData, 'meshes/stanford_bunny/stanford-bunny.obj');

/** Whether the shared team folder has the tools and the mesh; prints why not once per file. */
export function bunnyAvailable(): boolean {
  const available = existsSync(path.join(tools, 'render-views.mjs')) && existsSync(path.join(tools, 'mesh-metrics.mjs')) && existsSync(bunny);
  if (!available) console.warn(`skipping the bunny mesh test: needs ${tools}/render-views.mjs, mesh-metrics.mjs and ${bunny} (the shared team folder)`);
  return available;
}

const run = promisify(execFile);

async function score(mesh: string, gt: string, tau: number) {
  const { stdout } = await run(process.execPath, [path.join(tools, 'mesh-metrics.mjs'), mesh, gt, '--compact', '--quiet', '--tau', String(tau), '--samples', '100000']);
  return JSON.parse(stdout) as { fscore: number; precision: number; recall: number; chamfer: number; accuracy: number; completeness: number };
}

export interface BunnyScene {
  data: string;
  gt: string;
  dir: string;
  renderS: number;
}

let scene: Promise<BunnyScene> | undefined;

/** The 24 + 4 views at 96 px, rendered once per file (about 1 s). */
export function bunnyScene(): Promise<BunnyScene> {
  scene ??= (async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'argonaut-bunny-'));
    const data = path.join(dir, 'views');
    const t0 = performance.now();
    await run(process.execPath, [path.join(tools, 'render-views.mjs'), bunny, '--out', data, '--train', '24', '--test', '4', '--size', '96', '--quiet']);
    return { data, gt: path.join(data, 'gt_mesh.ply'), dir, renderS: (performance.now() - t0) / 1000 };
  })();
  return scene;
}

/**
 * Extracts a mesh (grid 96, the registry's other defaults: carving with the images' alpha, the
 * support clean-up) from `splats` seen by the scene's training cameras, writes it, scores it at
 * tau 0.01 and 0.05.
 */
export async function extractAndScore(splats: SplatSet, s: BunnyScene, name: string, depth?: DepthSource) {
  const ctx = await testGpu();
  const dataset = await loadDataset(s.data);
  const views = dataset.views.filter((v) => v.split === 'train');
  const cameras = views.map((v) => v.camera);
  const imageAlpha = await loadImageAlpha(dataset, views);
  const defaults = meshOptionsFromParams(resolveMeshValues({}));
  const t0 = performance.now();
  const { mesh, stats } = await extractMesh(ctx, { splats, cameras, imageAlpha }, { ...defaults, resolution: 96, truncationVoxels: 4, targetTriangles: 0, minComponentFraction: 0.3, depth });
  const meshS = (performance.now() - t0) / 1000;
  const file = path.join(s.dir, `${name}.ply`);
  await writeMesh(file, mesh);
  const [at01, at05] = [await score(file, s.gt, 0.01), await score(file, s.gt, 0.05)];
  return { stats, meshS, at01, at05 };
}
