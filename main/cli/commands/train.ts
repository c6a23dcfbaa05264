import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { allParams, paramsForCommand, resolveParams, type PresetName } from '../../../shared/params/index.js';
import { ArgonautError } from '../../../shared/rpc/errors.js';
import { readPly, writePly } from '../../engine/formats/ply.js';
import type { SplatSet } from '../../../shared/scene/splats.js';
import { openGpu } from '../../engine/gpu/context.js';
import { formatProfileTable } from '../../../shared/contract/profile.js';
import { runTrainingJob, type CheckpointOptions, type TrainingSource, type TrainJobOptions, type TrainJobResult } from '../../engine/train/job.js';
import { UsageError } from '../args.js';
import { JSON_OPTION, type CommandContext, type CommandSpec } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { benchStamp } from '../bench-result.js';
import { isProjectFile } from '../../../shared/project/manifest.js';
import { trainProjectCommand } from './train-project.js';

const PRESET_OPTION = { flag: 'preset', type: 'string' as const, help: 'parameter preset: fast, balanced or quality (explicit flags win)', valueName: 'name' };

export function resolveTrainParams(context: CommandContext) {
  const preset = context.options.preset as string | undefined;
  if (preset !== undefined && !['fast', 'balanced', 'quality'].includes(preset)) throw new UsageError(`--preset: expected fast, balanced or quality, got "${preset}"`);
  const defs = allParams().filter((p) => p.key.startsWith('train.'));
  return resolveParams(defs, context.params, { env: process.env, preset: preset as PresetName | undefined });
}

