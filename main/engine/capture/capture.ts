/**
 * Video clips and photo folders -> a posed dataset that loadDataset reads:
 *
 *   <out>/images/<input>/...        the selected frames and normalized photos (what COLMAP and the trainer read)
 *   <out>/masks/<input>/<name>.png  with --masks (photos only): each photo's mask at its size (capture-masks.ts)
 *   <out>/sparse/0/*.bin            the largest COLMAP model (distortion kept: the loaders undistort)
 *   <out>/capture/report.json       the report: registered / total, reprojection error, points, diagnostics
 *   <out>/capture/<input>/          per-input work: scan.json, selection.json, photos.json, ffmpeg.log
 *   <out>/capture/argonaut/         our SfM (--sfm argonaut, the default): database.db, mapping.json, sparse/0, state.json
 *   <out>/capture/colmap/           COLMAP's (--sfm colmap, or its fallback): database.db, sparse/, logs/, state.json
 *
 * Every step is resumable (see capture-inputs.ts, photos.ts, sfm.ts, sfm-argonaut.ts): run the same command again
 * after a cancel or a crash and finished work is skipped. The `import` command calls this.
 */
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { paramsWithPrefix, resolveParams, type ParamValue } from '../../../shared/params/index.js';
import { ArgonautError } from '../../../shared/rpc/errors.js';
import { copyFileAtomic, writeFileAtomic } from '../formats/atomic-file.js';
import { processVideo, resolveInputs, framesPerClip, type CaptureInput, type VideoOutcome } from './capture-inputs.js';
import { capturedMasksDir, checkCaptureMasks, importCaptureMasks } from './capture-masks.js';
import { DEFAULT_BLUR_RATIO, DEFAULT_DUPLICATE_THRESHOLD } from './frame-selection.js';
import { importPhotos, type PhotoRecord } from './photos.js';
import { MASKS_FOLDER } from '../dataset/masks.js';
import { type FeatureSource, type Matcher, type SfmGroup, type SfmResult, type SfmStage } from './sfm.js';
import type { ImageMatchStats } from './sfm-match-stats.js';
import type { GpuContext } from '../gpu/context.js';
import { runCaptureSfm, sfmTools, type SfmMethod } from './capture-sfm.js';
import { checkArgonautCameraModel } from './sfm-argonaut-bundle.js';
import { diagnose, modelStats, type Diagnostic, type InputSummary } from './sfm-report.js';
import { runTool } from './tool-process.js';
import { findTool, parseFfmpegVersion } from './tools.js';
import { probeVideo, type FfmpegTools } from './video.js';

export type CaptureStage = 'probe' | 'scan' | 'extract' | 'photos' | SfmStage;

export interface CaptureProgress {
  stage: CaptureStage;
  /** 0..100 within the stage. */
  percent: number;
  /** The input being processed (its name under images/), for per-input stages. */
  input?: string;
  message?: string;
  /** Reused from an earlier run: nothing was recomputed. */
  skipped?: boolean;
}

export interface CaptureOptions {
  /** Frames taken from all video clips together (shared by duration). Default 150. */
  frames?: number;
  /** Long side of the images, in pixels (never upscaled). Default 1600. */
  maxSize?: number;
  /** 'auto': sequential for a single clip or large sets, exhaustive for up to 100 images from several inputs or photos. */
  matcher?: 'auto' | Matcher;
  /** Who maps: 'argonaut' (default) ours end to end, COLMAP only as a fallback; 'colmap' COLMAP's mapper (capture-sfm.ts). */
  sfm?: SfmMethod;
  /** With sfm 'colmap': whose SIFT and matching, 'auto' (default) ours where a hardware GPU adapter opens, else COLMAP's. */
  features?: 'auto' | FeatureSource;
  /** The GPU for our features (the app's engine passes its own); default: one opened for the capture and closed after. */
  gpu?: () => Promise<GpuContext>;
  /** COLMAP camera model. Default SIMPLE_RADIAL. */
  cameraModel?: string;
  /** SIFT features per image. Default 8192 (COLMAP's). */
  maxFeatures?: number;
  bundleAdjust?: boolean;
  blurRatio?: number;
  duplicateThreshold?: number;
  /** A folder with a mask per photo (photo folders only: capture-masks.ts); written to the dataset's masks/ and used by COLMAP and training. */
  masks?: string;
  /** COLMAP threads (-1: all cores). */
  threads?: number;
  /** Where to find the tools (PATH, ARGONAUT_FFMPEG, ARGONAUT_COLMAP). Default process.env. */
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  onProgress?: (p: CaptureProgress) => void;
  onLog?: (level: 'info' | 'warn', message: string) => void;
}

