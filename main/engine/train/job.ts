/**
 * A training job from start to result, under every way of training (a project run, so the CLI's
 * `train` and the engine host's jobs; `bench train` directly): load the data, build the trainer,
 * run, evaluate, return the splats and metrics. Everything it has to say goes out as one stream of
 * `TrainEvent`s (shared/contract/train-events.ts) to `onEvent`; cancellation (an AbortSignal)
 * stops between steps.
 */
import type { TrainEvent, TrainEventOf, TrainEventOptions } from '../../../shared/contract/train-events.js';
import type { ParamValue } from '../../../shared/params/index.js';
import type { SplatSet } from '../../../shared/scene/splats.js';
import type { GpuContext } from '../gpu/context.js';
import type { TrainingData } from './data.js';
import { trainingDataFromPath } from './dataset-data.js';
import { readdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import { makeFolder } from '../formats/atomic-file.js';
import { readCheckpoint, writeCheckpoint } from './checkpoint.js';
import type { ViewCorrection } from '../../../shared/scene/camera-correction.js';
import { evaluateWithPoseAlignment } from './pose-alignment.js';
import { sampleScene } from './sample-scene.js';
import { Trainer, type Evaluation, type TrainerConfig } from './trainer.js';
import { trainerConfigFromParams, trainParamValues, warmStartConfig, type TrainParamValues } from './trainer-config.js';

export type TrainingSource = { kind: 'dataset'; path: string } | { kind: 'sample' };

export interface CheckpointOptions {
  /** Folder for `step-NNNNNNN.ckpt` files (created). */
  dir: string;
  /** Every N steps (0: only on stop/cancel). */
  every: number;
  /** And at least this often (default 5 minutes). */
  everyMs?: number;
  /** Files kept (oldest removed first). Default 3. */
  keep?: number;
  /** Continue from this checkpoint file (a project run picks its newest complete one). */
  from?: string;
}

/** What a `between` hook may do between two steps: look at the splats, save a checkpoint. */
export interface StepControl {
  /** Steps done so far. */
  readonly step: number;
  readonly total: number;
  /** The current splats on the host (a GPU sync point). */
  download(): Promise<SplatSet>;
  /** Writes a checkpoint now (when checkpoints are configured); returns its file. */
  checkpoint(): Promise<string | undefined>;
}

/** Where a job's events go and what stops it: `{ signal, onEvent }` (a `checkpoint` event is awaited before training goes on). */
export interface TrainJobOptions extends TrainEventOptions {
  checkpoints?: CheckpointOptions;
  /** Start from these splats (a PLY the user trained before, to continue) instead of initializing. */
  initial?: SplatSet;
  /** The initial splats are trained already: continue them (trainer-config.ts warmStartConfig), do not start over. */
  warmStart?: boolean;
  source: TrainingSource;
  /** Registry values (`train.*`), already validated. */
  params: Readonly<Record<string, ParamValue>>;
  /** Test-view filter of a benchmark protocol. */
  viewFilter?: (view: { name: string; split: string }, index: number) => boolean;
  /** Profile one step in this many (sampled per-kernel profile, ~free); 0: never. */
  profileEvery?: number;
  /**
   * Awaited before every step (pause, live snapshots). Its time is not training time: it does
   * not count in it/s or the ETA.
   */
  between?: (control: StepControl) => Promise<void>;
}

export type TrainProgress = TrainEventOf<'progress'>;

export interface TrainJobResult {
  steps: number;
  trainS: number;
  loadS: number;
  /** Job start to the first submitted training step. */
  firstStepS: number;
  /** Process start to the first submitted training step (the CLI's start-up time). */
  processFirstStepS: number;
  /**
   * When each start-up stage ended, in seconds since the process started: the job's start, the
   * data's views, the initial splats, the pipelines, the frames, the intersection sizing, the first
   * step, and every image on the GPU (they load behind the first steps; absent when not by the end).
   */
  startupStages: Partial<Record<StartupStage, number>>;
  evaluation: Evaluation;
  /** Every evaluation of the run in step order (the `--eval-every` ones, then the final one). */
  evaluations: Evaluation[];
  splats: SplatSet;
  splatCount: number;
  peakGpuBytes: number;
  /** Set when GPU memory capped the run's growth (memory-growth.ts). */
  memoryCap?: Trainer['memoryCap'];
  /** Trainer.stateBytesPerSplat at the end of the run. */
  stateBytesPerSplat: number;
  /** Trainer.stateBytesBreakdown at the end of the run. */
  stateBytesBreakdown: Trainer['stateBytesBreakdown'];
  /** Trainer.stateBytesPerLiveSplat at the end of the run. */
  stateBytesPerLiveSplat: number;
  /** Trainer.clippedGrowth at the end of the run. */
  clippedGrowth: number;
  nonFiniteSkipped: number;
  /** Steps whose intersections outgrew the buffers (their gradient missed some; the buffers grow at the next check). */
  intersectionOverflows: number;
  cancelled: boolean;
  /** With camera refinement: the held-out views after test-time pose alignment (pose-alignment.ts), beside `evaluation`. */
  alignedEvaluation?: Evaluation;
  /** Camera refinement's corrections per view (undefined when it was off). */
  cameraCorrections?: ViewCorrection[];
  /** The step a resumed run started from (undefined for a fresh run). */
  resumedFrom?: number;
  /** The newest checkpoint written, if any. */
  lastCheckpoint?: string;
  config: TrainerConfig;
  /** The per-image colour model trained (config.appearance resolved for the data). */
  appearance: Trainer['appearanceModel'];
  data: { name: string; train: number; test: number; width: number; height: number; background: number[] };
}

export type StartupStage = 'job' | 'data' | 'splats' | 'pipelines' | 'frames' | 'intersections' | 'first_step' | 'images';

export async function loadTrainingData(source: TrainingSource, ctx: GpuContext, p: Readonly<TrainParamValues>, filter?: TrainJobOptions['viewFilter'], warn?: (m: string) => void): Promise<TrainingData & { dispose?: () => void }> {
  if (source.kind === 'sample') return sampleScene(ctx);
  return trainingDataFromPath(source.path, { downscale: p['train.downscale'], background: p['train.background'], masks: p['train.masks'], alpha: p['train.alpha'], filter, warn });
}

export async function runTrainingJob(ctx: GpuContext, options: TrainJobOptions): Promise<TrainJobResult> {
  const started = performance.now();
  ctx.memory.resetPeak(); // peakGpuBytes is this job's
  const startupStages: TrainJobResult['startupStages'] = {};
  // Node's time origin is the process start
  const stageEnded = (stage: StartupStage) => (startupStages[stage] ??= performance.now() / 1000);
  stageEnded('job');
  const values = trainParamValues(options.params);
  const config = options.warmStart ? warmStartConfig(trainerConfigFromParams(values)) : trainerConfigFromParams(values);
  const emit = async (event: TrainEvent) => options.onEvent?.(event);
  const log = (level: TrainEventOf<'log'>['level'], message: string) => void emit({ type: 'log', level, message });
  const progress = (p: Omit<TrainProgress, 'type'>) => void emit({ type: 'progress', ...p });
  progress({ stage: 'load', step: 0, total: 1 });
  const data = await loadTrainingData(options.source, ctx, values, options.viewFilter, (m) => log('warn', m));
  stageEnded('data');
  let trainer: Trainer | undefined;
  try {
    const ck = options.checkpoints;
    const latest = ck?.from;
    let resumedFrom: number | undefined;
    if (latest) {
      trainer = await Trainer.resume(ctx, data, config, await readCheckpoint(latest), latest);
      resumedFrom = trainer.step;
      log('info', `resumed from ${latest} (step ${resumedFrom})`);
    } else {
      const initial = options.initial ? withShDegree(options.initial, config.shDegree) : undefined;
      trainer = await Trainer.create(ctx, data, config, { initial, onProgress: (_stage, done, total) => progress({ stage: 'upload', step: done, total }), onStage: stageEnded });
    }
    // GPU memory capped growth: said once in the log, and on every progress after (the GUI's banner)
    const reportCap = (cap: NonNullable<Trainer['memoryCap']>) => log('warn', cap.message);
    if (trainer.memoryCap) reportCap(trainer.memoryCap);
    trainer.onMemoryCap = reportCap;
    void trainer.targets.allReady().then(() => stageEnded('images'), () => undefined);
    let warnings = 0;
    trainer.onWarning = (message) => {
      if (++warnings <= 20) log('warn', message);
      else if (warnings === 21) log('warn', 'more non-finite gradients; further reports suppressed');
    };
    let lastCheckpoint: string | undefined;
    let lastCheckpointAt = performance.now();
    const saveCheckpoint = async () => {
      if (!ck || !trainer) return;
      const state = await trainer.checkpointState();
      await makeFolder(ck.dir);
      const file = path.join(ck.dir, checkpointName(trainer.step));
      await writeCheckpoint(file, state.header, state.blobs);
      lastCheckpoint = file;
      lastCheckpointAt = performance.now();
      await pruneCheckpoints(ck.dir, ck.keep ?? 3);
      await emit({ type: 'checkpoint', step: trainer.step, file });
    };
    const loadS = (performance.now() - started) / 1000;
    log('info', `training on ${data.views.filter((v) => v.split === 'train').length} views (${data.views.filter((v) => v.split === 'test').length} test), ${trainer.splatCount} initial splats, scene scale ${data.sceneScale.toFixed(3)}, appearance ${trainer.appearanceModel}`);
    const evalEvery = values['train.evalEvery'] || 0;
    const profileEvery = options.profileEvery ?? 0;
    const trainStart = performance.now();
    let firstStepS = 0;
    let processFirstStepS = 0;
    let evalS = 0;
    let cancelled = false;
    const profiler = ctx.profiler;
    const profiled = profiler.mode !== 'off';
    const startStep = trainer.step;
    // Progress goes out at most every 250 ms, and for the last step reached (end or stop), so the
    // stream's newest step is the trainer's: the run and the job manager take the step from it.
    let lastReportMs = 0;
    let reportedStep = startStep;
    const reportStep = () => {
      const now = performance.now();
      const step = trainer!.step;
      lastReportMs = now;
      reportedStep = step;
      const elapsed = (now - trainStart) / 1000 - evalS;
      const itPerS = (step - startStep) / Math.max(elapsed, 1e-9);
      const last = trainer!.losses.at(-1);
      const etaS = (config.iterations - step) / itPerS;
      progress({
        stage: 'train', step, total: config.iterations, splats: trainer!.splatCount, itPerS, ...(trainer!.memoryCap ? { memoryCap: trainer!.memoryCap } : {}),
        ...(last ? { loss: last.loss, psnr: last.psnr } : {}), ...(Number.isFinite(etaS) ? { etaS } : {}),
      });
    };
    const control = (step: number): StepControl => ({
      step,
      total: config.iterations,
      download: () => trainer!.download(),
      checkpoint: async () => {
        if (!ck) return undefined;
        await saveCheckpoint();
        return lastCheckpoint;
      },
    });
    for (let step = startStep; step < config.iterations; step++) {
      if (options.between && !options.signal?.aborted) {
        const t0 = performance.now();
        await options.between(control(step));
        evalS += (performance.now() - t0) / 1000; // paused or snapshotting: not training time
      }
      if (options.signal?.aborted) {
        cancelled = true;
        if (lastCheckpoint === undefined || !lastCheckpoint.endsWith(checkpointName(step))) await saveCheckpoint();
        break;
      }
      if (ck && step > startStep && ((ck.every > 0 && step % ck.every === 0) || performance.now() - lastCheckpointAt > (ck.everyMs ?? 300_000))) {
        const t0 = performance.now();
        await saveCheckpoint();
        evalS += (performance.now() - t0) / 1000; // not training time
      }
      const sample = profileEvery > 0 && step % profileEvery === 0 && step > 0;
      if (profileEvery > 0) profiler.setMode(sample ? (ctx.device.features.has('timestamp-query') ? 'timestamps' : 'host') : 'off');
      await trainer.trainStep();
      // Let Dawn deliver map callbacks (a macrotask): losses and counts arrive during the run.
      await new Promise((resolve) => setImmediate(resolve));
      if (step === startStep) {
        firstStepS = (performance.now() - started) / 1000;
        processFirstStepS = stageEnded('first_step');
      }
      if (evalEvery > 0 && (step + 1) % evalEvery === 0 && step + 1 < config.iterations) {
        const t0 = performance.now();
        const e = await trainer.evaluate();
        evalS += (performance.now() - t0) / 1000;
        await emit({ type: 'evaluation', ...e });
      }
      if (performance.now() - lastReportMs > 250 || step === config.iterations - 1) reportStep();
    }
    if (trainer.step !== reportedStep) reportStep();
    if (profileEvery > 0) profiler.setMode(profiled ? (ctx.device.features.has('timestamp-query') ? 'timestamps' : 'host') : 'off');
    await trainer.settle();
    await ctx.device.queue.onSubmittedWorkDone();
    const trainS = (performance.now() - trainStart) / 1000 - evalS;
    progress({ stage: 'eval', step: 0, total: 1 });
    const evaluation = await trainer.evaluate();
    await emit({ type: 'evaluation', ...evaluation });
    // the held-out cameras did not move with the refined ones: score them aligned too
    const refinedAtAll = trainer.refinedCameras() !== undefined && trainer.step > config.cameraRefine.start;
    const alignedEvaluation = refinedAtAll && !cancelled ? (await evaluateWithPoseAlignment(trainer)).evaluation : undefined;
    if (alignedEvaluation) log('info', `test PSNR ${evaluation.psnr.toFixed(2)} dB; with test-time pose alignment ${alignedEvaluation.psnr.toFixed(2)} dB (SSIM ${evaluation.ssim.toFixed(4)} / ${alignedEvaluation.ssim.toFixed(4)})`);
    const splats = await trainer.download();
    if (trainer.nonFiniteSkipped > 0) log('warn', `${trainer.nonFiniteSkipped} non-finite gradient values were skipped (never applied to the parameters)`);
    if (trainer.isectOverflows > 0) log('warn', `${trainer.isectOverflows} steps needed more intersections than the buffers held (their gradients missed some; the buffers grew after)`);
    if (trainer.visibleOverflows > 0) log('warn', `${trainer.visibleOverflows} steps' views had more visible splats than the frame held (rendered without the rest; the frame grew after)`);
    const clippedGrowth = await trainer.clippedGrowth();
    if (clippedGrowth > 0) log('info', `${clippedGrowth} splats a refine would have grown waited for a later one (train.refineGrowth: the most one refine grows)`);
    const train = data.views.filter((v) => v.split === 'train');
    return {
      steps: trainer.step,
      resumedFrom,
      lastCheckpoint,
      trainS,
      loadS,
      firstStepS,
      processFirstStepS,
      startupStages,
      evaluation,
      evaluations: [...trainer.evaluations],
      splats,
      splatCount: splats.count,
      peakGpuBytes: ctx.memory.peak,
      memoryCap: trainer.memoryCap,
      stateBytesPerSplat: trainer.stateBytesPerSplat,
      stateBytesBreakdown: trainer.stateBytesBreakdown,
      stateBytesPerLiveSplat: trainer.stateBytesPerLiveSplat,
      clippedGrowth,
      nonFiniteSkipped: trainer.nonFiniteSkipped,
      intersectionOverflows: trainer.isectOverflows,
      cancelled,
      cameraCorrections: trainer.cameraCorrections(),
      alignedEvaluation,
      config,
      appearance: trainer.appearanceModel,
      data: {
        name: data.name,
        train: train.length,
        test: data.views.length - train.length,
        width: Math.max(...data.views.map((v) => v.camera.width)),
        height: Math.max(...data.views.map((v) => v.camera.height)),
        background: data.background,
      },
    };
  } finally {
    trainer?.destroy();
    data.dispose?.();
  }
}

const CHECKPOINT_NAME = /^step-(\d{7,})\.ckpt$/;

/** `step-NNNNNNN.ckpt`: the file name of the checkpoint at a step. */
export function checkpointName(step: number): string {
  return `step-${String(step).padStart(7, '0')}.ckpt`;
}

/** The `step-N.ckpt` files of a folder, newest (highest step) first; none for a missing folder. */
export async function checkpointFiles(dir: string): Promise<{ file: string; step: number }[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const found = names.flatMap((n) => {
    const m = CHECKPOINT_NAME.exec(n);
    return m ? [{ file: path.join(dir, n), step: Number(m[1]) }] : [];
  });
  return found.sort((a, b) => b.step - a.step);
}

/** Keeps the newest `keep` checkpoints. */
export async function pruneCheckpoints(dir: string, keep: number): Promise<void> {
  for (const { file } of (await checkpointFiles(dir)).slice(keep)) await unlink(file).catch(() => undefined);
}

/** The same splats at another SH degree: higher bands added as zeros, or dropped. */
export function withShDegree(splats: SplatSet, degree: number): SplatSet {
  if (splats.shDegree === degree) return splats;
  const from = (splats.shDegree + 1) ** 2;
  const to = (degree + 1) ** 2;
  const sh = new Float32Array(splats.count * to * 3);
  const keep = Math.min(from, to) * 3;
  for (let i = 0; i < splats.count; i++) sh.set(splats.sh.subarray(i * from * 3, i * from * 3 + keep), i * to * 3);
  return { ...splats, shDegree: degree, sh };
}
