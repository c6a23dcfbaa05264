/**
 * The training protocols of `bench train` (docs/benchmarks.md has their exact definitions): what
 * each one fixes in a run's parameters and views, and the facts about a run's set-up that its
 * result records, so a number in bench/results/ says how it was measured.
 *   mic:     ../shared/bench/anchors.json's NeRF-synthetic protocol
 *   statue:  anchors.json's statue protocol (the capture protocol with no colour model unless asked)
 *   capture: any COLMAP or transforms.json folder, as issue 14 measures real captures beside gsplat
 *   custom:  the run's own parameters, nothing fixed (what `train` would do)
 */
import { badInput } from '../../../shared/rpc/errors.js';
import type { Dataset, DatasetFormat } from '../../engine/dataset/dataset.js';
import { resolveRefineCameras } from '../../engine/train/camera-refine.js';
import type { TrainJobResult } from '../../engine/train/job.js';
import type { Evaluation } from '../../engine/train/trainer.js';
import { UsageError } from '../args.js';
import type { resolveTrainParams } from '../training.js';

export const BENCH_PROTOCOLS = ['mic', 'statue', 'capture', 'custom'] as const;
export type BenchProtocol = (typeof BENCH_PROTOCOLS)[number];

/** Every 8th image (index % 8 == 0, images sorted by name) is a test view: the loader's default split (dataset.ts). */
export const CAPTURE_TEST_EVERY = 8;

type TrainParams = ReturnType<typeof resolveTrainParams>;
type ViewFilter = (view: { name: string; split: string }, index: number) => boolean;

/** The anchors' protocols by the dataset's name (mic, statue); undefined for any other name. */
export function protocolByName(name: string): BenchProtocol | undefined {
  if (name.includes('mic')) return 'mic';
  if (name.includes('statue')) return 'statue';
  return undefined;
}

/**
 * The protocol a dataset gets without `--protocol`: mic and statue by name (their anchors), a
 * NeRF-synthetic scene its own split as it is ('custom'), any other capture the capture protocol.
 */
export function defaultProtocol(name: string, format: DatasetFormat): BenchProtocol {
  return protocolByName(name) ?? (format === 'nerf-synthetic' ? 'custom' : 'capture');
}

/**
 * Whether the protocol checks the dataset before training (the capture protocol refuses a
 * NeRF-synthetic scene and bad masks before any work). The others read it after training, for
 * the result only, so the anchors' start-up times (process start to the first step) stay what
 * they measured.
 */
export function checksDatasetFirst(protocol: BenchProtocol): boolean {
  return protocol === 'capture';
}

/**
 * Fixes in `params` what `protocol` fixes (in place) and returns its test-view filter; `dataset`
 * is there when the protocol checks it first (checksDatasetFirst) or the default needed it. `explicit`
 * holds the values given on the command line: a protocol does not override what a user asked for
 * where the protocol allows a choice, and refuses what would make its numbers something else.
 */
export function applyProtocol(protocol: BenchProtocol, dataset: Dataset | undefined, params: TrainParams, explicit: Readonly<Record<string, unknown>>): { viewFilter?: ViewFilter } {
  if (protocol === 'mic') {
    params['train.background'] = 'white';
    params['train.initPoints'] = 100_000;
    return { viewFilter: (v) => v.split === 'train' || Number(/r_(\d+)/.exec(v.name)?.[1] ?? 1) % 4 === 0 };
  }
  if (protocol === 'statue' || protocol === 'capture') {
    if (dataset?.format === 'nerf-synthetic') {
      throw badInput(dataset.root, `--protocol ${protocol} needs a COLMAP or transforms.json capture, and this is a NeRF-synthetic scene (its own train/test split, random init): use --protocol mic or custom`);
    }
    if (protocol === 'capture' && explicit['train.downscale'] !== undefined && explicit['train.downscale'] !== 1) {
      throw new UsageError(`--protocol capture trains at full resolution (--downscale 1, got ${String(explicit['train.downscale'])}); --protocol custom takes --downscale`);
    }
    params['train.downscale'] = 1;
    if (explicit['train.background'] === undefined) params['train.background'] = 'black';
    // gsplat's statue anchor trains no colour model (simple_trainer's bilateral grid is off by
    // default): that protocol compares like with like unless --appearance asks for one. The
    // capture protocol keeps what the preset says.
    if (protocol === 'statue' && explicit['train.appearance'] === undefined) params['train.appearance'] = 'off';
  }
  return {};
}

/**
 * How the views were split: every 8th by name, unless the dataset names its own split (NeRF-synthetic's
 * files; a transforms.json's train_filenames / test_filenames, which the loader keeps).
 */
export function splitRuleOf(protocol: BenchProtocol, dataset: Dataset): string {
  if (protocol === 'mic') return 'all of transforms_train.json; of transforms_test.json r_0, r_4, ..., r_196';
  if (dataset.format === 'nerf-synthetic') return "the dataset's own (transforms_train.json / transforms_test.json)";
  const everyEighth = dataset.views.every((v, i) => v.split === (i % CAPTURE_TEST_EVERY === 0 ? 'test' : 'train'));
  return everyEighth ? 'every 8th image by name (index % 8 == 0)' : "the dataset's own (transforms.json train_filenames / test_filenames)";
}

/** One evaluation as a result file writes it (snake_case, as the rest of the result). */
export function evaluationRecord(evaluation: Evaluation) {
  return {
    psnr: evaluation.psnr,
    cc_psnr: evaluation.ccPsnr,
    ssim: evaluation.ssim,
    views: evaluation.views.map((v) => ({ name: v.name, psnr: v.psnr, cc_psnr: v.ccPsnr, ssim: v.ssim })),
  };
}

/**
 * What a run was set up with, as measured (the dataset as loaded, the trainer's resolved
 * configuration): initialization, split, resolution, background, masks, colour model, camera
 * refinement, and every test view's scores (with the pose-aligned ones when refinement ran).
 */
export function setupRecord(protocol: BenchProtocol, dataset: Dataset, params: TrainParams, result: TrainJobResult) {
  const sfmPoints = dataset.points && dataset.points.positions.length >= 3 ? dataset.points.positions.length / 3 : 0;
  const masked = dataset.views.filter((v) => v.maskPath).length;
  return {
    init: sfmPoints > 0 ? { kind: 'sfm', points: sfmPoints } : { kind: 'random', points: result.config.initPoints, reason: 'the dataset has no SfM points' },
    split: { rule: splitRuleOf(protocol, dataset), train: result.data.train, test: result.data.test },
    downscale: params['train.downscale'],
    width: result.data.width,
    height: result.data.height,
    background: result.data.background,
    alpha: params['train.alpha'],
    masked_views: masked,
    refine_cameras: resolveRefineCameras(result.config.cameraRefine.mode, dataset.format !== 'nerf-synthetic'),
    views: evaluationRecord(result.evaluation).views,
    ...(result.alignedEvaluation ? { pose_aligned: evaluationRecord(result.alignedEvaluation) } : {}),
  };
}