export function trainingSourceOf(context: CommandContext): TrainingSource {
  const [input, ...extra] = context.positionals;
  if (extra.length) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`);
  if (context.options.sample) {
    if (input) throw new UsageError('--sample takes no dataset');
    return { kind: 'sample' };
  }
  if (!input) throw new UsageError('train needs a dataset folder (or --sample)');
  return { kind: 'dataset', path: path.resolve(context.cwd, input) };
}

/** Runs a training job with progress on the terminal; shared by `train` and `bench train`. */
export async function trainWithProgress(
  context: CommandContext,
  source: TrainingSource,
  params: ReturnType<typeof resolveTrainParams>,
  extra: { viewFilter?: (v: { name: string; split: string }, i: number) => boolean; profileEvery?: number; checkpoints?: CheckpointOptions; initial?: SplatSet } = {},
) {
  const { engineOptions } = context;
  const gpu = await openGpu({ ...engineOptions, profile: engineOptions.profile || (extra.profileEvery ?? 0) > 0 });
  try {
    if (!engineOptions.profile) gpu.profiler.setMode('off');
    const result = await runTrainingJob(gpu, {
      source,
      params,
      viewFilter: extra.viewFilter,
      checkpoints: extra.checkpoints,
      initial: extra.initial,
      profileEvery: extra.profileEvery ?? (engineOptions.profile ? 1 : 0),
      signal: context.signal,
      ...progressReporter(context.out),
    });
    const profile = gpu.profiler.mode !== 'off' || (extra.profileEvery ?? 0) > 0 ? await gpu.profiler.report() : undefined;
    return { result, gpu: { info: gpu.info }, profile };
  } finally {
    gpu.destroy();
  }
}

/** Progress, evaluations and log lines of a training job on the terminal (or as JSON lines). */
export function progressReporter(out: CommandContext['out']): Pick<TrainJobOptions, 'onProgress' | 'onEvaluation' | 'onLog'> {
  return {
    onProgress: (p) => {
      const msg = p.stage === 'train'
        ? [p.loss !== undefined ? `loss ${p.loss.toFixed(4)}` : '', p.psnr !== undefined ? `PSNR ${p.psnr.toFixed(2)}` : '', `${(p.splats ?? 0).toLocaleString()} splats`, p.itPerS ? `${p.itPerS.toFixed(1)} it/s` : '', p.etaS !== undefined ? `ETA ${formatDuration(p.etaS)}` : ''].filter(Boolean).join('  ')
        : undefined;
      out.progress({ ...p, message: msg }, p.stage !== 'train');
    },
    onEvaluation: (e) => {
      out.event('metrics', { step: e.step, psnr: e.psnr, ssim: e.ssim });
      if (!out.json) out.warn(`eval @ step ${e.step}: PSNR ${e.psnr.toFixed(2)} dB, SSIM ${e.ssim.toFixed(4)}`);
    },
    onLog: (level, message) => {
      out.event('log', { level, message });
      if (!out.json) out.warn(message);
    },
  };
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.round(seconds);
  return s >= 3600 ? `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m` : s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

export function metricsOf(result: TrainJobResult) {
  return {
    train_s: result.trainS,
    steps: result.steps,
    splats: result.splatCount,
    psnr: result.evaluation.psnr,
    ssim: result.evaluation.ssim,
    test_views: result.evaluation.views.length,
    load_s: result.loadS,
    first_step_s: result.firstStepS,
    peak_gpu_bytes: result.peakGpuBytes,
    non_finite_skipped: result.nonFiniteSkipped,
  };
}

export const trainCommand: CommandSpec = {
  name: 'train',
  summary: 'train Gaussian splats on a project (resumes its newest run), a dataset (COLMAP, transforms.json, NeRF-synthetic) or the built-in sample scene',
  usage: 'train <file.argo> [--out DIR] | train <dataset-dir|--sample> --out DIR  [--iterations N] [--checkpoint-every N] [--preset fast|balanced|quality] [--json] ...',
  options: [
    JSON_OPTION,
    { flag: 'out', type: 'string', help: 'output folder: splats.ply (standard 3DGS PLY) and metrics.json (a project keeps its own in its data folder too)', valueName: 'dir' },
    { flag: 'new-run', type: 'bool', help: 'projects: start a new run even when the newest one can continue' },
    { flag: 'sample', type: 'bool', help: 'train on the built-in procedural sample scene (no data needed)' },
    { flag: 'resume', type: 'bool', help: 'continue from the newest checkpoint in DIR/checkpoints (Ctrl+C saves one)' },
    { flag: 'init', type: 'string', help: 'start from the splats of this PLY (e.g. an earlier run) instead of initializing', valueName: 'splats.ply' },
    PRESET_OPTION,
  ],
  params: () => paramsForCommand('train').filter((p) => !p.commands.includes('*')),
  async run(context) {
    if (isProjectFile(context.positionals[0])) return trainProjectCommand(context);
    if (context.options['new-run']) throw new UsageError('--new-run applies to projects (train <file.argo>)');
    const outDir = context.options.out as string | undefined;
    if (!outDir) throw new UsageError('train needs --out DIR');
    const source = trainingSourceOf(context);
    const params = resolveTrainParams(context);
    const dir = path.resolve(context.cwd, outDir);
    try {
      await mkdir(dir, { recursive: true });
    } catch (error) {
      throw new ArgonautError('bad_input', `${dir}: cannot create the output folder (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    const initial = context.options.init ? await readPly(path.resolve(context.cwd, context.options.init as string)) : undefined;
    const { result, gpu, profile } = await trainWithProgress(context, source, params, {
      initial,
      checkpoints: { dir: path.join(dir, 'checkpoints'), every: params['train.checkpointEvery'] as number, resume: Boolean(context.options.resume) },
    });
    const metrics = {
      ...metricsOf(result),
      ...benchStamp(gpu),
      dataset: result.data.name,
      cancelled: result.cancelled,
      ...(result.resumedFrom !== undefined ? { resumed_from: result.resumedFrom } : {}),
      ...(result.lastCheckpoint ? { checkpoint: result.lastCheckpoint } : {}),
      evaluations: [result.evaluation],
      ...(profile ? { profile } : {}),
    };
    await writePly(path.join(dir, 'splats.ply'), result.splats);
    await writeFile(path.join(dir, 'metrics.json'), `${JSON.stringify(metrics, null, 2)}\n`);
    if (profile && !context.out.json) context.out.text(formatProfileTable(profile));
    context.out.result(
      { ...metrics, out: dir, splats_ply: path.join(dir, 'splats.ply') },
      `${result.cancelled ? `interrupted at step ${result.steps} (checkpoint ${result.lastCheckpoint}; continue with --resume):` : 'trained'} ${result.steps} steps in ${result.trainS.toFixed(1)} s: PSNR ${result.evaluation.psnr.toFixed(2)} dB, SSIM ${result.evaluation.ssim.toFixed(4)}, ${result.splatCount.toLocaleString()} splats -> ${dir}`,
    );
    if (result.cancelled) return EXIT.interrupted;
  },
};
