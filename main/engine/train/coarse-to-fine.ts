/**
 * Coarse-to-fine training (train.coarseFactor, train.coarseUntil): the first steps render and
 * score images `factor` times smaller per side, the factor halving at evenly spaced steps until
 * full resolution at `until` of the run. A coarse step costs a fraction of a full one (pixels,
 * intersections, the loss's windows) while the splats are still learning the large shapes a
 * coarse image holds; the fine detail comes with the full images later. The coarse targets are
 * the full images area-averaged as `--downscale` does (image-ops.ts downscaleArea), uploaded once
 * per level beside the full ones. Evaluation never sees them: it renders the views' own cameras.
 */
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import { scaleCamera } from '../dataset/dataset.js';
import { bytesToUnit, downscaleArea, downscaledSize, quantizeToBytes } from '../formats/image-ops.js';
import type { GpuContext } from '../gpu/context.js';
import type { TrainingData } from './data.js';
import { GpuTargets } from './targets.js';

export interface CoarseToFineConfig {
  /** Per-side reduction of the first steps' images; 1: off. */
  factor: number;
  /** Fraction of the run after which every step is at full resolution. */
  until: number;
}

/** The schedule's reductions, coarsest first: factor, factor / 2, ... while above 1 (4 -> [4, 2]). */
export function coarseLevels(config: CoarseToFineConfig): number[] {
  const levels: number[] = [];
  for (let f = config.factor; f > 1 + 1e-9; f /= 2) levels.push(f);
  return levels;
}

/** The per-side reduction step `step` of `iterations` trains at (1: full resolution). */
export function resolutionFactorAt(step: number, iterations: number, config: CoarseToFineConfig): number {
  const levels = coarseLevels(config);
  const end = config.until * iterations;
  if (!levels.length || step >= end) return 1;
  return levels[Math.min(levels.length - 1, Math.floor((step * levels.length) / end))];
}

/** A camera for its image reduced `factor` times per side (the size and intrinsics `--downscale` gives). */
export function coarseCamera(camera: PinholeCamera, factor: number): PinholeCamera {
  const size = downscaledSize(camera.width, camera.height, factor);
  return scaleCamera(camera, size.width, size.height);
}

/**
 * `data` with every view `factor` times smaller per side: cameras scaled, images area-averaged
 * from the source's own. A mask byte (RGB + mask views) is averaged too and kept where at least
 * half of the pixels it covers were.
 */
export function coarseTrainingData(data: TrainingData, factor: number): TrainingData {
  const sizeOf = (index: number) => data.views[index].camera;
  const reduce = (index: number, values: Float32Array, channels: number) => {
    const { width, height } = sizeOf(index);
    return downscaleArea({ width, height, channels, data: values }, factor).data;
  };
  const loadImageRgb8 = data.loadImageRgb8?.bind(data);
  return {
    ...data,
    views: data.views.map((v) => ({ ...v, camera: coarseCamera(v.camera, factor) })),
    loadImage: async (index) => reduce(index, await data.loadImage(index), 3),
    ...(loadImageRgb8
      ? {
          loadImageRgb8: async (index: number) => {
            const bytes = await loadImageRgb8(index);
            const { width, height } = sizeOf(index);
            const channels = bytes.length === width * height * 4 ? 4 : 3;
            const out = quantizeToBytes(reduce(index, bytesToUnit(bytes), channels));
            if (channels === 4) for (let i = 3; i < out.length; i += 4) out[i] = out[i] >= 128 ? 255 : 0;
            return out;
          },
        }
      : {}),
  };
}

/** The coarse levels' targets on the GPU and which one a step trains on. */
export class CoarseToFine {
  private constructor(
    private readonly config: CoarseToFineConfig,
    private readonly iterations: number,
    private readonly levels: ReadonlyMap<number, GpuTargets>,
  ) {}

  /** Undefined when the schedule is off (factor 1). Uploads each level's targets of `views`. */
  static async create(ctx: GpuContext, data: TrainingData, views: readonly number[], config: CoarseToFineConfig, iterations: number): Promise<CoarseToFine | undefined> {
    const factors = coarseLevels(config);
    if (!factors.length || config.until <= 0) return undefined;
    const levels = new Map<number, GpuTargets>();
    for (const factor of factors) levels.set(factor, await GpuTargets.upload(ctx, coarseTrainingData(data, factor), views));
    return new CoarseToFine(config, iterations, levels);
  }

  /** The targets and camera of step `step` when it trains coarse; undefined at full resolution. */
  at(step: number, camera: PinholeCamera): { targets: GpuTargets; camera: PinholeCamera; factor: number } | undefined {
    const factor = resolutionFactorAt(step, this.iterations, this.config);
    const targets = this.levels.get(factor);
    return targets ? { targets, camera: coarseCamera(camera, factor), factor } : undefined;
  }

  get bytes(): number {
    let total = 0;
    for (const t of this.levels.values()) total += t.bytes;
    return total;
  }

  destroy(): void {
    for (const t of this.levels.values()) t.destroy();
  }
}
