import path from 'node:path';
import { formatProfileTable } from '../../../shared/contract/profile.js';
import { loadDataset, type Dataset } from '../../engine/dataset/dataset.js';
import { UsageError } from '../args.js';
import { benchStamp, writeResult } from '../bench-result.js';
import type { CommandContext } from '../command.js';
import type { StateBytesBreakdown } from '../../engine/train/trainer.js';
import { metricsOf, presetOf, resolveTrainParams, trainWithProgress } from '../training.js';
import { applyProtocol, type BenchProtocol, checksDatasetFirst, defaultProtocol, protocolByName, setupRecord } from './bench-protocol.js';

/**
 * `bench train <dataset>`: one training run under a protocol of bench-protocol.ts (mic, statue,
 * capture, custom; docs/benchmarks.md defines each), its quality on the test views (mean and per
 * view) and its cost. Wall time excludes loading and evaluation. A sampled per-kernel profile (1
 * step in 50). Intermediate evaluations are not part of any protocol: 7k and 30k are two runs.
 */
export async function benchTrain(context: CommandContext): Promise<void> {
  const [input, ...extra] = context.positionals;
  if (!input || extra.length) throw new UsageError('bench train needs exactly one dataset folder');
  const datasetPath = path.resolve(context.cwd, input);
  const name = path.basename(datasetPath);
  const params = resolveTrainParams(context);
  if (context.options.steps !== undefined) params['train.iterations'] = context.options.steps as number;
  // The views, points and masks as the loader sees them (cameras and image headers only): what
  // the capture protocol checks first (bad masks stop there, naming the file: exit 3) and every
  // result records.
  const inspect = () => loadDataset(datasetPath, { masks: typeof params['train.masks'] === 'string' && params['train.masks'] !== '' ? params['train.masks'] : undefined });
  let dataset: Dataset | undefined;
  const given = (context.options.protocol as BenchProtocol | undefined) ?? protocolByName(name);
  const protocol = given ?? defaultProtocol(name, (dataset = await inspect()).format);
  if (checksDatasetFirst(protocol)) dataset ??= await inspect();
  const { viewFilter } = applyProtocol(protocol, dataset, params, context.params);
  const { result, gpu, profile } = await trainWithProgress(context, { kind: 'dataset', path: datasetPath }, params, { viewFilter, profileEvery: 50 });
  const setup = setupRecord(protocol, dataset ?? (await inspect()), params, result);
  const out = {
    bench: 'train',
    dataset: name,
    protocol,
    preset: presetOf(context) ?? null,
    ...metricsOf(result),
    startup_s: result.processFirstStepS,
    // seconds since the process start at which each start-up stage ended (job.ts TrainJobResult)
    startup_stages_s: result.startupStages,
    bytes_per_splat_state: Math.round(result.stateBytesPerSplat),
    bytes_per_live_splat: Math.round(result.stateBytesPerLiveSplat),
    // the same by part, per splat of capacity, to 0.1 B (Trainer.stateBytesBreakdown)
    state_bytes_breakdown: breakdownRecord(result.stateBytesBreakdown),
    // splats whose growth a refine clipped for want of capacity: 0 means the capacity policy changed nothing
    refine_growth_clipped: result.clippedGrowth,
    test_views: result.evaluation.views.length,
    train_views: result.data.train,
    ...setup,
    // `--eval-every N`: the held-out curve of one run (a run of fewer steps has its own schedule)
    ...(result.evaluations.length > 1 ? { evaluations: result.evaluations.map((e) => ({ step: e.step, psnr: e.psnr, cc_psnr: e.ccPsnr, ssim: e.ssim })) } : {}),
    ...benchStamp(gpu),
    ...(profile ? { profile: { sampled_every: 50, source: profile.source, rows: profile.rows } } : {}),
  };
  await writeResult(context.options.out as string | undefined, out);
  const aligned = result.alignedEvaluation;
  const worst = [...result.evaluation.views].sort((a, b) => a.psnr - b.psnr).slice(0, 3);
  context.out.result(out, [
    `${name} (${protocol}): ${result.steps} steps in ${result.trainS.toFixed(1)} s (start-up ${result.processFirstStepS.toFixed(2)} s), PSNR ${result.evaluation.psnr.toFixed(2)} dB (colour-corrected ${result.evaluation.ccPsnr.toFixed(2)} dB), SSIM ${result.evaluation.ssim.toFixed(4)} on ${result.evaluation.views.length} test views, ${result.splatCount.toLocaleString()} splats, peak GPU ${(result.peakGpuBytes / 2 ** 20).toFixed(0)} MiB`,
    `set-up: ${setup.init.kind === 'sfm' ? `SfM init (${setup.init.points.toLocaleString()} points)` : `random init (${setup.init.points.toLocaleString()} points: the dataset has no SfM points)`}, ${result.data.train} train / ${result.data.test} test views (${setup.split.rule}), ${result.data.width}x${result.data.height}, appearance ${result.appearance}, camera refinement ${setup.refine_cameras}${setup.masked_views ? `, ${setup.masked_views} masked views` : ''}`,
    ...(aligned ? [`with test-time pose alignment: PSNR ${aligned.psnr.toFixed(2)} dB (colour-corrected ${aligned.ccPsnr.toFixed(2)} dB), SSIM ${aligned.ssim.toFixed(4)}`] : []),
    ...(worst.length ? [`worst test views: ${worst.map((v) => `${v.name} ${v.psnr.toFixed(2)} dB`).join(', ')}`] : []),
    ...(profile ? ['', 'per-kernel profile (1 step in 50):', formatProfileTable(profile)] : []),
  ].join('\n'));
}

/** The breakdown as bench JSON: snake_case parts, bytes to 0.1. */
function breakdownRecord(b: StateBytesBreakdown) {
  const r = (x: number) => Math.round(x * 10) / 10;
  const m = b.moments;
  return { params: r(b.params), grads: r(b.grads), moments: { means: r(m.means), log_scales: r(m.logScales), quats: r(m.quats), opacity_logits: r(m.opacityLogits), sh: r(m.sh) }, densifier: r(b.densifier), frame_per_splat: r(b.frame) };
}
