/**
 * COLMAP's command line as this installation spells it. Option names move between versions (CPU
 * SIFT is `SiftExtraction.use_gpu` up to 3.12 and `FeatureExtraction.use_gpu` from 3.13, and the
 * old names were dropped, not aliased), so every version-dependent option is looked up in the
 * command's own `--help` output, by a list of candidate names, instead of being keyed to version
 * numbers. Also here: the parsers that turn COLMAP's output lines into progress, matched anywhere
 * in a line because 3.10+ prefixes glog headers ("I0101 12:00:00.000 123 file.cc:45] ...").
 */
import { ArgonautError } from '../../../shared/rpc/errors.js';
import { runTool } from './tool-process.js';
import { parseColmapVersion, type ToolLocation } from './tools.js';

export type ColmapCommand = 'feature_extractor' | 'sequential_matcher' | 'exhaustive_matcher' | 'matches_importer' | 'mapper' | 'bundle_adjuster' | 'model_analyzer';

/** Logical option -> the names it has had, newest first. */
export const OPTION_CANDIDATES = {
  extractUseGpu: ['FeatureExtraction.use_gpu', 'SiftExtraction.use_gpu'],
  extractThreads: ['FeatureExtraction.num_threads', 'SiftExtraction.num_threads'],
  extractMaxImageSize: ['FeatureExtraction.max_image_size', 'SiftExtraction.max_image_size'],
  extractMaxFeatures: ['SiftExtraction.max_num_features', 'FeatureExtraction.max_num_features'],
  matchUseGpu: ['FeatureMatching.use_gpu', 'SiftMatching.use_gpu'],
  matchThreads: ['FeatureMatching.num_threads', 'SiftMatching.num_threads'],
  mapperThreads: ['Mapper.num_threads'],
  readerMaskPath: ['ImageReader.mask_path'],
  logToStderr: ['log_to_stderr'],
} as const;

export type LogicalOption = keyof typeof OPTION_CANDIDATES;

export class Colmap {
  private readonly helpCache = new Map<ColmapCommand, Promise<Set<string>>>();

  constructor(
    readonly location: ToolLocation,
    /** First line of `colmap help`, e.g. "COLMAP 3.8 -- Structure-from-Motion and Multi-View Stereo". */
    readonly versionText: string,
    readonly version: [number, number, number] | null,
    /** Whether this build has CUDA (its banner says "with CUDA"): SIFT then runs on the GPU. */
    readonly cuda: boolean,
    readonly env: NodeJS.ProcessEnv,
  ) {}

  get path(): string {
    return this.location.path;
  }

  get versionString(): string {
    return this.version ? this.version.join('.') : 'unknown';
  }

  /** Every `--name` a command's help lists. */
  optionsOf(command: ColmapCommand, signal?: AbortSignal): Promise<Set<string>> {
    let cached = this.helpCache.get(command);
    if (!cached) {
      cached = (async () => {
        const names = new Set<string>();
        await runTool({
          file: this.path,
          args: [command, '--help'],
          env: this.env,
          signal,
          onLine: (line) => {
            for (const m of line.matchAll(/--([A-Za-z_][\w.]*)/g)) names.add(m[1]);
          },
        });
        if (names.size === 0) throw new ArgonautError('unavailable', `${this.path} ${command} --help lists no options: is this COLMAP (${this.versionText})?`, { tool: 'colmap' });
        return names;
      })();
      this.helpCache.set(command, cached);
      cached.catch(() => this.helpCache.delete(command));
    }
    return cached;
  }

  /** The installed name of a logical option for a command, or undefined when it has none. */
  async optionName(command: ColmapCommand, option: LogicalOption, signal?: AbortSignal): Promise<string | undefined> {
    const names = await this.optionsOf(command, signal);
    return OPTION_CANDIDATES[option].find((n) => names.has(n));
  }

  /** `['--Name', value]` pairs for the options this version has; those it lacks are left out and reported. */
  async args(command: ColmapCommand, values: Partial<Record<LogicalOption, string | number>>, signal?: AbortSignal): Promise<{ args: string[]; missing: LogicalOption[] }> {
    const args: string[] = [];
    const missing: LogicalOption[] = [];
    for (const [option, value] of Object.entries(values) as [LogicalOption, string | number][]) {
      const name = await this.optionName(command, option, signal);
      if (name) args.push(`--${name}`, String(value));
      else missing.push(option);
    }
    return { args, missing };
  }
}

/** The environment COLMAP runs in: Qt without a display (Debian's build links the GUI). */
export function colmapEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...env, QT_QPA_PLATFORM: env.QT_QPA_PLATFORM ?? 'offscreen' };
}

