/**
 * `capture --sfm argonaut`: structure from motion with no COLMAP at all. Our features, matching and
 * verification (sfm-stages.ts, on any GPU adapter, llvmpipe included) write database.db; our global
 * mapper (sfm/global/) maps from it; bundle adjustment refines (one call, `refine`); the model is
 * written as COLMAP's binary files into <work>/sparse/0 (sfm-argonaut-model.ts).
 *
 * Resumable stage by stage, in <work>/state.json as sfm.ts does (keyed by the images and every
 * option that changes the features and matches; the method is part of the key):
 *   features, matching  as sfm-stages.ts records them (the database is reused);
 *   mapping             once mapping.json is written (mapping options recorded beside it);
 *   bundle              once sparse/0 is written, by the refinement named in the state.
 *
 * Cancel: the signal is checked between stages and inside the long ones (extraction, matching,
 * verification, the colours' decoding). globalMapping itself is synchronous (seconds on this
 * machine's CPU for a few dozen images): a cancel during it takes effect when it returns.
 */
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { ArgonautError } from '../../../shared/rpc/errors.js';
import { readColmapModel } from '../dataset/colmap.js';
import type { ColmapModel } from '../dataset/colmap-model.js';
import { isFile } from '../dataset/source-view.js';
import type { GpuContext } from '../gpu/context.js';
import { globalMapping, type GlobalMappingResult, type MappingStats } from '../sfm/global/global-mapper.js';
import { MAPPING_DEFAULTS, type MappingOptions } from '../sfm/global/mapping-options.js';
import { CAPTURE_SIFT } from '../sfm/sift-options.js';
import { readMappingInput, type ArgonautMappingInput } from './sfm-argonaut-input.js';
import { mappingFailure, readMappingFile, writeMappingFile } from './sfm-argonaut-mapping.js';
import { writeArgonautModel, type RefineMapping } from './sfm-argonaut-model.js';
import { bundleRefinement, BUNDLE_REFINEMENT } from './sfm-argonaut-bundle.js';
import { matchStats, type MatchStats } from './sfm-match-stats.js';
import { hashKey, imagesMaterial, lazyGpu, openState, ourFeaturesStage, ourMatchingStage, timedStage, type FrontEndContext, type FrontEndOptions, type FrontEndResult, type SfmGroup, type SfmPaths } from './sfm-stages.js';

export interface ArgonautSfmOptions extends Omit<FrontEndOptions, 'verifier'> {
  /** Images are at most this size (part of the resume key, as on the COLMAP path). */
  maxImageSize: number;
  /** The GPU for our features and matching (opened on first use: a resumed run needs none). */
  gpu?: () => Promise<GpuContext>;
  /** Bundle adjustment between mapping and writing; default bundleRefinement on `gpu`'s device. */
  refine?: RefineMapping;
  /** Its name in the state: a different refinement runs the bundle stage again. */
  refineName?: string;
  mapping?: Partial<MappingOptions>;
}

export interface ArgonautUnregistered {
  name: string;
  /** The mapper's reason ("no verified pair with a relative pose joins it ...", "in a separate group of 3 image(s) ..."). */
  reason: string;
}

export interface ArgonautSfmResult extends FrontEndResult {
  /** The model written, or null when the mapper built none (then `failure` says why). */
  model: ColmapModel | null;
  /** Why the mapper built no model, worded for the person (what the images show, what to try). */
  failure?: string;
  modelDir: string | null;
  matchStats?: MatchStats;
  /** Images with at least one verified pair: what the view graph had to work with. */
  viewGraphImages: number;
  unregistered: ArgonautUnregistered[];
  mappingStats?: MappingStats;
  /** What the refinement did (bundle stage). */
  bundle?: Record<string, unknown>;
}

interface MappingRecord {
  options: string;
  registered: number;
  [detail: string]: unknown;
}

