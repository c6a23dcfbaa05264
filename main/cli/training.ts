/**
 * What the CLI's training commands share (`train <dataset|--sample>`, `train <file.argo>`,
 * `bench train`, `bench mesh`): their parameters and source, the one printer of a job's
 * `TrainEvent`s, and the metrics a result reports. Commands import it; it imports no command.
 */
import path from 'node:path';
import type { TrainEvent, TrainEventSink } from '../../shared/contract/train-events.js';
import { allParams, isPresetName, PRESETS, resolveParams, type PresetName } from '../../shared/params/index.js';
import type { SplatSet } from '../../shared/scene/splats.js';
import { writeFile } from 'node:fs/promises';
import { formatProfileTable } from '../../shared/contract/profile.js';
import { writePly } from '../engine/formats/ply.js';
import { openGpu } from '../engine/gpu/context.js';
import type { Project } from '../engine/project/project.js';
import { trainProject } from '../engine/project/train-run.js';
import { runTrainingJob, type TrainingSource, type TrainJobResult } from '../engine/train/job.js';
import { UsageError } from './args.js';
import type { CommandContext } from './command.js';
import type { Output } from './output.js';

export const PRESET_OPTION = { flag: 'preset', type: 'string' as const, choices: PRESETS, help: 'parameter preset (explicit flags win)', valueName: 'name' };

/** The `--preset` given (the parser checks it against the registry's presets). */
export function presetOf(context: CommandContext): PresetName | undefined {
  const preset = context.options.preset as string | undefined;
  if (preset !== undefined && !isPresetName(preset)) throw new UsageError(`--preset: expected ${PRESETS.join(', ')}, got "${preset}"`);
  return preset;
}