export interface InputReport {
  name: string;
  kind: 'video' | 'photos';
  path: string;
  images: number;
  registered: number;
  unregistered: string[];
  video?: { durationS: number; fps: number; width: number; height: number; framesDecoded: number; segments: number; droppedBlurry: number; droppedDuplicate: number; medianSharpness: number };
  photos?: { copied: number; reencoded: number; unreadable: { file: string; reason: string }[] };
}

export interface CaptureReport {
  datasetDir: string;
  registered: number;
  total: number;
  points: number;
  observations: number;
  meanReprojectionErrorPx: number;
  meanTrackLength: number;
  /** Registered images and points of every model COLMAP built, largest (the one kept) first. */
  models: { registered: number; points: number }[];
  inputs: InputReport[];
  matcher: Matcher;
  /** How the matched pairs were chosen: the matcher's rule, or (features gpu, --matcher auto) selectPairs' method and counts. */
  pairs: SfmResult['pairs'];
  /** Our geometric verification's outcome (features gpu). */
  verification?: SfmResult['verification'];
  /** Whose features and matches the mapper ran on. */
  features: FeatureSource;
  /** Who mapped the model kept, and why COLMAP took over from ours where it did. */
  sfm: { method: SfmMethod; fallback?: string; bundle?: Record<string, unknown> };
  /** Per image: SIFT features, matched and verified pairs (from the database). */
  images: Record<string, ImageMatchStats>;
  /** Images with no verified pair (they cannot register). */
  unmatched: string[];
  cameraModel: string;
  maxSize: number;
  /** COLMAP where it was found (--sfm argonaut needs none), ffmpeg where there was video. */
  tools: { colmap?: { path: string; version: string }; ffmpeg?: { path: string; version: string } };
  timingsS: Record<string, number>;
  /** Stages whose results were reused from an earlier run. */
  resumed: string[];
  diagnostics: Diagnostic[];
}

/** Capture options from the registry's `capture.*` values (explicit values win over the defaults). */
export function captureOptionsFromParams(values: Readonly<Record<string, ParamValue>>): Omit<CaptureOptions, 'signal' | 'onProgress' | 'onLog' | 'env'> {
  const v = resolveParams(paramsWithPrefix('capture.'), values);
  return {
    frames: v['capture.frames'],
    maxSize: v['capture.maxSize'],
    matcher: v['capture.matcher'],
    sfm: v['capture.sfm'],
    features: v['capture.features'],
    cameraModel: v['capture.cameraModel'],
    maxFeatures: v['capture.maxFeatures'],
    bundleAdjust: v['capture.bundleAdjust'],
    blurRatio: v['capture.blurRatio'],
  };
}

export const CAPTURE_DEFAULTS = { frames: 150, maxSize: 1600, cameraModel: 'SIMPLE_RADIAL', maxFeatures: 8192 } as const;
const EXHAUSTIVE_LIMIT = 100;

function checkOptions(o: CaptureOptions): void {
  const int = (name: string, v: number | undefined, min: number) => {
    if (v !== undefined && (!Number.isInteger(v) || v < min)) throw new ArgonautError('invalid_argument', `${name} must be a whole number >= ${min}, got ${v}`);
  };
  int('frames', o.frames, 2);
  int('maxSize', o.maxSize, 64);
  int('maxFeatures', o.maxFeatures, 64);
}

/** Refuses to write into a non-empty folder that is not an earlier capture (its files could be removed). */
async function prepareOutDir(outDir: string): Promise<void> {
  let entries: string[] = [];
  try {
    entries = await readdir(outDir);
  } catch {
    // absent: created below
  }
  if (entries.length > 0 && !entries.includes('capture')) {
    throw new ArgonautError('bad_input', `${outDir}: the folder exists and is not an earlier capture (no capture/ inside); choose a new or empty folder`, { file: outDir });
  }
  await mkdir(path.join(outDir, 'images'), { recursive: true });
  await mkdir(path.join(outDir, 'capture'), { recursive: true });
}

