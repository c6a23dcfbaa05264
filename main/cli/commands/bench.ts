import path from 'node:path';
import { buildRasterLoad, readRasterLoadSource, RASTER_LOAD_COUNT, RASTER_LOADS, type RasterLoadName } from '../../../bench/raster-load.js';
import { formatProfileTable } from '../../../shared/contract/profile.js';
import { paramsForCommand } from '../../../shared/params/index.js';
import { ArgonautError } from '../../../shared/rpc/errors.js';
import { openGpu } from '../../engine/gpu/context.js';
import { benchRaster, type RasterBenchResult } from '../../engine/render/bench-raster.js';
import { loadTuning, type RasterTuning, saveTuning, tuningFile } from '../../engine/render/tuning.js';
import { UsageError } from '../args.js';
import { benchStamp, writeResult } from '../bench-result.js';
import { JSON_OPTION, type CommandContext, type CommandSpec } from '../command.js';
import { benchAppearanceCommand } from './bench-appearance.js';
import { BENCH_BA_SIZE, benchBa } from './bench-ba.js';
import { benchLossCommand } from './bench-loss.js';
import { CAPTURE_BENCH_SIZE } from '../bench-result.js';
import { benchMesh } from './bench-mesh.js';
import { BENCH_PROTOCOLS } from './bench-protocol.js';
import { benchSelectCommand, SELECT_BENCH_SPLATS } from './bench-select.js';
import { BENCH_SFM_FRAMES, BENCH_SFM_VIDEO_SIZE, benchSfm, PAIR_MODES } from './bench-sfm.js';
import { benchSfmAccuracy } from './bench-sfm-accuracy.js';
import { benchTrain } from './bench-train.js';
import { PRESET_OPTION } from '../training.js';

async function raster(context: CommandContext) {
  const { options, out, engineOptions } = context;
  const count = (options.splats as number | undefined) ?? RASTER_LOAD_COUNT;
  if (count < 1) throw new UsageError('--splats must be at least 1');
  // Relative to the working directory (the project root by convention), not to this bundle.
  const dataDir = options.data ? path.resolve(context.cwd, options.data as string) : path.resolve(context.cwd, '../shared/data');
  let source;
  try {
    source = await readRasterLoadSource(dataDir);
  } catch (error) {
    if (error instanceof ArgonautError) throw error;
    throw new ArgonautError('bad_input', `${dataDir}: cannot read the raster load's source points (${(error as Error).message}); pass --data <folder holding gsplat_test_garden/>`);
  }
  const loadName = (options.load as RasterLoadName | undefined) ?? 'fixed';
  out.progress({ stage: 'generate', message: `${count.toLocaleString()} splats (load ${loadName})` }, true);
  const load = buildRasterLoad(source, { count, load: loadName });
  const gpu = await openGpu({ ...engineOptions, profile: true });
  try {
    const configs: RasterTuning[] = options.sweep
      ? gpu.hasSubgroups
        ? [
            ...[1, 2].flatMap((backwardPixels) => [8, 16, 24].map((backwardBatch) => ({ backwardBatch, backwardReduce: 'partials' as const, backwardPixels: backwardPixels as 1 | 2 }))),
            { backwardBatch: 64, backwardReduce: 'cas' as const },
          ]
        : [32, 64, 128].map((backwardBatch) => ({ backwardBatch }))
      : [{ ...(await loadTuning(gpu.info)), ...(options['backward-reduce'] ? { backwardReduce: options['backward-reduce'] as 'partials' | 'cas' } : {}), ...(options['backward-pixels'] ? { backwardPixels: options['backward-pixels'] as 1 | 2 } : {}) }];
    const results: RasterBenchResult[] = [];
    for (const config of configs) {
      const r = await benchRaster(gpu, { ...load, background: load.background as [number, number, number] }, {
        ...config,
        iterations: 20,
        onProgress: (stage, done, total) => out.progress({ stage, step: done, total }),
      });
      results.push(r);
      out.progress({ stage: 'config', message: `wg ${r.config.workgroupSize}, backward ${r.config.backwardReduce} batch ${r.config.backwardBatch} x${r.config.backwardPixels} px: forward ${r.forward_ms.toFixed(3)} ms, backward ${r.backward_ms.toFixed(3)} ms` }, true);
    }
    const best = results.reduce((a, b) => (b.forward_ms + b.backward_ms < a.forward_ms + a.backward_ms ? b : a));
    if (options.sweep) {
      await saveTuning(gpu.info, best.config);
      out.progress({ stage: 'tuning', message: `best: ${JSON.stringify(best.config)} (cached in ${tuningFile()})` }, true);
    }
    const result = {
      bench: 'raster',
      load: loadName,
      ...best,
      ...(options.sweep ? { sweep: results.map((r) => ({ ...r.config, forward_ms: r.forward_ms, backward_ms: r.backward_ms })) } : {}),
      ...benchStamp(gpu),
    };
    await writeResult(options.out as string | undefined, result);
    const human = [
      `raster load ${loadName}: ${best.splats.toLocaleString()} splats, ${best.width}x${best.height}, ${best.visible.toLocaleString()} visible, ${best.intersections.toLocaleString()} intersections`,
      `forward ${best.forward_ms.toFixed(3)} ms, backward ${best.backward_ms.toFixed(3)} ms (median of ${best.forward_samples_ms.length}, ${best.timing}; ${best.variant} kernels, wg ${best.config.workgroupSize}, backward batch ${best.config.backwardBatch})`,
      `GPU memory ${(best.gpu_memory_bytes / 2 ** 20).toFixed(0)} MiB; ${best.bytes_per_splat.toFixed(0)} B per splat, ${best.bytes_per_intersection.toFixed(0)} B per intersection`,
      '',
      formatProfileTable({ source: best.timing, rows: best.kernels, gpuMs: best.kernels_gpu_ms, wallMs: best.kernels_gpu_ms }),
      '',
      'workgroup memory per pipeline:',
      ...Object.entries(best.workgroup_memory_bytes).map(([k, v]) => `  ${k.padEnd(40)} ${v} B`),
    ].join('\n');
    out.result(result, human);
  } finally {
    gpu.destroy();
  }
}

