/**
 * The mesh pipeline end to end on a small Stanford bunny, on whatever adapter this machine has
 * (llvmpipe in CI): the posed dataset of tests/helpers/bunny-scene.ts (24 + 4 views, 96 px),
 * trained here for 400 steps (the whole product; loose bounds: a 96-px pixel covers 0.023 of the
 * unit-sphere radius and 400 llvmpipe steps leave a blurry model), extracted and scored against
 * gt_mesh.ply. The H200 target (F >= 0.90 at tau 0.01, chamfer <= 0.005 at 400 px and 7k steps)
 * is `bench mesh` (docs/mesh.md). Timings and metrics are printed.
 */
import { describe, expect, it } from 'vitest';
import { runTrainingJob } from '../../../../main/engine/train/job.js';
import { allParams, resolveParams } from '../../../../shared/params/index.js';
import { bunnyAvailable, bunnyScene, extractAndScore } from '../../../helpers/bunny-scene.js';
import { testGpu } from '../../../helpers/gpu.js';

const available = bunnyAvailable();

describe('bunny: render, train, extract, score', () => {
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
      precision_05: at05.precision,
      recall_05: at05.recall,
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