/** Starts nothing but `colmap help`, to read the version banner. */
export async function openColmap(location: ToolLocation, env: NodeJS.ProcessEnv = process.env, signal?: AbortSignal): Promise<Colmap> {
  const lines: string[] = [];
  const runEnv = colmapEnv(env);
  const result = await runTool({ file: location.path, args: ['help'], env: runEnv, signal, onLine: (line) => lines.push(line) });
  const text = lines.join('\n');
  const version = parseColmapVersion(text);
  if (result.code !== 0 && !version) {
    throw new ArgonautError('unavailable', `${location.path} (from ${location.via}) does not run as COLMAP: "colmap help" exited ${result.code}: ${result.tail.slice(-3).join(' ')}`, { tool: 'colmap' });
  }
  const banner = lines.find((l) => /COLMAP/.test(l))?.trim() ?? 'COLMAP (version unknown)';
  return new Colmap(location, banner, version, /with CUDA/.test(text) && !/without CUDA/.test(text), runEnv);
}

// ---- progress parsers: one line in, a fact out (or null) ----

/** feature_extractor: "Processed file [3/50]". */
export function parseProcessedFile(line: string): { done: number; total: number } | null {
  const m = /Processed file \[(\d+)\/(\d+)\]/.exec(line);
  return m ? { done: Number(m[1]), total: Number(m[2]) } : null;
}

/** feature_extractor: "  Name:            apple/frame_000012.jpg" then "  Features:        2860". */
export function parseFeatureField(line: string): { field: 'name'; value: string } | { field: 'features'; value: number } | null {
  const name = /^\s*(?:.*\]\s*)?Name:\s+(.+?)\s*$/.exec(line);
  if (name) return { field: 'name', value: name[1] };
  const features = /Features:\s+(\d+)/.exec(line);
  return features ? { field: 'features', value: Number(features[1]) } : null;
}

/** sequential_matcher "Matching image [4/50]"; exhaustive_matcher "Matching block [2/3, 1/3]": a fraction done. */
export function parseMatchingProgress(line: string): number | null {
  const image = /Matching image \[(\d+)\/(\d+)\]/.exec(line);
  if (image) return Number(image[1]) / Number(image[2]);
  const block = /Matching block \[(\d+)\/(\d+),\s*(\d+)\/(\d+)\]/.exec(line);
  if (block) {
    const [i, n, j, m] = [Number(block[1]), Number(block[2]), Number(block[3]), Number(block[4])];
    return ((i - 1) * m + j) / (n * m);
  }
  return null;
}

export type MapperEvent =
  | { kind: 'init'; imageIds: [number, number] }
  | { kind: 'registered'; imageId: number; count: number }
  | { kind: 'no-initial-pair' }
  | { kind: 'new-model' };

/** mapper: "Initializing with image pair #10 and #26", "Registering image #40 (42)", failures. */
export function parseMapperLine(line: string): MapperEvent | null {
  const init = /Initializing with image pair #(\d+) and #(\d+)/.exec(line);
  if (init) return { kind: 'init', imageIds: [Number(init[1]), Number(init[2])] };
  const registered = /Registering image #(\d+) \((\d+)\)/.exec(line);
  if (registered) return { kind: 'registered', imageId: Number(registered[1]), count: Number(registered[2]) };
  if (/No good initial image pair found/i.test(line)) return { kind: 'no-initial-pair' };
  if (/Finding good initial image pair/.test(line)) return { kind: 'new-model' };
  return null;
}

/** Ceres' iteration table (bundle_adjuster, mapper's global BA): the iteration number. */
export function parseSolverIteration(line: string): number | null {
  const m = /^\s*(\d+)\s+[-+\d.e]+\s+[-+\d.e]+\s+[-+\d.e]+\s+[-+\d.e]+/.exec(line);
  return m ? Number(m[1]) : null;
}

/** model_analyzer's summary lines ("Registered images: 50", "Mean reprojection error: 0.35px"). */
export function parseModelAnalyzer(text: string): { registered?: number; points?: number; observations?: number; meanReprojectionErrorPx?: number; meanTrackLength?: number } {
  const num = (re: RegExp): number | undefined => {
    const m = re.exec(text);
    return m ? Number(m[1]) : undefined;
  };
  const out: ReturnType<typeof parseModelAnalyzer> = {};
  const entries = {
    registered: num(/Registered images:\s*(\d+)/),
    points: num(/Points:\s*(\d+)/),
    observations: num(/Observations:\s*(\d+)/),
    meanReprojectionErrorPx: num(/Mean reprojection error:\s*([\d.e+-]+)\s*px/),
    meanTrackLength: num(/Mean track length:\s*([\d.e+-]+)/),
  };
  for (const [k, v] of Object.entries(entries)) if (v !== undefined) (out as Record<string, number>)[k] = v;
  return out;
}
