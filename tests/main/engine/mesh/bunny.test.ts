/**
 * The mesh pipeline end to end on a small Stanford bunny, on whatever adapter this machine has
 * (llvmpipe in CI): render a posed dataset with ../shared/tools/render-views.mjs (24 + 4 views,
 * 96 px), train, extract, score with ../shared/tools/mesh-metrics.mjs against its gt_mesh.ply.
 * Two inputs: ideal splats (flat discs sampled on gt_mesh: the extraction alone, tight bounds)
 * and splats trained here for 400 steps (the whole product; loose bounds: a 96-px pixel covers
 * 0.023 of the unit-sphere radius and 400 llvmpipe steps leave a blurry model); the H200 target (F >= 0.90 at tau 0.01, chamfer <= 0.005 at 400 px and
 * 7k steps) is `bench mesh` (docs/mesh.md). Timings and metrics are printed.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadDataset } from '../../../../main/engine/dataset/dataset.js';
import { writeMesh } from '../../../../main/engine/formats/mesh-file.js';
import { extractMesh, type DepthSource } from '../../../../main/engine/mesh/extract.js';
import { runTrainingJob } from '../../../../main/engine/train/job.js';
import { allParams, resolveParams } from '../../../../shared/params/index.js';
import type { SplatSet } from '../../../../shared/scene/splats.js';
import { sharedData } from '../../../helpers/build.js';
import { testGpu } from '../../../helpers/gpu.js';
import { splatsOnMesh } from '../../../helpers/surface-splats.js';

const tools = path.resolve(sharedData, '../tools');
const bunny = path.join(sharedData, 'meshes/stanford_bunny/stanford-bunny.obj');
const available = existsSync(path.join(tools, 'render-views.mjs')) && existsSync(path.join(tools, 'mesh-metrics.mjs')) && existsSync(bunny);
if (!available) console.warn(`skipping the bunny mesh test: needs ${tools}/render-views.mjs, mesh-metrics.mjs and ${bunny} (the shared team folder)`);

const run = promisify(execFile);

async function score(mesh: string, gt: string, tau: number) {
  const { stdout } = await run(process.execPath, [path.join(tools, 'mesh-metrics.mjs'), mesh, gt, '--compact', '--quiet', '--tau', String(tau), '--samples', '100000']);
  return JSON.parse(stdout) as { fscore: number; precision: number; recall: number; chamfer: number; accuracy: number; completeness: number };
}

interface Scene {
  data: string;
  gt: string;
  dir: string;
  renderS: number;
}

let scene: Promise<Scene> | undefined;

/** The 24 + 4 views at 96 px, rendered once per file (about 1 s). */
function bunnyScene(): Promise<Scene> {
  scene ??= (async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'argonaut-bunny-'));
    const data = path.join(dir, 'views');
    const t0 = performance.now();
    await run(process.execPath, [path.join(tools, 'render-views.mjs'), bunny, '--out', data, '--train', '24', '--test', '4', '--size', '96', '--quiet']);
    return { data, gt: path.join(data, 'gt_mesh.ply'), dir, renderS: (performance.now() - t0) / 1000 };
  })();
  return scene;
}

async function extractAndScore(splats: SplatSet, s: Scene, name: string, depth?: DepthSource) {
  const ctx = await testGpu();
  const dataset = await loadDataset(s.data);
  const cameras = dataset.views.filter((v) => v.split === 'train').map((v) => v.camera);
  const t0 = performance.now();
  const { mesh, stats } = await extractMesh(ctx, { splats, cameras }, { resolution: 96, truncationVoxels: 4, targetTriangles: 0, minComponentFraction: 0.3, depth });
  const meshS = (performance.now() - t0) / 1000;
  const file = path.join(s.dir, `${name}.ply`);
  await writeMesh(file, mesh);
  const [at01, at05] = [await score(file, s.gt, 0.01), await score(file, s.gt, 0.05)];
  return { stats, meshS, at01, at05 };
}

describe('bunny: render, (train,) extract, score', () => {
  it.runIf(available)('ideal splats (flat discs on the true surface) come back on the surface: F >= 0.4 at tau 0.01, >= 0.98 at 0.05, chamfer <= 0.014', async () => {
    const s = await bunnyScene();
    const { loadMesh } = (await import(/* @vite-ignore */ path.join(tools, 'lib/mesh-io.mjs'))) as { loadMesh: (f: string, o: object) => { positions: Float32Array; triangles: Uint32Array } };
    const gt = loadMesh(s.gt, { loadTextures: false });
    const { stats, meshS, at01, at05 } = await extractAndScore(splatsOnMesh(gt.positions, gt.triangles, 8000, 1), s, 'ideal', 'surface'); // flat splats: the ray-entry depth ('auto' would take the expected depth, made for fat splats)
    const report = { render_views_s: s.renderS, mesh_s: meshS, triangles: stats.triangles, fscore_01: at01.fscore, fscore_05: at05.fscore, chamfer: at01.chamfer };
    console.log(`bunny mesh from ideal splats: ${JSON.stringify(report)}`);
    expect(stats.componentsKept).toBe(1);
    expect(at01.fscore, JSON.stringify(report)).toBeGreaterThanOrEqual(0.4);
    expect(at05.fscore, JSON.stringify(report)).toBeGreaterThanOrEqual(0.98);
    expect(at01.chamfer, JSON.stringify(report)).toBeLessThanOrEqual(0.014);
  }, 600_000);

  it.runIf(available)('trained splats (400 steps on this adapter) make a bunny: F >= 0.5 at tau 0.05, chamfer <= 0.15, at most two pieces', async () => {
    const s = await bunnyScene();
    const ctx = await testGpu();
    const params = {
      ...resolveParams(allParams().filter((p) => p.key.startsWith('train.')), {}),
      'train.iterations': 400,
      'train.shDegree': 0,
      'train.initPoints': 5000,
      'train.refineStart': 100,
      'train.refineEvery': 100,
      'train.refineStop': 300,
    };
    const trained = await runTrainingJob(ctx, { source: { kind: 'dataset', path: s.data }, params });
    const { stats, meshS, at01, at05 } = await extractAndScore(trained.splats, s, 'trained', 'ray') // 400 CPU steps leave fat blobs: the density maximum (the 7k-step H200 runs pick the depth by 'auto');
    const report = {
      train_s: trained.trainS,
      steps: trained.steps,
      psnr: trained.evaluation.psnr,
      splats: trained.splatCount,
      mesh_s: meshS,
      timings: stats.timings,
      triangles: stats.triangles,
      grid: stats.grid.dims,
      fscore_01: at01.fscore,
      precision_01: at01.precision,
      recall_01: at01.recall,
      fscore_05: at05.fscore,
      chamfer: at01.chamfer,
    };
    console.log(`bunny mesh from trained splats: ${JSON.stringify(report)}`);
    // 400 CPU steps from a random init leave PSNR ~18.7 and a floater beside the bunny (measured:
    // F 0.58 at tau 0.05, chamfer 0.11, two pieces); the quality goal is the H200 bench
    // (docs/mesh.md: F 0.956 at tau 0.01 with --geometry). This checks the trained path end to end.
    expect(stats.componentsKept, JSON.stringify(report)).toBeLessThanOrEqual(2);
    expect(at05.fscore, JSON.stringify(report)).toBeGreaterThanOrEqual(0.5);
    expect(at01.chamfer, JSON.stringify(report)).toBeLessThanOrEqual(0.15);
  }, 1_500_000);
});