async function ffmpegTools(env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<FfmpegTools & { version: string }> {
  const ffmpeg = findTool('ffmpeg', env);
  const ffprobe = findTool('ffprobe', env);
  let banner = '';
  await runTool({ file: ffmpeg.path, args: ['-hide_banner', '-version'], signal, onLine: (l) => (banner ||= l) });
  const version = parseFfmpegVersion(banner) ?? 'unknown';
  const major = /^n?(\d+)\./.exec(version)?.[1];
  return { ffmpeg: ffmpeg.path, ffprobe: ffprobe.path, version, ...(major ? { major: Number(major) } : {}) };
}

export async function captureToDataset(inputPaths: readonly string[], outDir: string, options: CaptureOptions = {}): Promise<{ datasetDir: string; report: CaptureReport }> {
  checkOptions(options);
  const env = options.env ?? process.env;
  const signal = options.signal;
  const log = options.onLog ?? (() => undefined);
  const progress = options.onProgress ?? (() => undefined);
  const frames = options.frames ?? CAPTURE_DEFAULTS.frames;
  const maxSize = options.maxSize ?? CAPTURE_DEFAULTS.maxSize;
  const cameraModel = options.cameraModel ?? CAPTURE_DEFAULTS.cameraModel;
  const datasetDir = path.resolve(outDir);
  const imagesDir = path.join(datasetDir, 'images');
  const workDir = path.join(datasetDir, 'capture');

  // Everything that can fail fast does, before any long step: inputs, masks, tools, the output folder.
  const inputs = await resolveInputs(inputPaths);
  const masksDir = options.masks !== undefined ? path.resolve(options.masks) : undefined;
  if (masksDir) await checkCaptureMasks(masksDir, inputs);
  const method: SfmMethod = options.sfm ?? 'argonaut';
  if (method === 'argonaut') checkArgonautCameraModel(cameraModel);
  const colmap = await sfmTools(method, env, signal);
  const videos = inputs.filter((i) => i.kind === 'video');
  const tools = videos.length > 0 ? await ffmpegTools(env, signal) : undefined;
  await prepareOutDir(datasetDir);
  const colmapLine = colmap ? `${colmap.versionText}${colmap.cuda ? ' (CUDA: SIFT on the GPU)' : ' (SIFT on the CPU)'}${method === 'argonaut' ? ', for the fallback only' : ''}` : 'no COLMAP (not needed: our own SfM)';
  log('info', `${colmapLine}${tools ? `; ffmpeg ${tools.version}` : ''}`);

  const timingsS: Record<string, number> = {};
  const resumed: string[] = [];
  const time = async <T>(stage: string, body: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await body();
    } finally {
      timingsS[stage] = (timingsS[stage] ?? 0) + (performance.now() - started) / 1000;
    }
  };

  // ---- inputs -> images ----
  const outcomes = new Map<CaptureInput, VideoOutcome | PhotoOutcome>();
  if (tools) {
    const infos = await time('probe', () => Promise.all(videos.map((v) => probeVideo(tools, v.path, signal))));
    const budget = framesPerClip(frames, infos.map((i) => i.durationS));
    for (let k = 0; k < videos.length; k++) {
      const input = videos[k];
      const outcome = await time('video', () =>
        processVideo(tools, input, { imagesDir, workDir }, {
          info: infos[k],
          frames: budget[k],
          maxSize,
          selection: { blurRatio: options.blurRatio ?? DEFAULT_BLUR_RATIO, duplicateThreshold: options.duplicateThreshold ?? DEFAULT_DUPLICATE_THRESHOLD },
          signal,
          onLog: log,
          onProgress: (p) => progress({ stage: p.stage, percent: 100 * p.fraction, input: input.name, message: p.message, skipped: p.skipped }),
        }),
      );
      for (const step of outcome.resumed) resumed.push(`${step}:${input.name}`);
      outcomes.set(input, outcome);
    }
  }
  for (const input of inputs.filter((i) => i.kind === 'photos')) {
    const dest = path.join(imagesDir, input.name);
    const manifest = path.join(workDir, input.name, 'photos.json');
    await mkdir(path.dirname(manifest), { recursive: true });
    await mkdir(dest, { recursive: true });
    const previous = await readFile(manifest, 'utf8').then((t) => JSON.parse(t) as Record<string, PhotoRecord>).catch(() => undefined);
    const imported = await time('photos', () =>
      importPhotos(input.path, dest, { maxSize, previous, signal, onLog: log, onProgress: (done, total, name) => progress({ stage: 'photos', percent: (100 * done) / total, input: input.name, message: name }) }),
    );
    await writeFileAtomic(manifest, `${JSON.stringify(imported.records, null, 1)}\n`);
    if (imported.skipped.length === imported.names.length) resumed.push(`photos:${input.name}`);
    outcomes.set(input, { photos: imported.names, records: imported.records, unreadable: imported.unreadable });
    if (masksDir) {
      await time('masks', () => importCaptureMasks(masksDir, input.path, imported.names, imported.records, maxSize, capturedMasksDir(datasetDir, input.name), signal));
      log('info', `${imported.names.length} masks from ${masksDir} -> ${capturedMasksDir(datasetDir, input.name)}`);
    }
  }
  // an earlier capture's masks never outlive a capture without them (the loaders would use them)
  if (!masksDir) await rm(path.join(datasetDir, MASKS_FOLDER), { recursive: true, force: true });

  // ---- structure from motion ----
  const groups: SfmGroup[] = inputs.map((input) => {
    const outcome = outcomes.get(input)!;
    const images = 'photos' in outcome ? outcome.photos.map((n) => `${input.name}/${n}`) : outcome.images.map((im) => im.name);
    return { name: input.name, kind: input.kind, images };
  });
  const total = groups.reduce((s, g) => s + g.images.length, 0);
  if (total < 2) {
    const hint = videos.length ? 'raise --frames (Frames in the capture settings), or give a longer clip' : 'give a folder with many overlapping photos';
    throw new ArgonautError('bad_input', `${datasetDir}: only ${total} image(s) after frame selection; structure from motion needs many overlapping views (${hint})`, { file: datasetDir });
  }
  const requested = options.matcher ?? 'auto';
  const matcher: Matcher = requested !== 'auto' ? requested : inputs.length === 1 && inputs[0].kind === 'video' ? 'sequential' : total <= EXHAUSTIVE_LIMIT ? 'exhaustive' : 'sequential';
  const byKind = requested === 'auto';
  log('info', `structure from motion on ${total} images (${method === 'argonaut' ? 'ours: GPU features, matching, verification and our global mapper' : "COLMAP's mapper"}, ${byKind && method === 'argonaut' ? 'pairs by capture kind' : `${matcher} matching`}, ${cameraModel})`);
  const sfm = await runCaptureSfm(colmap, { imagesDir, workDir }, groups, {
    method,
    matcher,
    pairsByKind: byKind,
    features: options.features ?? 'auto',
    ...(options.gpu ? { gpu: options.gpu } : {}),
    cameraModel,
    maxFeatures: options.maxFeatures ?? CAPTURE_DEFAULTS.maxFeatures,
    maxImageSize: maxSize,
    bundleAdjust: options.bundleAdjust ?? false,
    ...(masksDir ? { maskDir: path.join(datasetDir, MASKS_FOLDER) } : {}),
    threads: options.threads,
    env,
    signal,
    onLog: log,
    onProgress: (p) => progress({ stage: p.stage, percent: 100 * p.fraction, message: p.message, skipped: p.skipped }),
  });
  for (const [stage, seconds] of Object.entries(sfm.timingsS)) timingsS[stage] = seconds;
  for (const [part, seconds] of Object.entries(sfm.detailS)) timingsS[`sfm.${part}`] = seconds;
  resumed.push(...sfm.resumed);

  // ---- the dataset and its report ----
  const finalDir = path.join(datasetDir, 'sparse', '0');
  if (sfm.model && sfm.modelDir) {
    await mkdir(finalDir, { recursive: true });
    for (const file of ['cameras.bin', 'images.bin', 'points3D.bin']) await copyFileAtomic(path.join(sfm.modelDir, file), path.join(finalDir, file));
  } else {
    await rm(path.join(datasetDir, 'sparse'), { recursive: true, force: true });
  }
  const stats = sfm.model ? modelStats(sfm.model) : undefined;
  const registered = new Set(sfm.model?.images.map((im) => im.name) ?? []);
  const summaries: InputSummary[] = inputs.map((input, k) => {
    const outcome = outcomes.get(input)!;
    return { name: input.name, kind: input.kind, images: 'photos' in outcome ? groups[k].images.map((name) => ({ name })) : outcome.images.map((im) => ({ name: im.name, timeS: im.timeS })) };
  });
  const diagnostics = diagnose({
    inputs: summaries,
    registered,
    modelSizes: sfm.models.map((m) => m.registered),
    meanReprojectionErrorPx: stats?.meanReprojectionErrorPx ?? NaN,
    features: sfm.features,
    matcher,
    cameraModel,
    noInitialPair: sfm.noInitialPair,
    unmatched: sfm.matchStats?.unmatched,
    method: sfm.method,
    ...(sfm.failure ? { failure: sfm.failure } : {}),
    ...(sfm.fallback ? { fallback: sfm.fallback } : {}),
    ...(sfm.unregistered ? { unregisteredReasons: sfm.unregistered } : {}),
  });
  // photos that could not be read were skipped (their files untouched): named, so nothing is silently lost
  for (const outcome of outcomes.values()) {
    for (const u of 'photos' in outcome ? outcome.unreadable : []) diagnostics.unshift({ level: 'warn', message: `skipped ${u.file}: it could not be read (${u.reason.replace(`${u.file}: `, '')}); the other photos were used. Replace or remove the file and run the capture again to include it.` });
  }
  const report: CaptureReport = {
    datasetDir,
    registered: registered.size,
    total,
    points: stats?.points ?? 0,
    observations: stats?.observations ?? 0,
    meanReprojectionErrorPx: stats?.meanReprojectionErrorPx ?? NaN,
    meanTrackLength: stats?.meanTrackLength ?? 0,
    models: sfm.models,
    inputs: inputs.map((input, k) => inputReport(input, outcomes.get(input)!, groups[k].images, registered)),
    matcher,
    pairs: sfm.pairs,
    ...(sfm.verification ? { verification: sfm.verification } : {}),
    features: sfm.featureSource,
    sfm: { method: sfm.method, ...(sfm.fallback ? { fallback: sfm.fallback } : {}), ...(sfm.mapping?.bundle ? { bundle: sfm.mapping.bundle } : {}) },
    images: sfm.matchStats?.images ?? {},
    unmatched: sfm.matchStats?.unmatched ?? [],
    cameraModel,
    maxSize,
    tools: { ...(colmap ? { colmap: { path: colmap.path, version: colmap.versionString } } : {}), ...(tools ? { ffmpeg: { path: tools.ffmpeg, version: tools.version } } : {}) },
    timingsS,
    resumed,
    diagnostics,
  };
  await writeFileAtomic(path.join(workDir, 'report.json'), `${JSON.stringify(report, null, 1)}\n`);
  for (const d of diagnostics) log(d.level, d.message);
  if (!sfm.model) {
    throw new ArgonautError('bad_input', `${datasetDir}: structure from motion failed: ${diagnostics.map((d) => d.message).join(' ')} (report: ${path.join(workDir, 'report.json')})`, { file: datasetDir, report });
  }
  return { datasetDir, report };
}

type PhotoOutcome = { photos: string[]; records: Record<string, PhotoRecord>; unreadable: { file: string; reason: string }[] };

function inputReport(input: CaptureInput, outcome: VideoOutcome | PhotoOutcome, images: string[], registered: ReadonlySet<string>): InputReport {
  const base = { name: input.name, kind: input.kind, path: input.path, images: images.length, registered: images.filter((n) => registered.has(n)).length, unregistered: images.filter((n) => !registered.has(n)) };
  if ('photos' in outcome) {
    const records = Object.values(outcome.records);
    return { ...base, photos: { copied: records.filter((r) => r.action === 'copied').length, reencoded: records.filter((r) => r.action === 'reencoded').length, unreadable: outcome.unreadable } };
  }
  const { info, selection } = outcome;
  return {
    ...base,
    video: {
      durationS: info.durationS,
      fps: info.fps,
      width: info.width,
      height: info.height,
      framesDecoded: outcome.framesDecoded,
      segments: selection.segments,
      droppedBlurry: selection.dropped.filter((d) => d.reason === 'blurry').length,
      droppedDuplicate: selection.dropped.filter((d) => d.reason === 'duplicate').length,
      medianSharpness: selection.medianSharpness,
    },
  };
}
