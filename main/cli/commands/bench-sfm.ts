import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ArgonautError } from '../../../shared/rpc/errors.js';
import { CAPTURE_VERIFY_OPTIONS } from '../../engine/capture/sfm-gpu.js';
import { findTool } from '../../engine/capture/tools.js';
import { extractFrames, probeVideo } from '../../engine/capture/video.js';
import { VIDEO_EXTENSIONS } from '../../engine/formats/video-signature.js';
import { openGpu } from '../../engine/gpu/context.js';
import { SiftExtractor, type Features } from '../../engine/sfm/features.js';
import { extractAll } from '../../engine/sfm/extract-all.js';
import { loadGreyImage } from '../../engine/sfm/grey-image.js';
import { exhaustivePairs, LOOP_CANDIDATES, selectPairs, sequentialPairs, type PairSelection } from '../../engine/sfm/match-pairs.js';
import { matchImagePairs } from '../../engine/sfm/match.js';
import { RETRIEVAL_DEFAULTS } from '../../engine/sfm/retrieval.js';
import { gpuWordAssigner } from '../../engine/sfm/retrieval-gpu.js';
import { CAPTURE_SIFT, SIFT_DEFAULTS } from '../../engine/sfm/sift-options.js';
import { isVerified, summariseVerification } from '../../engine/sfm/verification-summary.js';
import { defaultVerifyThreads, verifyPairsInParallel } from '../../engine/sfm/verify/verify-pool.js';
import { UsageError } from '../args.js';
import { benchStamp, writeResult } from '../bench-result.js';
import type { CommandContext } from '../command.js';
import { median } from '../../../shared/math/median.js';
import type { NamedPose } from '../../engine/sfm/pose-accuracy.js';
import { referencePoses } from './bench-sfm-accuracy.js';
import { benchCameras, bundleStage, mapStage, mappedAccuracy } from './bench-sfm-map.js';
import type { CameraPose } from '../../engine/sfm/global/triangulate.js';

/**
 * `bench sfm <images-dir|video>`: our SfM, stage by stage (docs/sfm.md): SIFT extraction, pair
 * selection (by capture kind, match-pairs.ts), GPU matching, geometric verification (verify/, on
 * the CPU), global mapping and bundle adjustment (bench-sfm-map.ts). Wall and CPU time per stage (CPU: this process, every thread, a CPU adapter's
 * included), features per image, pairs chosen, matched and verified, the mapped model's numbers,
 * and with --reference the recovered poses' accuracy.
 * Verification runs as capture runs it (CAPTURE_VERIFY_OPTIONS): E where a camera's focal is
 * known (EXIF, or --focal), else F and H, COLMAP's rule.
 */

const IMAGE_EXTENSIONS = ['.jpg', '.jpeg', '.png'];
/** A pair counts as matched with at least this many matches (COLMAP's min_num_matches). */
export const MIN_PAIR_MATCHES = 15;
/** Video: frames taken evenly over the clip, and their longest side (the apple clip's 25 at 640 px in issue 15). */
export const BENCH_SFM_FRAMES = 25;
export const BENCH_SFM_VIDEO_SIZE = 640;
export const PAIR_MODES = ['auto', 'exhaustive', 'sequential', 'retrieval'] as const;
type PairMode = (typeof PAIR_MODES)[number];

interface Stage {
  wall_ms: number;
  cpu_ms: number;
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; stage: Stage }> {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  const value = await work();
  const used = process.cpuUsage(cpu);
  return { value, stage: { wall_ms: performance.now() - wall, cpu_ms: (used.user + used.system) / 1000 } };
}

function positiveInt(options: CommandContext['options'], flag: string, fallback: number): number {
  const value = (options[flag] as number | undefined) ?? fallback;
  if (!Number.isInteger(value) || value < 1) throw new UsageError(`bench sfm: --${flag} must be a positive integer (got ${value})`);
  return value;
}

