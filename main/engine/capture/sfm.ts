/**
 * Structure from motion through COLMAP's command line: feature extraction (one run per input, so
 * a video clip gets one shared camera and photos one camera each), matching (sequential for video,
 * exhaustive for small sets), incremental mapping, optional bundle adjustment. The largest model
 * wins when COLMAP returns several.
 *
 * Resumable stage by stage from its outputs, recorded in <work>/state.json:
 *   features  per input, once its feature_extractor run exited 0 (a cancelled run is simply run
 *             again: COLMAP skips images whose features are already in database.db);
 *   matching  once the matcher exited 0 (a rerun skips pairs already matched in the database), or
 *             once our matching and verification wrote the database (features gpu);
 *   mapping   once the mapper finished (a cancelled mapper starts over: sparse/ is cleared);
 *   bundle    once bundle_adjuster finished.
 * The state is keyed by the image set and every option that changes the results; a different key
 * (other frames, another camera model) starts from an empty database.
 */
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ArgonautError } from '../../../shared/rpc/errors.js';
import { readColmapModel } from '../dataset/colmap.js';
import { parseFeatureField, parseMapperLine, parseMatchingProgress, parseProcessedFile, parseSolverIteration, type Colmap, type ColmapCommand, type LogicalOption } from './colmap-cli.js';
import type { ColmapModel } from '../dataset/colmap-model.js';
import { isFile } from '../dataset/source-view.js';
import { runTool } from './tool-process.js';
import type { GpuContext } from '../gpu/context.js';
import type { VerificationSummary } from '../sfm/verification-summary.js';
import { CAPTURE_SIFT } from '../sfm/sift-options.js';
import { matchStats, type MatchStats } from './sfm-match-stats.js';
import { hashKey, imagesMaterial, lazyGpu, openState, ourFeaturesStage, ourMatchingStage, timedStage, type FrontEndContext, type Matcher, type SfmGroup, type SfmPaths, type SfmProgress, type SfmStage } from './sfm-stages.js';

export type { Matcher, SfmGroup, SfmPaths, SfmProgress, SfmStage };
/** Whose SIFT and matching: ours on the GPU (sfm-gpu.ts) or COLMAP's. COLMAP maps either way. */
export type FeatureSource = 'gpu' | 'colmap';

export interface SfmOptions {
  matcher: Matcher;
  /** Default 'colmap'. */
  features?: FeatureSource;
  /** The GPU for `features: 'gpu'` (opened on first use, only when a stage needs it). */
  gpu?: () => Promise<GpuContext>;
  /** `features: 'gpu'`: pairs by the capture's kind ('by-kind': retrieval, loop candidates) or `matcher`'s plain rule (default; what --matcher forces). */
  gpuPairs?: 'by-kind' | 'matcher';
  /** `features: 'gpu'`: who verifies our matches: 'ours' (default; writes two_view_geometries) or 'colmap' (matches_importer, kept for comparison). */
  verifier?: 'ours' | 'colmap';
  cameraModel: string;
  maxFeatures: number;
  /** Images are already at most this size; passed on so COLMAP never downsizes behind our back. */
  maxImageSize: number;
  bundleAdjust: boolean;
  /** Masks for feature extraction: `<maskDir>/<image name>.png`, zero = no features there (capture-masks.ts). */
  maskDir?: string;
  /** CPU threads for COLMAP (-1: all). */
  threads?: number;
  signal?: AbortSignal;
  onProgress?: (p: SfmProgress) => void;
  onLog?: (level: 'info' | 'warn', message: string) => void;
}

export interface SfmModel {
  dir: string;
  registered: number;
  points: number;
}

export interface SfmResult {
  /** The model kept (largest, bundle-adjusted when asked), or null when COLMAP built none. */
  model: ColmapModel | null;
  modelDir: string | null;
  /** Every model the mapper wrote, largest first. */
  models: SfmModel[];
  /** SIFT features per image name, from the extractor's output. */
  features: Record<string, number>;
  noInitialPair: boolean;
  timingsS: Partial<Record<SfmStage, number>>;
  /** Stages whose outputs were reused. */
  resumed: SfmStage[];
  /** Parts of the stages with `features: 'gpu'`: extract, writeDatabase, pairs, match, verify (seconds; verify: ours, or COLMAP's matches_importer). */
  detailS: Record<string, number>;
  /** Per image: features, matched and verified pairs (undefined when the database cannot be read). */
  matchStats?: MatchStats;
  /** How the pairs were chosen ('sequential' / 'exhaustive': COLMAP's matcher or the plain rule), how many, how many by retrieval. */
  pairs: { method: string; pairs?: number; retrieved?: number };
  /** Our verification's outcome (features gpu, verifier ours). */
  verification?: VerificationSummary;
}

async function stateKey(colmap: Colmap, paths: SfmPaths, groups: readonly SfmGroup[], options: SfmOptions): Promise<string> {
  const images = await imagesMaterial(paths, groups, options.maskDir);
  // 'colmap' keeps the key it always had, so earlier captures resume
  const source = options.features === 'gpu' ? { features: 'gpu', sift: CAPTURE_SIFT } : {};
  const { groups: inputs, files, masks } = images;
  return hashKey({ colmap: colmap.versionString, ...source, cameraModel: options.cameraModel, maxFeatures: options.maxFeatures, maxImageSize: options.maxImageSize, groups: inputs, files, ...(masks ? { masks } : {}) });
}

