import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ArgonautError } from '../../../shared/rpc/errors.js';
import { loadDataset } from '../../engine/dataset/dataset.js';
import { writeMesh } from '../../engine/formats/mesh-file.js';
import { openGpu } from '../../engine/gpu/context.js';
import { extractMesh } from '../../engine/mesh/extract.js';
import { runTrainingJob } from '../../engine/train/job.js';
import { UsageError } from '../args.js';
import { benchStamp, writeResult } from '../bench-result.js';
import type { CommandContext } from '../command.js';
import { meshOptionsFromParams } from '../../engine/mesh/params.js';
import { meshSummary, resolveMeshParams } from '../mesh-options.js';
import { resolveTrainParams, trainEventPrinter } from '../training.js';

/** What ../shared/tools/mesh-metrics.mjs prints (the fields used here). */
interface MeshMetrics {
  tau: number;
  fscore: number;
  precision: number;
  recall: number;
  chamfer: number;
  accuracy: number;
  completeness: number;
  sampling_floor?: { chamfer: number; fscore: number };
}

/** Scores a mesh against the ground truth with the shared metrics tool (a separate Node process). */
export async function scoreMesh(metricsScript: string, meshFile: string, gtFile: string): Promise<MeshMetrics> {
  if (!existsSync(metricsScript)) throw new ArgonautError('bad_input', `${metricsScript}: mesh-metrics.mjs not found; pass --metrics <path to ../shared/tools/mesh-metrics.mjs>`);
  if (!existsSync(gtFile)) throw new ArgonautError('bad_input', `${gtFile}: ground-truth mesh not found (render-views.mjs writes gt_mesh.ply beside the views); pass --gt FILE`);
  const { stdout } = await promisify(execFile)(process.execPath, [metricsScript, meshFile, gtFile, '--compact', '--quiet'], { maxBuffer: 64 << 20 });
  return JSON.parse(stdout) as MeshMetrics;
}

/**
 * `bench mesh <dataset>`: train (registry parameters, --steps), extract a mesh from the training
 * views, score it against the dataset's gt_mesh.ply (render-views.mjs layout) with mesh-metrics.
 * train_s is training wall time without loading and evaluation; mesh_s is extraction (render,
 * fuse, marching cubes, clean-up, simplify) without writing the file.
 */
export async function benchMesh(context: CommandContext): Promise<void> {
  const [input, ...extra] = context.positionals;
  if (!input || extra.length) throw new UsageError('bench mesh needs exactly one dataset folder (render-views.mjs layout: transforms_*.json, gt_mesh.ply)');
  const { options, cwd, out } = context;
  const datasetPath = path.resolve(cwd, input);
  const name = path.basename(datasetPath);
  const metricsScript = path.resolve(cwd, (options.metrics as string | undefined) ?? '../shared/tools/mesh-metrics.mjs');
  const gtFile = path.resolve(cwd, (options.gt as string | undefined) ?? path.join(datasetPath, 'gt_mesh.ply'));
  if (!existsSync(metricsScript)) throw new ArgonautError('bad_input', `${metricsScript}: mesh-metrics.mjs not found; pass --metrics FILE`);
  if (!existsSync(gtFile)) throw new ArgonautError('bad_input', `${gtFile}: ground-truth mesh not found; pass --gt FILE`);
  const trainParams = resolveTrainParams(context);
  if (options.steps !== undefined) trainParams['train.iterations'] = options.steps as number;
  const meshParams = resolveMeshParams(context);
  const gpu = await openGpu(context.engineOptions);
  const scratch = await mkdtemp(path.join(tmpdir(), 'argonaut-bench-mesh-'));
  try {
    const result = await runTrainingJob(gpu, {
      source: { kind: 'dataset', path: datasetPath },
      params: trainParams,
      signal: context.signal,
      onEvent: trainEventPrinter(out),
    });
    if (result.cancelled) throw new ArgonautError('cancelled', 'bench mesh interrupted during training');
    const dataset = await loadDataset(datasetPath);
    const cameras = dataset.views.filter((v) => v.split === 'train').map((v) => v.camera);
    const mesh = await extractMesh(gpu, { splats: result.splats, cameras, geometry: Boolean(trainParams['train.geometry']) }, {
      ...meshOptionsFromParams(meshParams),
      signal: context.signal,
      onProgress: (stage, step, total) => out.progress({ stage: `mesh.${stage}`, step, total }, step === total),
    });
    const meshFile = path.resolve(cwd, (options['mesh-out'] as string | undefined) ?? path.join(scratch, 'mesh.ply'));
    await writeMesh(meshFile, mesh.mesh);
    out.progress({ stage: 'metrics', message: `${meshFile} vs ${gtFile}` }, true);
    const metrics = await scoreMesh(metricsScript, meshFile, gtFile);
    const summary = {
      bench: 'mesh',
      dataset: name,
      fscore: metrics.fscore,
      tau: metrics.tau,
      chamfer: metrics.chamfer,
      precision: metrics.precision,
      recall: metrics.recall,
      accuracy: metrics.accuracy,
      completeness: metrics.completeness,
      sampling_floor_chamfer: metrics.sampling_floor?.chamfer,
      train_s: result.trainS,
      steps: result.steps,
      geometry: Boolean(trainParams['train.geometry']),
      splats: result.splatCount,
      psnr: result.evaluation.psnr,
      resolution: meshParams['mesh.resolution'],
      target_triangles: meshParams['mesh.targetTriangles'],
      train_views: cameras.length,
      image_size: [result.data.width, result.data.height],
      ...meshSummary(mesh),
      ...(options['mesh-out'] ? { mesh_file: meshFile } : {}),
      ...benchStamp(gpu),
    };
    await writeResult(options.out as string | undefined, summary);
    out.result(summary, [
      `${name}: ${result.steps} steps in ${result.trainS.toFixed(1)} s (PSNR ${result.evaluation.psnr.toFixed(2)} dB, ${result.splatCount.toLocaleString()} splats); mesh in ${mesh.stats.timings.total_s.toFixed(2)} s: ${mesh.stats.triangles.toLocaleString()} triangles (grid ${mesh.stats.grid.dims.join('x')})`,
      `F-score ${metrics.fscore.toFixed(4)} at tau ${metrics.tau} (precision ${metrics.precision.toFixed(4)}, recall ${metrics.recall.toFixed(4)}), chamfer ${metrics.chamfer.toFixed(5)}${metrics.sampling_floor ? ` (sampling floor ${metrics.sampling_floor.chamfer.toFixed(5)})` : ''}`,
    ].join('\n'));
  } finally {
    gpu.destroy();
    await rm(scratch, { recursive: true, force: true });
  }
}