/** The capture's images: a folder's photos (by name), or `frames` frames taken evenly from a clip into `workDir`. */
async function captureImages(input: string, frames: number, maxSize: number, workDir: string, signal: AbortSignal): Promise<{ kind: 'photos' | 'video'; files: string[] }> {
  const info = await stat(input).catch(() => {
    throw new ArgonautError('bad_input', `${input}: no such file or folder`);
  });
  if (info.isDirectory()) {
    const files = (await readdir(input)).filter((f) => IMAGE_EXTENSIONS.includes(path.extname(f).toLowerCase())).sort();
    if (files.length < 2) throw new ArgonautError('bad_input', `${input}: ${files.length} images (.jpg, .jpeg, .png) in the folder; matching needs at least 2`);
    return { kind: 'photos', files: files.map((f) => path.join(input, f)) };
  }
  if (!VIDEO_EXTENSIONS.includes(path.extname(input).toLowerCase())) throw new ArgonautError('bad_input', `${input}: neither a folder of images nor a video (${VIDEO_EXTENSIONS.join(', ')})`);
  const tools = { ffmpeg: findTool('ffmpeg').path, ffprobe: findTool('ffprobe').path };
  const video = await probeVideo(tools, input, signal);
  const total = video.frameCount ?? Math.max(1, Math.floor(video.durationS * video.fps));
  const count = Math.min(frames, total);
  if (count < 2) throw new ArgonautError('bad_input', `${input}: ${total} frame(s); matching needs at least 2`);
  const indexes = Array.from({ length: count }, (_, i) => Math.floor(((i + 0.5) * total) / count));
  const files = indexes.map((n) => path.join(workDir, `frame_${String(n).padStart(6, '0')}.jpg`));
  await extractFrames(tools, input, indexes, files, workDir, { maxSize, signal });
  return { kind: 'video', files };
}

async function choose(mode: PairMode, kind: 'photos' | 'video', features: readonly Features[], neighbours: number, words: number, assign: Parameters<typeof selectPairs>[3]): Promise<PairSelection> {
  const n = features.length;
  if (mode === 'exhaustive') return { pairs: exhaustivePairs(n), method: 'exhaustive', retrieved: 0 };
  if (mode === 'sequential') return { pairs: sequentialPairs(n), method: 'sequential', retrieved: 0 };
  // --neighbours is the photos' top-k and the video frames' loop candidates
  const options = { retrieval: { neighbours, words }, loopCandidates: neighbours };
  // retrieval forced on a small photo set: the exhaustive limit lowered below it
  return selectPairs(kind, features, mode === 'retrieval' ? { ...options, exhaustiveMaxImages: 0 } : options, assign);
}

