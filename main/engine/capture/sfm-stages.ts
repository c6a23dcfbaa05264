/**
 * What both mappers' pipelines share (sfm.ts: COLMAP's mapper; sfm-argonaut.ts: ours): the
 * resume state in <work>/state.json (keyed by the images and every option that changes the
 * results), and our front end, the features and matching stages on the GPU (sfm-gpu.ts) that
 * write COLMAP's database.db.
 *
 * A stage's outcome is recorded once it finished; a stage that ran clears the records of every
 * stage after it (their inputs changed).
 */
import { createHash } from 'node:crypto';
import { readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { ArgonautError } from '../../../shared/rpc/errors.js';
import { writeFileAtomic } from '../formats/atomic-file.js';
import type { GpuContext } from '../gpu/context.js';
import type { VerificationSummary } from '../sfm/verification-summary.js';
import { captureKind, extractIntoDatabase, matchIntoDatabase, type GpuPairRule, type MatchIntoDatabaseResult } from './sfm-gpu.js';

export type SfmStage = 'features' | 'matching' | 'mapping' | 'bundle';
export type Matcher = 'sequential' | 'exhaustive';

export interface SfmGroup {
  name: string;
  kind: 'video' | 'photos';
  /** Image names relative to the images folder ("<group>/<file>"), in capture order. */
  images: string[];
}

export interface SfmProgress {
  stage: SfmStage;
  /** 0..1 within the stage. */
  fraction: number;
  message?: string;
  /** The stage's outputs were already there: nothing ran. */
  skipped?: boolean;
}

export interface SfmPaths {
  imagesDir: string;
  /** The mapper's workspace: database.db, sparse/, logs/, state.json. */
  workDir: string;
}

export interface SfmState {
  key: string;
  features: Record<string, boolean>;
  featureCounts: Record<string, number>;
  /** The matching that ran: the COLMAP matcher's name, or our rule and verifier ("gpu by-kind ours"). */
  matching?: string;
  /** Our matching's pair selection and verification, for a resumed run's report. */
  ourMatching?: { pairs: MatchIntoDatabaseResult['selection']; verification?: VerificationSummary };
  /** The mapping that finished: COLMAP's mapper records whether it found no initial pair; ours what sfm-argonaut.ts keeps. */
  mapping?: { noInitialPair?: boolean; [detail: string]: unknown };
  /** The bundle adjustment that finished (COLMAP's: true; ours: its summary). */
  bundle?: boolean | Record<string, unknown>;
}

/** The images' names and sizes, and (with masks) each mask's size: the part of every key that says "the same images". */
export async function imagesMaterial(paths: SfmPaths, groups: readonly SfmGroup[], maskDir?: string): Promise<Record<string, unknown>> {
  const files = [];
  for (const group of groups) {
    for (const name of group.images) {
      const info = await stat(path.join(paths.imagesDir, name));
      files.push([name, info.size]);
    }
  }
  // masks change the features: a capture with other masks (or none now) starts over
  const masks = [];
  if (maskDir) {
    for (const group of groups) for (const name of group.images) masks.push([name, (await stat(path.join(maskDir, `${name}.png`)).catch(() => undefined))?.size ?? -1]);
  }
  return { groups: groups.map((g) => [g.name, g.kind]), files, ...(maskDir ? { masks } : {}) };
}

export function hashKey(material: unknown): string {
  return createHash('sha256').update(JSON.stringify(material)).digest('hex');
}

async function readState(file: string): Promise<SfmState | null> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as SfmState;
  } catch {
    return null;
  }
}

/**
 * The state of `workDir` for `key`: the recorded one when the key matches and `database.db` is
 * there, else a fresh one after removing `outputs` (files or folders under workDir) and the database.
 */
export async function openState(workDir: string, key: string, outputs: readonly string[], log: (level: 'info' | 'warn', message: string) => void): Promise<{ state: SfmState; save: () => Promise<void> }> {
  const stateFile = path.join(workDir, 'state.json');
  const database = path.join(workDir, 'database.db');
  let state = await readState(stateFile);
  const hasDatabase = await stat(database).then((s) => s.isFile()).catch(() => false);
  if (!state || state.key !== key || !hasDatabase) {
    if (state) log('info', 'the images or SfM options changed since the last run: starting from an empty database');
    await rm(database, { force: true });
    for (const output of outputs) await rm(path.join(workDir, output), { recursive: true, force: true });
    state = { key, features: {}, featureCounts: {} };
  }
  const current = state;
  const save = (): Promise<void> => writeFileAtomic(stateFile, `${JSON.stringify(current, null, 1)}\n`);
  await save();
  return { state: current, save };
}

/** What our front end's stages add to a run's result. */
export interface FrontEndResult {
  features: Record<string, number>;
  timingsS: Partial<Record<SfmStage, number>>;
  resumed: SfmStage[];
  detailS: Record<string, number>;
  pairs: { method: string; pairs?: number; retrieved?: number };
  verification?: VerificationSummary;
}

export interface FrontEndOptions {
  cameraModel: string;
  maxFeatures: number;
  maskDir?: string;
  /** Pairs by the capture's kind ('by-kind': retrieval, loop candidates) or `matcher`'s plain rule. */
  gpuPairs?: 'by-kind' | 'matcher';
  matcher: Matcher;
  /** Who verifies our matches: 'ours' (two_view_geometries) or 'colmap' (then `verifyWithColmap` runs matches_importer). */
  verifier?: 'ours' | 'colmap';
  signal?: AbortSignal;
  onProgress?: (p: SfmProgress) => void;
  onLog?: (level: 'info' | 'warn', message: string) => void;
}

