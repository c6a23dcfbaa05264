import path from 'node:path';
import { formatProfileTable } from '../../../shared/contract/profile.js';
import { UsageError } from '../args.js';
import { benchStamp, writeResult } from '../bench-result.js';
import type { CommandContext } from '../command.js';
import { metricsOf, resolveTrainParams, trainWithProgress } from '../training.js';

/**
 * `bench train <dataset>`: the training protocols of ../shared/bench/anchors.json.
 *   mic:    all 100 train views over white, test views r_0, r_4, ..., r_196, 100,000 random
 *           points in [-1.3, 1.3]^3
 *   statue: full resolution, every 8th image (sorted by name) held out, SfM init, black, no
 *           colour model unless --appearance asks for one (as gsplat's anchor run)
 * Wall time excludes loading and evaluation. A sampled per-kernel profile (1 step in 50).
 */
export async function benchTrain(context: CommandContext): Promise<void> {
  const [input, ...extra] = context.positionals;
  if (!input || extra.length) throw new UsageError('bench train needs exactly one dataset folder');
  const datasetPath = path.resolve(context.cwd, input);
  const name = path.basename(datasetPath);
  const protocol = (context.options.protocol as string | undefined) ?? (name.includes('mic') ? 'mic' : name.includes('statue') ? 'statue' : 'custom');
  const params = resolveTrainParams(context);
  if (context.options.steps !== undefined) params['train.iterations'] = context.options.steps as number;
  let viewFilter: ((v: { name: string; split: string }, i: number) => boolean) | undefined;
  if (protocol === 'mic') {
    params['train.background'] = 'white';
    params['train.initPoints'] = 100_000;
    viewFilter = (v) => v.split === 'train' || Number(/r_(\d+)/.exec(v.name)?.[1] ?? 1) % 4 === 0;
  } else if (protocol === 'statue') {
    params['train.background'] = 'black';
    params['train.downscale'] = 1;
    // gsplat's anchor trains no colour model (simple_trainer's bilateral grid is off by default):
    // the protocol compares like with like unless --appearance asks for one
    if (context.params['train.appearance'] === undefined) params['train.appearance'] = 'off';
  }
  const { result, gpu, profile } = await trainWithProgress(context, { kind: 'dataset', path: datasetPath }, params, { viewFilter, profileEvery: 50 });
  const out = {
    bench: 'train',
    dataset: name,
    protocol,
    ...metricsOf(result),
    startup_s: result.processFirstStepS,
    bytes_per_splat_state: Math.round(result.stateBytesPerSplat),
    test_views: result.evaluation.views.length,
    train_views: result.data.train,
    // `--eval-every N`: the held-out curve of one run (a run of fewer steps has its own schedule)
    ...(result.evaluations.length > 1 ? { evaluations: result.evaluations.map((e) => ({ step: e.step, psnr: e.psnr, cc_psnr: e.ccPsnr, ssim: e.ssim })) } : {}),
    ...benchStamp(gpu),
    ...(profile ? { profile: { sampled_every: 50, source: profile.source, rows: profile.rows } } : {}),
  };
  await writeResult(context.options.out as string | undefined, out);
  context.out.result(out, [
    `${name} (${protocol}): ${result.steps} steps in ${result.trainS.toFixed(1)} s (start-up ${result.processFirstStepS.toFixed(2)} s), PSNR ${result.evaluation.psnr.toFixed(2)} dB (colour-corrected ${result.evaluation.ccPsnr.toFixed(2)} dB), SSIM ${result.evaluation.ssim.toFixed(4)} on ${result.evaluation.views.length} test views, ${result.splatCount.toLocaleString()} splats, peak GPU ${(result.peakGpuBytes / 2 ** 20).toFixed(0)} MiB`,
    ...(profile ? ['', 'per-kernel profile (1 step in 50):', formatProfileTable(profile)] : []),
  ].join('\n'));
}