/** Every `train.*` value for a job that is not a project's (benchmarks): flags > env > preset > default. */
export function resolveTrainParams(context: CommandContext) {
  const defs = allParams().filter((p) => p.key.startsWith('train.'));
  return resolveParams(defs, context.params, { env: process.env, preset: presetOf(context) });
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

/** Who the printer speaks of when a run starts: the project file and the name people see. */
export interface PrintedProject {
  file: string;
  name: string;
}

/**
 * The CLI's view of a training job's event stream: progress bars (or `progress` JSON lines),
 * evaluations as `metrics` lines, log and checkpoint lines, and a `run` line when a project run
 * starts. Snapshots, profiles and other states have no line (the result reports the profile).
 */
export function trainEventPrinter(out: Output, project?: PrintedProject): TrainEventSink {
  return (event: TrainEvent) => {
    switch (event.type) {
      case 'progress': {
        const { type: _type, ...progress } = event;
        out.progress({ ...progress, message: event.stage === 'train' ? describeStep(event) : undefined }, event.stage !== 'train');
        break;
      }
      case 'evaluation':
        out.event('metrics', { step: event.step, psnr: event.psnr, ssim: event.ssim, ...(event.ccPsnr !== undefined ? { cc_psnr: event.ccPsnr } : {}) });
        if (!out.json) out.warn(`eval @ step ${event.step}: PSNR ${event.psnr.toFixed(2)} dB${event.ccPsnr !== undefined ? ` (colour-corrected ${event.ccPsnr.toFixed(2)} dB)` : ''}, SSIM ${event.ssim.toFixed(4)}`);
        break;
      case 'log':
        printLog(out, event.level, event.message);
        break;
      case 'checkpoint':
        printLog(out, 'info', `checkpoint at step ${event.step}: ${event.file}`);
        break;
      case 'state':
        if (event.state !== 'running' || !event.run || !project) break;
        out.event('run', { project: project.file, run: event.run, resumed_from: event.step, total: event.total });
        if (!out.json) out.warn(event.step > 0 ? `${project.name}: ${event.run} continues from step ${event.step} of ${event.total}` : `${project.name}: ${event.run} starts (${event.total} steps)`);
        break;
      case 'block':
        out.event('block', { block: event.block, status: event.status, step: event.step, total: event.total, ...(event.worker ? { worker: event.worker } : {}) });
        if (!out.json && event.status !== 'running') out.warn(`${event.block} ${event.status}${event.worker ? ` (${event.worker})` : ''}${event.status === 'finished' ? ` at step ${event.step}` : ''}`);
        break;
      case 'merge':
        out.event('merge', { status: event.status, ...(event.splatCount !== undefined ? { splats: event.splatCount } : {}) });
        if (!out.json) out.warn(`merge ${event.status}${event.splatCount !== undefined ? `: ${event.splatCount.toLocaleString()} splats` : ''}`);
        break;
      case 'snapshot':
      case 'profile':
        break;
    }
  };
}

function printLog(out: Output, level: string, message: string): void {
  out.event('log', { level, message });
  if (!out.json) out.warn(message);
}

function describeStep(p: Extract<TrainEvent, { type: 'progress' }>): string {
  return [
    p.loss !== undefined ? `loss ${p.loss.toFixed(4)}` : '',
    p.psnr !== undefined ? `PSNR ${p.psnr.toFixed(2)}` : '',
    `${(p.splats ?? 0).toLocaleString()} splats`,
    p.itPerS ? `${p.itPerS.toFixed(1)} it/s` : '',
    p.etaS !== undefined ? `ETA ${formatDuration(p.etaS)}` : '',
  ].filter(Boolean).join('  ');
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.round(seconds);
  return s >= 3600 ? `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m` : s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

/** The metrics every training result reports (metrics.json, the JSON result, bench results). */
export function metricsOf(result: TrainJobResult) {
  return {
    train_s: result.trainS,
    steps: result.steps,
    splats: result.splatCount,
    psnr: result.evaluation.psnr,
    /** PSNR after each test view's best affine colour fit (colour-correct.ts). */
    cc_psnr: result.evaluation.ccPsnr,
    ssim: result.evaluation.ssim,
    appearance: result.appearance,
    test_views: result.evaluation.views.length,
    load_s: result.loadS,
    first_step_s: result.firstStepS,
    peak_gpu_bytes: result.peakGpuBytes,
    non_finite_skipped: result.nonFiniteSkipped,
    intersection_overflows: result.intersectionOverflows,
    /** Only when GPU memory capped the growth: the splat count it stayed under. */
    ...(result.memoryCap ? { memory_capped_at: result.memoryCap.splats } : {}),
  };
}

/**
 * A training job outside any project, with its events on the terminal: `bench train` measures
 * the trainer itself, with no manifest to write. Training people keep goes through a project.
 */
export async function trainWithProgress(
  context: CommandContext,
  source: TrainingSource,
  params: ReturnType<typeof resolveTrainParams>,
  extra: { viewFilter?: (v: { name: string; split: string }, i: number) => boolean; profileEvery?: number; initial?: SplatSet } = {},
) {
  const { engineOptions } = context;
  const gpu = await openGpu({ ...engineOptions, profile: engineOptions.profile || (extra.profileEvery ?? 0) > 0 });
  try {
    if (!engineOptions.profile) gpu.profiler.setMode('off');
    const result = await runTrainingJob(gpu, {
      source,
      params,
      viewFilter: extra.viewFilter,
      initial: extra.initial,
      profileEvery: extra.profileEvery ?? (engineOptions.profile ? 1 : 0),
      signal: context.signal,
      onEvent: trainEventPrinter(context.out),
    });
    const profile = gpu.profiler.mode !== 'off' || (extra.profileEvery ?? 0) > 0 ? await gpu.profiler.report() : undefined;
    return { result, gpu: { info: gpu.info }, profile };
  } finally {
    gpu.destroy();
  }
}

/**
 * A project trained from the CLI (`train <file.argo>` and `train <dataset> --out DIR` alike): a
 * GPU opened for it, the project run with the events on the terminal, the per-kernel profile when
 * asked (its table printed in text mode), the GPU closed whatever happens.
 */
export async function trainProjectFromCli(context: CommandContext, project: Project, options: { newRun: boolean; initial?: SplatSet }) {
  const { engineOptions } = context;
  const gpu = await openGpu(engineOptions);
  try {
    if (!engineOptions.profile) gpu.profiler.setMode('off');
    const result = await trainProject(gpu, project, {
      overrides: context.params,
      preset: presetOf(context),
      newRun: options.newRun,
      onParamConflict: 'refuse',
      signal: context.signal,
      profileEvery: engineOptions.profile ? 1 : 0,
      initial: options.initial,
      onEvent: trainEventPrinter(context.out, { file: project.file, name: project.manifest.name }),
    });
    const profile = engineOptions.profile ? await gpu.profiler.report() : undefined;
    if (profile && !context.out.json) context.out.text(formatProfileTable(profile));
    return { result, profile, gpu: { info: gpu.info } };
  } finally {
    gpu.destroy();
  }
}

/** `--out DIR`'s files: the standard 3DGS PLY every viewer reads and the run's metrics. */
export async function writeTrainOutputs(dir: string, splats: SplatSet, metrics: object): Promise<void> {
  await writePly(path.join(dir, 'splats.ply'), splats);
  await writeFile(path.join(dir, 'metrics.json'), `${JSON.stringify(metrics, null, 2)}\n`);
}