export interface FrontEndContext {
  database: string;
  workDir: string;
  imagesDir: string;
  groups: readonly SfmGroup[];
  state: SfmState;
  save: () => Promise<void>;
  result: FrontEndResult;
  /** The GPU, opened on first use (a resumed run never needs one). */
  gpu: () => Promise<GpuContext>;
  /** COLMAP's matches_importer over `pairList`, with progress 0..1 (the COLMAP path's comparison verifier only). */
  verifyWithColmap?: (pairList: string, onFraction: (fraction: number) => void) => Promise<void>;
}

/** A GPU opened once, on first use; `open` undefined names the missing context. */
export function lazyGpu(open: (() => Promise<GpuContext>) | undefined): () => Promise<GpuContext> {
  let context: Promise<GpuContext> | undefined;
  return () => {
    if (!open) throw new ArgonautError('invalid_argument', 'structure from motion: our features need a GPU context');
    return (context ??= open());
  };
}

export async function timedStage(result: { timingsS: Partial<Record<SfmStage, number>> }, stage: SfmStage, body: () => Promise<void>): Promise<void> {
  const started = performance.now();
  await body();
  result.timingsS[stage] = (result.timingsS[stage] ?? 0) + (performance.now() - started) / 1000;
}

function forgetAfter(state: SfmState, stage: 'features' | 'matching'): void {
  if (stage === 'features') delete state.matching;
  delete state.mapping;
  delete state.bundle;
}

/** Our SIFT on every image into a fresh database (skipped when the state records it). */
export async function ourFeaturesStage(ctx: FrontEndContext, options: FrontEndOptions): Promise<void> {
  const { state, result, groups } = ctx;
  if (groups.every((g) => state.features[g.name])) {
    result.resumed.push('features');
    options.onProgress?.({ stage: 'features', fraction: 1, skipped: true, message: 'features already extracted' });
    return;
  }
  await timedStage(result, 'features', async () => {
    const extracted = await extractIntoDatabase(ctx.database, ctx.imagesDir, groups, {
      cameraModel: options.cameraModel,
      maxFeatures: options.maxFeatures,
      signal: options.signal,
      onProgress: (fraction, message) => options.onProgress?.({ stage: 'features', fraction, message }),
      gpu: await ctx.gpu(),
      maskDir: options.maskDir,
    });
    state.featureCounts = extracted.features;
    result.features = extracted.features;
    result.detailS.extract = extracted.seconds.extract;
    result.detailS.writeDatabase = extracted.seconds.write;
  });
  for (const group of groups) state.features[group.name] = true;
  forgetAfter(state, 'features');
  await ctx.save();
}

/** Our pair selection, matching and (verifier ours) verification into the database. */
export async function ourMatchingStage(ctx: FrontEndContext, options: FrontEndOptions): Promise<void> {
  const { state, result } = ctx;
  const log = options.onLog ?? (() => undefined);
  const rule: GpuPairRule = options.gpuPairs === 'by-kind' ? 'by-kind' : options.matcher;
  const verifier = options.verifier ?? 'ours';
  const matchingKey = `gpu ${rule} ${verifier}`;
  if (state.matching === matchingKey) {
    result.resumed.push('matching');
    if (state.ourMatching) {
      result.pairs = state.ourMatching.pairs;
      result.verification = state.ourMatching.verification;
    }
    options.onProgress?.({ stage: 'matching', fraction: 1, skipped: true, message: 'images already matched' });
    return;
  }
  delete state.ourMatching;
  const pairList = path.join(ctx.workDir, 'lists', 'pairs.txt');
  // with COLMAP verifying, our matching is 90% of the stage's progress and matches_importer the rest
  const share = verifier === 'colmap' ? 0.9 : 1;
  await timedStage(result, 'matching', async () => {
    const matched = await matchIntoDatabase(ctx.database, { rule, kind: captureKind(ctx.groups), verifier, pairListFile: pairList }, {
      gpu: await ctx.gpu(),
      cameraModel: options.cameraModel,
      maxFeatures: options.maxFeatures,
      signal: options.signal,
      onProgress: (fraction, message) => options.onProgress?.({ stage: 'matching', fraction: share * fraction, message }),
    });
    result.detailS.pairs = matched.seconds.pairs;
    result.detailS.match = matched.seconds.match;
    result.pairs = matched.selection;
    const how = `${matched.selection.pairs} pairs (${matched.selection.method}${matched.selection.retrieved ? `, ${matched.selection.retrieved} by retrieval` : ''})`;
    if (matched.verification) {
      const v = matched.verification;
      result.detailS.verify = matched.seconds.verify!;
      result.verification = v;
      const configurations = Object.entries(v.configurations).map(([name, count]) => `${count} ${name}`).join(', ');
      log('info', `our matching: ${matched.matches} matches over ${how}; our verification: ${v.verifiedPairs} pairs with >= ${v.minInliers} inliers (median ${v.inliersPerPair.median}; ${configurations}) in ${matched.seconds.verify!.toFixed(1)} s`);
      return;
    }
    if (!ctx.verifyWithColmap) throw new ArgonautError('invalid_argument', 'structure from motion: verifier colmap needs COLMAP');
    log('info', `our matching: ${matched.matches} matches over ${how}; COLMAP verifies them`);
    const verifyStarted = performance.now();
    await ctx.verifyWithColmap(pairList, (fraction) => options.onProgress?.({ stage: 'matching', fraction: 0.9 + 0.1 * fraction, message: 'geometric verification (COLMAP)' }));
    result.detailS.verify = (performance.now() - verifyStarted) / 1000;
  });
  state.ourMatching = { pairs: result.pairs as MatchIntoDatabaseResult['selection'], ...(result.verification ? { verification: result.verification } : {}) };
  state.matching = matchingKey;
  forgetAfter(state, 'matching');
  await ctx.save();
}