export async function runArgonautSfm(paths: SfmPaths, groups: readonly SfmGroup[], options: ArgonautSfmOptions): Promise<ArgonautSfmResult> {
  const { workDir, imagesDir } = paths;
  const log = options.onLog ?? (() => undefined);
  const signal = options.signal;
  const database = path.join(workDir, 'database.db');
  const mappingFile = path.join(workDir, 'mapping.json');
  const modelDir = path.join(workDir, 'sparse', '0');
  await mkdir(path.join(workDir, 'lists'), { recursive: true });

  const images = await imagesMaterial(paths, groups, options.maskDir);
  const key = hashKey({ sfm: 'argonaut', features: 'gpu', sift: CAPTURE_SIFT, cameraModel: options.cameraModel, maxFeatures: options.maxFeatures, maxImageSize: options.maxImageSize, ...images });
  const { state, save } = await openState(workDir, key, ['sparse', 'mapping.json'], log);
  const result: ArgonautSfmResult = { model: null, modelDir: null, features: state.featureCounts, timingsS: {}, resumed: [], detailS: {}, pairs: { method: options.matcher }, viewGraphImages: 0, unregistered: [] };
  const frontEnd: FrontEndContext = { database, workDir, imagesDir, groups, state, save, result, gpu: lazyGpu(options.gpu) };

  await ourFeaturesStage(frontEnd, { ...options, verifier: 'ours' });
  await ourMatchingStage(frontEnd, { ...options, verifier: 'ours' });
  result.matchStats = await matchStats(database).catch((error: unknown) => {
    log('warn', `${database}: could not read match statistics: ${(error as Error).message}`);
    return undefined;
  });
  if (result.matchStats) result.viewGraphImages = Object.keys(result.matchStats.images).length - result.matchStats.unmatched.length;
  throwIfCancelled(signal);

  // ---- mapping ----
  const input = await readMappingInput(database);
  const mappingOptions = { ...MAPPING_DEFAULTS, ...options.mapping };
  const optionsKey = hashKey(mappingOptions);
  const record = state.mapping as MappingRecord | undefined;
  let mapped = record?.options === optionsKey ? await readMappingFile(mappingFile) : undefined;
  if (mapped) {
    result.resumed.push('mapping');
    options.onProgress?.({ stage: 'mapping', fraction: 1, skipped: true, message: 'cameras and points already mapped' });
  } else {
    await rm(modelDir, { recursive: true, force: true });
    await rm(mappingFile, { force: true });
    options.onProgress?.({ stage: 'mapping', fraction: 0, message: `view graph, rotation averaging, positioning and triangulation over ${input.imageCount} images, ${input.verified.length} verified pairs` });
    // let the message out before the synchronous mapper holds the event loop
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      await timedStage(result, 'mapping', async () => {
        mapped = mapOrExplain(input, mappingOptions, imagesDir);
        await writeMappingFile(mappingFile, mapped);
      });
    } catch (error) {
      // an input the mapper cannot map: the result keeps what the front end found, for the report
      if (!(error instanceof ArgonautError) || error.code !== 'bad_input') throw error;
      result.failure = (error.details as { reason: string }).reason;
      return result;
    }
    const stats = mapped!.stats;
    const registered = mapped!.poses.filter(Boolean).length;
    options.onProgress?.({ stage: 'mapping', fraction: 1, message: `${registered} of ${input.imageCount} images, ${mapped!.points.length} points (${Object.entries(stats.stageMs).map(([stage, ms]) => `${stage} ${(ms / 1000).toFixed(1)} s`).join(', ')})` });
    state.mapping = { options: optionsKey, registered };
    delete state.bundle;
    await save();
  }
  const mappedResult: GlobalMappingResult = mapped!;
  for (const [stage, ms] of Object.entries(mappedResult.stats.stageMs)) result.detailS[`map.${stage}`] = ms / 1000;
  result.mappingStats = mappedResult.stats;
  result.unregistered = mappedResult.unregistered.map((u) => ({ name: input.names[u.image], reason: u.reason }));
  throwIfCancelled(signal);

  // ---- bundle adjustment, then the model ----
  const refineName = options.refineName ?? (options.refine ? 'custom' : BUNDLE_REFINEMENT);
  const bundleRecord = typeof state.bundle === 'object' ? state.bundle : undefined;
  if (bundleRecord?.refinement === refineName && (await isFile(path.join(modelDir, 'images.bin')))) {
    result.resumed.push('bundle');
    result.bundle = bundleRecord;
    options.onProgress?.({ stage: 'bundle', fraction: 1, skipped: true, message: 'model already refined and written' });
  } else {
    await rm(modelDir, { recursive: true, force: true });
    await timedStage(result, 'bundle', async () => {
      const refine = options.refine ?? bundleRefinement(frontEnd.gpu);
      options.onProgress?.({ stage: 'bundle', fraction: 0, message: 'bundle adjustment' });
      const refined = await refine(mappedResult, input, { signal, onProgress: (fraction, message) => options.onProgress?.({ stage: 'bundle', fraction: 0.9 * fraction, message }) });
      throwIfCancelled(signal);
      options.onProgress?.({ stage: 'bundle', fraction: 0.9, message: `writing ${refined.points.length} points with their colours` });
      await writeArgonautModel(modelDir, imagesDir, refined, input, signal);
      result.bundle = { refinement: refineName, ...refined.summary, ...(refined.unregistered?.length ? { unregistered: refined.unregistered.map((u) => ({ name: input.names[u.image], reason: u.reason })) } : {}) };
    });
    state.bundle = result.bundle;
    await save();
    options.onProgress?.({ stage: 'bundle', fraction: 1, message: 'model written' });
  }
  // images the refinement's filters left without a point are unregistered too, with its reason
  result.unregistered.push(...((result.bundle?.unregistered as ArgonautUnregistered[] | undefined) ?? []));
  result.model = await readColmapModel(modelDir);
  result.modelDir = modelDir;
  return result;
}

function throwIfCancelled(signal?: AbortSignal): void {
  if (signal?.aborted) throw new ArgonautError('cancelled', 'cancelled');
}

/** globalMapping, its failures worded for the capture (what the images show, what to try). */
function mapOrExplain(input: ArgonautMappingInput, options: MappingOptions, where: string): GlobalMappingResult {
  try {
    return globalMapping(input, options);
  } catch (error) {
    throw mappingFailure(error, input, where);
  }
}