export async function benchSfm(context: CommandContext): Promise<void> {
  const { options, out, signal } = context;
  const [input, ...extra] = context.positionals;
  if (!input || extra.length) throw new UsageError('bench sfm needs exactly one folder of images or one video');
  const maxFeatures = positiveInt(options, 'max-features', SIFT_DEFAULTS.maxFeatures);
  // capture's SIFT unless told otherwise (what `capture --features gpu` extracts)
  const firstOctave = (options['first-octave'] as number | undefined) ?? CAPTURE_SIFT.firstOctave ?? SIFT_DEFAULTS.firstOctave;
  if (firstOctave !== 0 && firstOctave !== -1) throw new UsageError(`bench sfm: --first-octave must be 0 or -1 (got ${firstOctave})`);
  const frames = positiveInt(options, 'frames', BENCH_SFM_FRAMES);
  const maxSize = positiveInt(options, 'max-size', BENCH_SFM_VIDEO_SIZE);
  const words = positiveInt(options, 'words', RETRIEVAL_DEFAULTS.words);
  const mode = (options.pairs as PairMode | undefined) ?? 'auto';
  const focal = options.focal as number | undefined;
  if (focal !== undefined && !(Number.isFinite(focal) && focal > 0)) throw new UsageError(`bench sfm: --focal must be a positive number of pixels (got ${focal})`);
  const source = path.resolve(context.cwd, input);
  // the reference is read before any work, so a bad one is refused at once
  const referenceFile = typeof options.reference === 'string' ? path.resolve(context.cwd, options.reference) : undefined;
  const reference: NamedPose[] | undefined = referenceFile ? await referencePoses(referenceFile) : undefined;
  const workDir = await mkdtemp(path.join(tmpdir(), 'argonaut-bench-sfm-'));
  let gpu: Awaited<ReturnType<typeof openGpu>> | undefined;
  try {
    // the input first: a bad path is refused before any GPU is opened
    const { kind, files } = await captureImages(source, frames, maxSize, workDir, signal);
    const ctx = await openGpu(context.engineOptions);
    gpu = ctx;
    const neighbours = positiveInt(options, 'neighbours', kind === 'video' ? LOOP_CANDIDATES : RETRIEVAL_DEFAULTS.neighbours);
    out.progress({ stage: 'input', message: `${files.length} ${kind === 'video' ? 'frames' : 'photos'} from ${input}` }, true);
    const extractor = await SiftExtractor.create(ctx, { ...CAPTURE_SIFT, maxFeatures, firstOctave });
    const sizes: string[] = [];
    const dimensions: { width: number; height: number }[] = [];
    let loadMs = 0;
    // the next image decoded while this one is on the GPU, as capture extracts (extract-all.ts);
    // decode_wall_ms sums the decodes, which overlap the extraction
    const extracted = await timed(() =>
      extractAll(extractor, files, {
        signal,
        load: async (file) => {
          const t = performance.now();
          const image = await loadGreyImage(file);
          loadMs += performance.now() - t;
          return image;
        },
        onEach: (f, index) => {
          sizes.push(`${f.width}x${f.height}`);
          dimensions.push({ width: f.width, height: f.height });
          out.progress({ stage: 'extract', step: index + 1, total: files.length });
        },
      }),
    );
    extractor.destroy();
    const features = extracted.value;
    const counts = features.map((f) => f.descriptors.length / 128);
    const assign = await gpuWordAssigner(ctx);
    const chosen = await timed(() => choose(mode, kind, features, neighbours, words, assign));
    const { pairs } = chosen.value;
    out.progress({ stage: 'pairs', message: `${pairs.length} pairs (${chosen.value.method})` }, true);
    const matched = await timed(() => matchImagePairs(ctx, features, pairs, {}, (done, total) => out.progress({ stage: 'match', step: done, total })));
    const perPair = matched.value.map((m) => m.length / 2);
    const cameras = await benchCameras(kind, files, dimensions, focal);
    // on worker threads, as capture verifies (all cores but one; wall time is the stage's cost, CPU time sums the threads)
    const verified = await timed(() => verifyPairsInParallel(pairs, matched.value, features.map((f) => f.keypoints), cameras.verification, CAPTURE_VERIFY_OPTIONS, { onPair: (done, total) => out.progress({ stage: 'verify', step: done, total }) }));
    const verification = summariseVerification(verified.value);
    const inliersByPair = verified.value.map((v) => v.geometry.inliers.length);
    out.progress({ stage: 'map', message: `global mapping of ${files.length} images` }, true);
    const mapped = mapStage(verified.value, features.map((f) => f.keypoints), cameras);
    out.progress({ stage: 'bundle', message: 'bundle adjustment' }, true);
    const bundled = await bundleStage(ctx, mapped.result, features.map((f) => f.keypoints), cameras);
    const accuracyOf = (poses: readonly (CameraPose | undefined)[] | undefined) => (poses && reference && referenceFile ? mappedAccuracy(poses, files, reference, referenceFile) : undefined);
    const mappedScore = accuracyOf(mapped.result?.poses);
    const accuracy = accuracyOf(bundled.poses) ?? mappedScore;
    const result = {
      bench: 'sfm',
      input: path.basename(source),
      kind,
      images: files.length,
      image_sizes: [...new Set(sizes)],
      max_features: maxFeatures,
      first_octave: firstOctave,
      stages: {
        extract: { ...extracted.stage, per_image_wall_ms: extracted.stage.wall_ms / files.length, decode_wall_ms: loadMs },
        pairs: { ...chosen.stage, method: chosen.value.method, ...(chosen.value.retrievalMs !== undefined ? { retrieval_words: words, neighbours } : {}) },
        match: { ...matched.stage, per_pair_wall_ms: pairs.length ? matched.stage.wall_ms / pairs.length : 0 },
        verify: { ...verified.stage, threads: Math.min(defaultVerifyThreads(), pairs.length), per_pair_wall_ms: pairs.length ? verified.stage.wall_ms / pairs.length : 0, per_pair_cpu_ms: pairs.length ? verified.stage.cpu_ms / pairs.length : 0 },
        map: mapped.json,
        bundle: bundled.json,
      },
      stages_run: ['extract', 'pairs', 'match', 'verify', ...(mapped.result ? ['map'] : []), ...(bundled.poses ? ['bundle'] : [])],
      /** The poses' accuracy after bundle adjustment (after mapping where it did not run), and after mapping. */
      ...(accuracy ? { accuracy: accuracy.json } : {}),
      ...(mappedScore ? { accuracy_before_bundle: mappedScore.json } : {}),
      features_per_image: { min: Math.min(...counts), median: median(counts), max: Math.max(...counts), each: counts },
      pairs_chosen: pairs.length,
      pairs_retrieved: chosen.value.retrieved,
      pairs_matched: perPair.filter((m) => m >= MIN_PAIR_MATCHES).length,
      min_pair_matches: MIN_PAIR_MATCHES,
      matches_per_pair: { mean: perPair.reduce((a, b) => a + b, 0) / Math.max(1, perPair.length), median: median(perPair) },
      /** [i, j, matches] per chosen pair (image indices in `files` order): what a retrieval run's recall is scored against. */
      matches_by_pair: pairs.map(([i, j], k) => [i, j, perPair[k]]),
      /** Pairs with >= min_inliers inliers, not DEGENERATE: what COLMAP's mapper would load. */
      pairs_verified: verification.verifiedPairs,
      min_inliers: verification.minInliers,
      inliers_per_pair: verification.inliersPerPair,
      configurations: verification.configurations,
      /** [i, j, inliers, configuration code] per chosen pair. */
      inliers_by_pair: pairs.map(([i, j], k) => [i, j, inliersByPair[k], verified.value[k].geometry.configuration]),
      image_files: files.map((f) => path.basename(f)),
      images_without_matched_pair: files.map((f, i) => ({ f, i })).filter(({ i }) => !pairs.some(([a, b], k) => (a === i || b === i) && perPair[k] >= MIN_PAIR_MATCHES)).map(({ f }) => path.basename(f)),
      images_without_verified_pair: files.map((f, i) => ({ f, i })).filter(({ i }) => !verified.value.some((v) => (v.pair[0] === i || v.pair[1] === i) && isVerified(v))).map(({ f }) => path.basename(f)),
      ...benchStamp(ctx),
    };
    await writeResult(options.out as string | undefined, result);
    const s = result.stages;
    const human = [
      `sfm on ${result.input} (${kind}, ${files.length} images ${result.image_sizes.join(', ')}, --max-features ${maxFeatures}, --first-octave ${firstOctave})`,
      `extract  ${s.extract.wall_ms.toFixed(0)} ms wall, ${s.extract.cpu_ms.toFixed(0)} ms CPU (${s.extract.per_image_wall_ms.toFixed(0)} ms an image); features per image ${result.features_per_image.min}-${result.features_per_image.max}, median ${result.features_per_image.median}`,
      `pairs    ${s.pairs.wall_ms.toFixed(0)} ms wall, ${s.pairs.cpu_ms.toFixed(0)} ms CPU: ${pairs.length} chosen (${s.pairs.method}${result.pairs_retrieved ? `, ${result.pairs_retrieved} by retrieval` : ''})`,
      `match    ${s.match.wall_ms.toFixed(0)} ms wall, ${s.match.cpu_ms.toFixed(0)} ms CPU (${s.match.per_pair_wall_ms.toFixed(0)} ms a pair); ${result.pairs_matched} pairs with >= ${MIN_PAIR_MATCHES} matches, ${result.matches_per_pair.mean.toFixed(1)} matches a pair (median ${result.matches_per_pair.median})`,
      `verify   ${s.verify.wall_ms.toFixed(0)} ms wall, ${s.verify.cpu_ms.toFixed(0)} ms CPU (${s.verify.per_pair_cpu_ms.toFixed(1)} ms CPU a pair); ${result.pairs_verified} pairs with >= ${result.min_inliers} inliers, ${result.inliers_per_pair.mean.toFixed(1)} inliers a pair (median ${result.inliers_per_pair.median}); ${Object.entries(result.configurations).map(([name, count]) => `${count} ${name}`).join(', ')}`,
      ...mapped.human,
      ...bundled.human,
      ...(mappedScore && accuracy !== mappedScore ? mappedScore.human.map((line) => `${line} (before bundle adjustment)`) : []),
      ...(accuracy ? accuracy.human : []),
      ...(result.images_without_matched_pair.length ? [`no matched pair: ${result.images_without_matched_pair.join(', ')}`] : []),
      ...(result.images_without_verified_pair.length ? [`no verified pair: ${result.images_without_verified_pair.join(', ')}`] : []),
    ].join('\n');
    out.result(result, human);
  } finally {
    gpu?.destroy();
    await rm(workDir, { recursive: true, force: true });
  }
}
