/**
 * Which structure from motion a capture runs, and the fallback between them:
 *   'argonaut' (default)  ours end to end (sfm-argonaut.ts) on whatever GPU adapter opens, llvmpipe
 *                         included; COLMAP is neither needed nor looked for beyond an optional probe.
 *   'colmap'              COLMAP's mapper (sfm.ts), on our features or COLMAP's (`features`).
 * COLMAP takes over from ours only when ours fails (throws, or registers under half of the images
 * while the view graph held more) and COLMAP is installed; the outcome says so (`fallback`).
 * Without COLMAP our failure stands, worded for the person (sfm-argonaut-mapping.ts).
 */
import path from 'node:path';
import { ArgonautError } from '../../../shared/rpc/errors.js';
import type { ColmapModel } from '../dataset/colmap-model.js';
import { openGpu, type GpuContext } from '../gpu/context.js';
import type { VerificationSummary } from '../sfm/verification-summary.js';
import { openColmap, type Colmap } from './colmap-cli.js';
import { runArgonautSfm, type ArgonautUnregistered } from './sfm-argonaut.js';
import type { MatchStats } from './sfm-match-stats.js';
import { runSfm, type FeatureSource, type SfmGroup, type SfmOptions, type SfmStage } from './sfm.js';
import { findTool } from './tools.js';

export type SfmMethod = 'argonaut' | 'colmap';

/** The options both pipelines take as the COLMAP path's SfmOptions states them, and the choice between them. */
export interface CaptureSfmOptions extends Pick<SfmOptions, 'matcher' | 'gpu' | 'cameraModel' | 'maxFeatures' | 'maxImageSize' | 'bundleAdjust' | 'maskDir' | 'threads' | 'signal' | 'onProgress' | 'onLog'> {
  method: SfmMethod;
  /** The capture's --matcher was 'auto' (ours then picks pairs by capture kind). */
  pairsByKind: boolean;
  /** --features, for COLMAP's mapper (ours always uses our features). */
  features: 'auto' | FeatureSource;
  env: NodeJS.ProcessEnv;
}

export interface CaptureSfmOutcome {
  /** Who built the model kept (or tried last). */
  method: SfmMethod;
  /** Why COLMAP took over from ours. */
  fallback?: string;
  /** Ours failed and nothing took over: what to tell the person. */
  failure?: string;
  model: ColmapModel | null;
  modelDir: string | null;
  models: { registered: number; points: number }[];
  features: Record<string, number>;
  featureSource: FeatureSource;
  noInitialPair: boolean;
  timingsS: Partial<Record<SfmStage, number>>;
  detailS: Record<string, number>;
  resumed: string[];
  matchStats?: MatchStats;
  pairs: { method: string; pairs?: number; retrieved?: number };
  verification?: VerificationSummary;
  /** Ours: each unregistered image with the mapper's reason. */
  unregistered?: ArgonautUnregistered[];
  /** Ours: the mapper's and the refinement's summaries. */
  mapping?: { stats?: unknown; bundle?: Record<string, unknown> };
  colmap?: Colmap;
}