/** Sub-folders of sparse/ that hold a model, largest first. */
export async function listModels(sparseDir: string): Promise<(SfmModel & { model: ColmapModel })[]> {
  let entries: string[];
  try {
    entries = await readdir(sparseDir);
  } catch {
    return [];
  }
  const models = [];
  for (const entry of entries.filter((e) => /^\d+$/.test(e))) {
    const dir = path.join(sparseDir, entry);
    if (!(await isFile(path.join(dir, 'images.bin'))) && !(await isFile(path.join(dir, 'images.txt')))) continue;
    const model = await readColmapModel(dir);
    models.push({ dir, registered: model.images.length, points: model.points.ids.length, model });
  }
  return models.sort((a, b) => b.registered - a.registered || b.points - a.points);
}

export async function runSfm(colmap: Colmap, paths: SfmPaths, groups: readonly SfmGroup[], options: SfmOptions): Promise<SfmResult> {
  const { workDir, imagesDir } = paths;
  const signal = options.signal;
  const log = options.onLog ?? (() => undefined);
  const database = path.join(workDir, 'database.db');
  const sparseDir = path.join(workDir, 'sparse');
  const bundledDir = path.join(workDir, 'bundled');
  const logsDir = path.join(workDir, 'logs');
  await mkdir(logsDir, { recursive: true });
  await mkdir(path.join(workDir, 'lists'), { recursive: true });

  const key = await stateKey(colmap, paths, groups, options);
  const { state, save } = await openState(workDir, key, ['sparse', 'bundled'], log);

  const result: SfmResult = { model: null, modelDir: null, models: [], features: state.featureCounts, noInitialPair: false, timingsS: {}, resumed: [], detailS: {}, pairs: { method: options.matcher } };
  const threads = options.threads ?? -1;

  const run = async (stage: SfmStage, command: ColmapCommand, args: string[], logical: Partial<Record<LogicalOption, string | number>>, onLine: (line: string) => void): Promise<void> => {
    const extra = await colmap.args(command, { ...logical, logToStderr: 1 }, signal);
    if (extra.missing.includes('readerMaskPath')) log('warn', `this COLMAP (${colmap.versionText}) has no ImageReader.mask_path: features are extracted from masked pixels too (training still ignores them)`);
    for (const option of extra.missing.filter((o) => o === 'extractUseGpu' || o === 'matchUseGpu')) {
      log('warn', `this COLMAP (${colmap.versionText}) has no ${option === 'extractUseGpu' ? 'use_gpu option for feature extraction' : 'use_gpu option for matching'}: it uses its own default`);
    }
    const logFile = path.join(logsDir, `${stage}.log`);
    const outcome = await runTool({
      file: colmap.path,
      args: [command, ...args, ...extra.args],
      env: colmap.env,
      signal,
      logFile,
      onStart: (pid) => log('info', `running colmap ${command} (pid ${pid}); log: ${logFile}`),
      onLine,
    });
    const errorLine = outcome.tail.find((l) => /^(ERROR|E\d{4})/.test(l.trim()));
    if (outcome.code !== 0) {
      throw new ArgonautError('internal', `colmap ${command} failed (exit ${outcome.code}): ${(errorLine ?? outcome.tail.slice(-4).join(' | ')).trim()} (full log: ${logFile})`, { stage, log: logFile });
    }
    if (errorLine) log('warn', `colmap ${command}: ${errorLine.trim()} (see ${logFile})`);
  };
  const timed = (stage: SfmStage, body: () => Promise<void>): Promise<void> => timedStage(result, stage, body);

  // ---- features, one run per input (COLMAP) or all images at once (ours) ----
  const total = groups.reduce((s, g) => s + g.images.length, 0);
  let before = 0;
  const gpu = colmap.cuda ? 1 : 0;
  const ours = options.features === 'gpu';
  const frontEnd: FrontEndContext = {
    database, workDir, imagesDir, groups, state, save, result, gpu: lazyGpu(options.gpu),
    // (the comparison path only: matches_importer's pair list splits a line at its first space,
    // so an image whose name has one loses its pairs there; our verification has no such list)
    verifyWithColmap: (pairList, onFraction) =>
      run('matching', 'matches_importer', ['--database_path', database, '--match_list_path', pairList, '--match_type', 'pairs'], { matchUseGpu: gpu, matchThreads: threads }, (line) => {
        const fraction = parseMatchingProgress(line);
        if (fraction !== null) onFraction(fraction);
      }),
  };
  if (ours) await ourFeaturesStage(frontEnd, options);
  for (const group of ours ? [] : groups) {
    if (state.features[group.name]) {
      before += group.images.length;
      options.onProgress?.({ stage: 'features', fraction: before / total, skipped: true, message: `${group.name}: features already extracted` });
      continue;
    }
    const list = path.join(workDir, 'lists', `${group.name}.txt`);
    await writeFile(list, `${group.images.join('\n')}\n`);
    let name = '';
    await timed('features', () =>
      run('features', 'feature_extractor', [
        '--database_path', database, '--image_path', imagesDir, '--image_list_path', list,
        '--ImageReader.camera_model', options.cameraModel,
        '--ImageReader.single_camera', group.kind === 'video' ? '1' : '0',
      ], { extractUseGpu: gpu, extractThreads: threads, extractMaxImageSize: options.maxImageSize, extractMaxFeatures: options.maxFeatures, ...(options.maskDir ? { readerMaskPath: options.maskDir } : {}) }, (line) => {
        const processed = parseProcessedFile(line);
        if (processed) options.onProgress?.({ stage: 'features', fraction: (before + processed.done) / total, message: `${group.name}: ${processed.done}/${processed.total}` });
        const field = parseFeatureField(line);
        if (field?.field === 'name') name = field.value;
        else if (field?.field === 'features' && name) state.featureCounts[name] = field.value;
      }),
    );
    before += group.images.length;
    state.features[group.name] = true;
    delete state.matching;
    delete state.mapping;
    delete state.bundle;
    await save();
  }
  if (!ours && groups.every((g) => state.features[g.name]) && result.timingsS.features === undefined) result.resumed.push('features');

  // ---- matching ----
  if (ours) {
    await ourMatchingStage(frontEnd, options);
  } else if (state.matching === options.matcher) {
    result.resumed.push('matching');
    options.onProgress?.({ stage: 'matching', fraction: 1, skipped: true, message: 'images already matched' });
  } else {
    const command = options.matcher === 'sequential' ? 'sequential_matcher' : 'exhaustive_matcher';
    await timed('matching', () =>
      run('matching', command, ['--database_path', database], { matchUseGpu: gpu, matchThreads: threads }, (line) => {
        const fraction = parseMatchingProgress(line);
        if (fraction !== null) options.onProgress?.({ stage: 'matching', fraction });
      }),
    );
    state.matching = options.matcher;
    delete state.mapping;
    delete state.bundle;
    await save();
  }

  // features and matches per image, from the database either path wrote (the report's diagnostics)
  result.matchStats = await matchStats(database).catch((error: unknown) => {
    log('warn', `${database}: could not read match statistics: ${(error as Error).message}`);
    return undefined;
  });

  // ---- mapping ----
  let models = state.mapping ? await listModels(sparseDir) : [];
  if (state.mapping && models.length > 0) {
    result.resumed.push('mapping');
    result.noInitialPair = state.mapping.noInitialPair ?? false;
    options.onProgress?.({ stage: 'mapping', fraction: 1, skipped: true, message: 'models already built' });
  } else {
    await rm(sparseDir, { recursive: true, force: true });
    await rm(bundledDir, { recursive: true, force: true });
    await mkdir(sparseDir, { recursive: true });
    let most = 0;
    let noInitialPair = false;
    await timed('mapping', () =>
      run('mapping', 'mapper', ['--database_path', database, '--image_path', imagesDir, '--output_path', sparseDir], { mapperThreads: threads }, (line) => {
        const event = parseMapperLine(line);
        if (!event) return;
        if (event.kind === 'no-initial-pair') noInitialPair = true;
        if (event.kind === 'init') options.onProgress?.({ stage: 'mapping', fraction: Math.max(most, 2) / total, message: `initial pair: images #${event.imageIds[0]} and #${event.imageIds[1]}` });
        if (event.kind === 'registered') {
          most = Math.max(most, event.count);
          options.onProgress?.({ stage: 'mapping', fraction: most / total, message: `${event.count} images registered` });
        }
      }),
    );
    result.noInitialPair = noInitialPair;
    state.mapping = { noInitialPair };
    delete state.bundle;
    await save();
    models = await listModels(sparseDir);
  }
  result.models = models.map(({ dir, registered, points }) => ({ dir, registered, points }));
  if (models.length === 0) return result;
  let chosen: { dir: string; model: ColmapModel } = models[0];

  // ---- bundle adjustment (optional) ----
  if (options.bundleAdjust) {
    if (state.bundle && (await isFile(path.join(bundledDir, 'images.bin')))) {
      result.resumed.push('bundle');
      options.onProgress?.({ stage: 'bundle', fraction: 1, skipped: true, message: 'already bundle-adjusted' });
    } else {
      await rm(bundledDir, { recursive: true, force: true });
      await mkdir(bundledDir, { recursive: true });
      await timed('bundle', () =>
        run('bundle', 'bundle_adjuster', ['--input_path', chosen.dir, '--output_path', bundledDir], {}, (line) => {
          const iteration = parseSolverIteration(line);
          if (iteration !== null) options.onProgress?.({ stage: 'bundle', fraction: Math.min(1, iteration / 100), message: `iteration ${iteration}` });
        }),
      );
      state.bundle = true;
      await save();
    }
    chosen = { dir: bundledDir, model: await readColmapModel(bundledDir) };
  }
  result.model = chosen.model;
  result.modelDir = chosen.dir;
  return result;
}