export const benchCommand: CommandSpec = {
  name: 'bench',
  summary: 'benchmarks: `bench raster` (the fixed raster load), `bench loss` (L1 + SSIM on a fixed image pair), `bench appearance` (one step of the bilateral-grid colour model on a fixed load), `bench train <dataset>` (the training protocol), `bench mesh <dataset>` (train, extract, score against gt_mesh.ply), `bench sfm <images-dir|video>` (our SIFT, pair selection, matching, verification, global mapping and bundle adjustment, per stage), `bench sfm-accuracy <model> --reference <transforms.json|model>` (recovered poses against reference ones after a similarity), `bench ba` (bundle adjustment of a synthetic problem, GPU against CPU) and `bench select` (one selection per shape on 10M splats: GPU time and round trip)',
  usage: 'bench raster [--load fixed|bigsplat] [--splats N] [--data DIR] [--sweep] [--out FILE] [--json]\n       argonaut --no-gui bench loss [--width N] [--height N] [--ssim-padding same|valid] [--out FILE] [--json]\n       argonaut --no-gui bench appearance [--width N] [--height N] [--out FILE] [--json]\n       argonaut --no-gui bench train <dataset> [--steps N] [--preset fast|balanced|quality] [--protocol mic|statue|capture|custom] [--out FILE] [--json]\n       argonaut --no-gui bench mesh <dataset> [--steps N] [--resolution N] [--target-triangles N] [--metrics FILE] [--gt FILE] [--mesh-out FILE] [--out FILE] [--json]\n       argonaut --no-gui bench sfm <images-dir|video> [--max-features N] [--first-octave 0|-1] [--pairs auto|exhaustive|sequential|retrieval] [--neighbours N] [--words N] [--frames N] [--max-size N] [--focal PX] [--reference <transforms.json|model-dir>] [--out FILE] [--json]\n       argonaut --no-gui bench sfm-accuracy <model-dir> --reference <transforms.json|model-dir> [--out FILE] [--json]\n       argonaut --no-gui bench ba [--images N] [--points N] [--obs-per-point N] [--lm-iterations N] [--skip-cpu] [--profile-kernels] [--out FILE] [--json]\n       argonaut --no-gui bench select [--splats N] [--width N] [--height N] [--clean] [--out FILE] [--json]',
  options: [
    JSON_OPTION,
    { flag: 'splats', type: 'int', help: `raster: splats of the load (default ${RASTER_LOAD_COUNT.toLocaleString()}); select: splats of the scene (default ${SELECT_BENCH_SPLATS.toLocaleString()})` },
    { flag: 'load', type: 'string', choices: Object.keys(RASTER_LOADS), help: "raster: 'fixed' (RASTER_LOAD.md, 1237x822) or 'bigsplat' (its splats' scales x4 at 1920x1440: what real captures stress; docs/benchmarks.md)" },
    { flag: 'data', type: 'string', help: 'raster: folder holding gsplat_test_garden/ (default ../shared/data)', valueName: 'dir' },
    { flag: 'sweep', type: 'bool', help: 'raster: also time other workgroup and batch sizes and report the best' },
    { flag: 'backward-reduce', type: 'string', choices: ['partials', 'cas'], help: 'raster: how the subgroup backward sums over a tile (default partials)' },
    { flag: 'backward-pixels', type: 'int', choices: [1, 2], help: 'raster: pixels per thread of the subgroup partials backward' },
    { flag: 'width', type: 'int', help: `loss, appearance: image width (default ${CAPTURE_BENCH_SIZE.width}); select: view width (default 1920)` },
    { flag: 'height', type: 'int', help: `loss, appearance: image height (default ${CAPTURE_BENCH_SIZE.height}); select: view height (default 1080)` },
    { flag: 'clean', type: 'bool', help: 'select: also time the floater cleanup (CPU) on the same scene' },
    { flag: 'out', type: 'string', help: 'also write the JSON result to this file', valueName: 'file' },
    { flag: 'steps', type: 'int', help: 'train: training steps (default: --iterations)' },
    { ...PRESET_OPTION, help: "train, mesh: the parameter preset the run starts from (fast, balanced, quality; explicit flags and --steps win)" },
    { flag: 'protocol', type: 'string', choices: BENCH_PROTOCOLS, help: "train: the protocol to follow (docs/benchmarks.md): 'mic' and 'statue' (anchors.json), 'capture' (any COLMAP or transforms.json folder: SfM init, every 8th image held out, full resolution, black, per-view scores), 'custom' (the run's own parameters); default mic or statue by name, custom for other NeRF-synthetic scenes, else capture" },
    { flag: 'metrics', type: 'string', help: 'mesh: the mesh-metrics.mjs to score with (default ../shared/tools/mesh-metrics.mjs)', valueName: 'file' },
    { flag: 'gt', type: 'string', help: 'mesh: ground-truth mesh (default <dataset>/gt_mesh.ply)', valueName: 'file' },
    { flag: 'max-features', type: 'int', help: 'sfm: most SIFT features per image (default 8192)' },
    { flag: 'first-octave', type: 'int', help: "sfm: SIFT's first octave, 0 or -1 (the image upsampled 2x first: COLMAP's default); default capture's (-1)" },
    { flag: 'pairs', type: 'string', choices: PAIR_MODES, help: "sfm: which pairs to match; 'auto' by capture kind (video: sequential + loop candidates; up to 100 photos: exhaustive; more: retrieval)" },
    { flag: 'neighbours', type: 'int', help: 'sfm: retrieval top-k per photo (default 25), loop candidates per video frame (default 10)' },
    { flag: 'words', type: 'int', help: 'sfm: retrieval vocabulary size (default 64)' },
    { flag: 'frames', type: 'int', help: `sfm: video frames taken evenly over the clip (default ${BENCH_SFM_FRAMES})` },
    { flag: 'max-size', type: 'int', help: `sfm: video frames' longest side in pixels (default ${BENCH_SFM_VIDEO_SIZE})` },
    { flag: 'reference', type: 'string', help: 'sfm-accuracy, sfm: the reference poses, a transforms.json or a COLMAP model folder (sfm: the mapped poses scored against them)', valueName: 'file' },
    { flag: 'focal', type: 'float', help: "sfm: every image's focal length in pixels, known (verification estimates E, the mapper takes it); default capture's cameras (EXIF, else 1.2 x the long side)" },
    { flag: 'images', type: 'int', help: `ba: images of the synthetic problem (default ${BENCH_BA_SIZE.images})` },
    { flag: 'points', type: 'int', help: `ba: points (default ${BENCH_BA_SIZE.points.toLocaleString()})` },
    { flag: 'obs-per-point', type: 'int', help: `ba: images that see each point (default ${BENCH_BA_SIZE.obsPerPoint})` },
    { flag: 'lm-iterations', type: 'int', help: `ba: LM iterations each solver runs, no early stop (default ${BENCH_BA_SIZE.iterations})` },
    { flag: 'skip-cpu', type: 'bool', help: 'ba: solve on the GPU only (the CPU solver takes minutes at the default size)' },
    { flag: 'profile-kernels', type: 'bool', help: 'ba: also time each kernel over 2 LM iterations of a separate profiled run' },
    { flag: 'mesh-out', type: 'string', help: 'mesh: also keep the extracted mesh here (.glb, .ply or .obj)', valueName: 'file' },
  ],
  params: () => paramsForCommand('bench').filter((p) => !p.commands.includes('*')),
  async run(context) {
    const [kind, ...rest] = context.positionals;
    if (kind === 'raster') {
      if (rest.length) throw new UsageError(`bench raster takes no positional arguments (got ${rest.join(' ')})`);
      await raster(context);
    } else if (kind === 'loss') {
      if (rest.length) throw new UsageError(`bench loss takes no positional arguments (got ${rest.join(' ')})`);
      await benchLossCommand(context);
    } else if (kind === 'appearance') {
      if (rest.length) throw new UsageError(`bench appearance takes no positional arguments (got ${rest.join(' ')})`);
      await benchAppearanceCommand(context);
    } else if (kind === 'train') await benchTrain({ ...context, positionals: rest });
    else if (kind === 'mesh') await benchMesh({ ...context, positionals: rest });
    else if (kind === 'sfm') await benchSfm({ ...context, positionals: rest });
    else if (kind === 'sfm-accuracy') await benchSfmAccuracy({ ...context, positionals: rest });
    else if (kind === 'ba') await benchBa({ ...context, positionals: rest });
    else if (kind === 'select') await benchSelectCommand({ ...context, positionals: rest });
    else throw new UsageError(`bench: expected "raster", "loss", "appearance", "train", "mesh", "sfm", "sfm-accuracy", "ba" or "select", got ${kind ? `"${kind}"` : 'nothing'}`);
  },
};