/** COLMAP where installed (for --sfm argonaut: only the fallback needs it), else undefined; --sfm colmap requires it. */
async function findColmap(required: boolean, env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<Colmap | undefined> {
  if (required) return openColmap(findTool('colmap', env), env, signal);
  try {
    return await openColmap(findTool('colmap', env), env, signal);
  } catch (error) {
    if (error instanceof ArgonautError && error.code === 'cancelled') throw error;
    return undefined;
  }
}

/** The tools a capture needs, found before any long step: COLMAP for --sfm colmap (else an error saying how to install it), optional for ours. */
export async function sfmTools(method: SfmMethod, env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<Colmap | undefined> {
  return findColmap(method === 'colmap', env, signal);
}

/** Ours registered too little to keep without trying COLMAP: under half of the images while more had a verified pair. */
export function tooFewRegistered(registered: number, total: number, viewGraphImages: number): string | undefined {
  if (registered >= total / 2 || viewGraphImages <= registered) return undefined;
  return `registered ${registered} of ${total} images while ${viewGraphImages} had a verified pair`;
}

export async function runCaptureSfm(colmap: Colmap | undefined, paths: { imagesDir: string; workDir: string }, groups: readonly SfmGroup[], options: CaptureSfmOptions): Promise<CaptureSfmOutcome> {
  const log = options.onLog ?? (() => undefined);
  const total = groups.reduce((s, g) => s + g.images.length, 0);
  if (options.method === 'colmap') return colmapSfm(colmap!, paths, groups, options, options.features);

  let reason: string;
  let ours: CaptureSfmOutcome | undefined;
  let thrown: unknown;
  const gpu = sharedOrOwnGpu(options.gpu);
  try {
    const result = await runArgonautSfm({ imagesDir: paths.imagesDir, workDir: path.join(paths.workDir, 'argonaut') }, groups, {
      matcher: options.matcher,
      gpuPairs: options.pairsByKind ? 'by-kind' : 'matcher',
      gpu: gpu.open,
      cameraModel: options.cameraModel,
      maxFeatures: options.maxFeatures,
      maxImageSize: options.maxImageSize,
      ...(options.maskDir ? { maskDir: options.maskDir } : {}),
      signal: options.signal,
      onProgress: options.onProgress,
      onLog: log,
    });
    const registered = result.model?.images.length ?? 0;
    ours = {
      method: 'argonaut',
      model: result.model,
      modelDir: result.modelDir,
      models: result.model ? [{ registered, points: result.model.points.ids.length }] : [],
      features: result.features,
      featureSource: 'gpu',
      noInitialPair: false,
      timingsS: result.timingsS,
      detailS: result.detailS,
      resumed: result.resumed,
      ...(result.matchStats ? { matchStats: result.matchStats } : {}),
      pairs: result.pairs,
      ...(result.verification ? { verification: result.verification } : {}),
      unregistered: result.unregistered,
      mapping: { stats: result.mappingStats, bundle: result.bundle },
    };
    const few = result.failure ? undefined : tooFewRegistered(registered, total, result.viewGraphImages);
    if (!result.failure && !few) return ours;
    if (result.failure) ours.failure = result.failure;
    reason = result.failure ? `our SfM found no model: ${result.failure}` : `our SfM ${few}`;
  } catch (error) {
    if (error instanceof ArgonautError && error.code === 'cancelled') throw error;
    thrown = error;
    reason = `our SfM failed: ${(error as Error).message}`;
  } finally {
    gpu.close();
  }
  if (!colmap) {
    if (ours) {
      log('warn', `${reason}; COLMAP is not installed, so nothing takes over (install COLMAP for the fallback)`);
      return ours;
    }
    // an input our mapper cannot map is the person's to fix (exit 3); anything else is ours to report as it is
    if (!(thrown instanceof ArgonautError) || thrown.code !== 'bad_input') throw thrown;
    const reasonOnly = (thrown.details as { reason?: string } | undefined)?.reason ?? thrown.message;
    return emptyOutcome(reasonOnly);
  }
  log('warn', `${reason}: COLMAP's mapper takes over (${colmap.versionText})`);
  const theirs = await colmapSfm(colmap, paths, groups, options, options.features);
  // ours' stage times stay in the report beside COLMAP's (timings "sfm.argonaut.<stage>")
  const oursTimes = Object.fromEntries(Object.entries(ours?.timingsS ?? {}).map(([stage, s]) => [`argonaut.${stage}`, s as number]));
  return { ...theirs, detailS: { ...theirs.detailS, ...oursTimes }, fallback: reason };
}

/** The caller's GPU (the app's engine: never closed here) or one opened on first use and closed after. */
function sharedOrOwnGpu(shared: (() => Promise<GpuContext>) | undefined): { open: () => Promise<GpuContext>; close: () => void } {
  let own: Promise<GpuContext> | undefined;
  return {
    open: () => (shared ? shared() : (own ??= openGpu())),
    close: () => void own?.then((ctx) => ctx.destroy(), () => undefined),
  };
}

function emptyOutcome(failure: string): CaptureSfmOutcome {
  return { method: 'argonaut', failure, model: null, modelDir: null, models: [], features: {}, featureSource: 'gpu', noInitialPair: false, timingsS: {}, detailS: {}, resumed: [], pairs: { method: 'none' } };
}

async function colmapSfm(colmap: Colmap, paths: { imagesDir: string; workDir: string }, groups: readonly SfmGroup[], options: CaptureSfmOptions, requested: 'auto' | FeatureSource): Promise<CaptureSfmOutcome> {
  const log = options.onLog ?? (() => undefined);
  const gpu = await featureGpu(requested, options.gpu, log);
  try {
    const featureSource: FeatureSource = gpu ? 'gpu' : 'colmap';
    const byKind = featureSource === 'gpu' && options.pairsByKind;
    const sfm = await runSfm(colmap, { imagesDir: paths.imagesDir, workDir: path.join(paths.workDir, 'colmap') }, groups, {
      matcher: options.matcher,
      features: featureSource,
      gpuPairs: byKind ? 'by-kind' : 'matcher',
      // COLMAP's verification of our matches, for comparison (docs/sfm.md)
      ...(options.env.ARGONAUT_SFM_VERIFIER === 'colmap' ? { verifier: 'colmap' as const } : {}),
      ...(gpu ? { gpu: gpu.context } : {}),
      cameraModel: options.cameraModel,
      maxFeatures: options.maxFeatures,
      maxImageSize: options.maxImageSize,
      bundleAdjust: options.bundleAdjust,
      ...(options.maskDir ? { maskDir: options.maskDir } : {}),
      threads: options.threads,
      signal: options.signal,
      onLog: log,
      onProgress: options.onProgress,
    });
    return {
      method: 'colmap',
      model: sfm.model,
      modelDir: sfm.modelDir,
      models: sfm.models.map((m) => ({ registered: m.registered, points: m.points })),
      features: sfm.features,
      featureSource,
      noInitialPair: sfm.noInitialPair,
      timingsS: sfm.timingsS,
      detailS: sfm.detailS,
      resumed: sfm.resumed,
      ...(sfm.matchStats ? { matchStats: sfm.matchStats } : {}),
      pairs: sfm.pairs,
      ...(sfm.verification ? { verification: sfm.verification } : {}),
      colmap,
    };
  } finally {
    gpu?.close();
  }
}

/**
 * The GPU for our features under COLMAP's mapper, or undefined for COLMAP's: 'colmap' never opens
 * one; 'gpu' must open one (or fails, naming why); 'auto' uses a hardware adapter where one opens.
 */
async function featureGpu(requested: 'auto' | FeatureSource, shared: (() => Promise<GpuContext>) | undefined, log: (level: 'info' | 'warn', message: string) => void): Promise<{ context: () => Promise<GpuContext>; close: () => void } | undefined> {
  if (requested === 'colmap') return undefined;
  // the caller's context (the app's engine: one device per process) is used, never closed here
  let opened: GpuContext;
  try {
    opened = shared ? await shared() : await openGpu();
  } catch (error) {
    if (requested === 'gpu') throw error;
    log('info', `no GPU adapter for our features (${(error as Error).message}): COLMAP extracts and matches`);
    return undefined;
  }
  const close = () => (shared ? undefined : opened.destroy());
  // On a CPU adapter (llvmpipe, SwiftShader) COLMAP's own CPU code gives the model for less: at first
  // octave -1 our extraction costs ~1.5x its CPU time there (matching 0.77x) and our whole capture of
  // the apple clip measured ~3x before the speed work (docs/sfm.md), so 'auto' leaves features and
  // matching to COLMAP there.
  if (requested === 'auto' && opened.info.adapter.software) {
    log('info', `${opened.info.adapter.name} is a CPU adapter: COLMAP extracts and matches (its CPU code does better there; --features gpu uses ours anyway)`);
    close();
    return undefined;
  }
  return { context: () => Promise.resolve(opened), close };
}
