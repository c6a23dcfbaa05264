/**
 * Planning a partitioned run (`partition --plan --workers M`, docs/scale.md): time and memory per
 * block and for the whole run on M workers, from the per-step costs a training benchmark measured
 * (bench/results) and the blocks' camera, point and splat counts. The model, stated once here:
 *
 *   step time   t(b) = t_ref x [ f_px x P_b / P_ref + (1 - f_px) x S_b / S_ref ]
 *                 t_ref the measured seconds per step, f_px the share of the step's GPU time in
 *                 per-pixel kernels (rasterize, loss, appearance: the profile), P pixels per image,
 *                 S splats (the block's final count: an upper bound, it grows during training)
 *   memory      m(b) = B_splat x S_b + 4 x P_b x C_b + B_px x P_b
 *                 B_splat the trainer's state bytes per splat (Adam moments included), 4 bytes per
 *                 training pixel resident (RGB8 + mask) for its C_b cameras, B_px the rest of the
 *                 measured peak per pixel (frame and intersection buffers)
 *   block time  T(b) = I x t(b) + (S_b x B_splat) x (I / K) / W_storage + 4 x P_b x C_b / W_storage
 *                 I iterations, checkpoints every K steps written to storage at W_storage, images read once
 *   run time    blocks longest first onto M workers (LPT), or the storage's time for all their
 *                 checkpoints and images when that is longer (the workers share it), then the merge: every block's PLY read
 *                 and the merged one written (248 bytes a splat at SH degree 3) at W_storage, plus
 *                 the fine-tune's steps at the whole scene's step time (it needs the whole scene on one GPU)
 *   queue       Redis carries a job per block and at most 4 progress messages a second per worker
 */

/** Per-step costs measured by a training benchmark. */
export interface StepCosts {
  /** The bench result they come from. */
  source: string;
  secondsPerStep: number;
  /** Splats at the end of the run. */
  splats: number;
  /** Pixels per training image. */
  pixels: number;
  trainViews: number;
  /** Share of the step's GPU time in per-pixel kernels. */
  pixelShare: number;
  bytesPerSplat: number;
  peakBytes: number;
}

/** The H200 statue run at 30k steps (bench/results/h200-train-capture-statue-30k.json; tests check these match it). */
export const H200_STEP_COSTS: StepCosts = {
  source: 'bench/results/h200-train-capture-statue-30k.json',
  secondsPerStep: 65.465440773 / 30000,
  splats: 132188,
  pixels: 1000 * 662,
  trainViews: 20,
  pixelShare: 0.64921,
  bytesPerSplat: 1889,
  peakBytes: 993207264,
};

const PER_PIXEL_KERNELS = /^(rasterize|loss|appearance)\./;

/** The step costs of a `bench train` result (its JSON). */
export function stepCostsOfBench(result: { train_s: number; steps: number; splats: number; width: number; height: number; train_views: number; bytes_per_splat_state: number; peak_gpu_bytes: number; profile: { rows: { kernel: string; percent: number }[] } }, source: string): StepCosts {
  const pixelPercent = result.profile.rows.filter((r) => PER_PIXEL_KERNELS.test(r.kernel)).reduce((s, r) => s + r.percent, 0);
  const allPercent = result.profile.rows.reduce((s, r) => s + r.percent, 0);
  return {
    source,
    secondsPerStep: result.train_s / result.steps,
    splats: result.splats,
    pixels: result.width * result.height,
    trainViews: result.train_views,
    pixelShare: Math.round((pixelPercent / allPercent) * 1e5) / 1e5,
    bytesPerSplat: result.bytes_per_splat_state,
    peakBytes: result.peak_gpu_bytes,
  };
}

export interface PlanBlock {
  id: string;
  cameras: number;
  /** The block's final splats (its share of the scene's, bounds included). */
  splats: number;
  /** Pixels per training image. */
  pixels: number;
}

export interface PlanOptions {
  workers: number;
  iterations: number;
  /** GPU memory a worker may use. */
  gpuBytes: number;
  /** Shared storage bandwidth, bytes a second (all workers together). */
  storageBytesPerS: number;
  checkpointEvery: number;
  fineTuneSteps: number;
  /** Splats of the merged scene (the cores' splats). */
  mergedSplats: number;
  /** Pixels per image for the fine-tune (the scene's). */
  pixels: number;
  /** Cameras of the whole scene (the fine-tune's). */
  cameras: number;
}

export interface PlannedBlock extends PlanBlock {
  stepS: number;
  timeS: number;
  memoryBytes: number;
  fits: boolean;
  worker: number;
}

export interface Plan {
  costs: StepCosts;
  blocks: PlannedBlock[];
  /** Time the blocks take: the longest worker's, or the storage's when that is longer. */
  blocksS: number;
  /** The longest worker's training time alone. */
  computeS: number;
  /** The storage's time for the blocks' checkpoints and images alone. */
  storageBoundS: number;
  /** All blocks on one worker, for comparison. */
  serialS: number;
  mergeS: number;
  fineTuneS: number;
  fineTuneBytes: number;
  totalS: number;
  /** Bytes moved through storage (checkpoints, images read, block and merged PLYs). */
  storageBytes: number;
  /** Storage busy time over the run's wall time. */
  storageLoad: number;
  queueMessagesPerS: number;
  bottleneck: 'compute' | 'storage' | 'merge' | 'memory' | 'redis';
  notes: string[];
}

const PLY_BYTES_PER_SPLAT = 62 * 4;
/** A Redis server's sustained commands a second (small messages, one core): far above what blocks send. */
const REDIS_OPS_PER_S = 50_000;

export function stepSeconds(costs: StepCosts, splats: number, pixels: number): number {
  return costs.secondsPerStep * (costs.pixelShare * (pixels / costs.pixels) + (1 - costs.pixelShare) * (splats / costs.splats));
}

export function memoryBytes(costs: StepCosts, splats: number, pixels: number, cameras: number): number {
  const perPixel = Math.max(0, costs.peakBytes - costs.bytesPerSplat * costs.splats - 4 * costs.pixels * costs.trainViews) / costs.pixels;
  return costs.bytesPerSplat * splats + 4 * pixels * cameras + perPixel * pixels;
}

export function planPartition(blocks: readonly PlanBlock[], options: PlanOptions, costs: StepCosts = H200_STEP_COSTS): Plan {
  const checkpoints = options.checkpointEvery > 0 ? Math.floor(options.iterations / options.checkpointEvery) : 1;
  const planned = blocks.map((b) => {
    const stepS = stepSeconds(costs, b.splats, b.pixels);
    const memory = memoryBytes(costs, b.splats, b.pixels, b.cameras);
    const io = (b.splats * costs.bytesPerSplat * checkpoints + 4 * b.pixels * b.cameras) / options.storageBytesPerS;
    return { ...b, stepS, timeS: options.iterations * stepS + io, memoryBytes: memory, fits: memory <= options.gpuBytes, worker: 0 };
  });
  // longest first, each onto the worker free soonest
  const free = new Array<number>(Math.max(1, options.workers)).fill(0);
  for (const b of [...planned].sort((x, y) => y.timeS - x.timeS)) {
    const w = free.indexOf(Math.min(...free));
    b.worker = w;
    free[w]! += b.timeS;
  }
  const blockStorageBytes = planned.reduce((s, b) => s + b.splats * costs.bytesPerSplat * checkpoints + 4 * b.pixels * b.cameras, 0);
  const storageBoundS = blockStorageBytes / options.storageBytesPerS;
  const computeS = Math.max(...free);
  const blocksS = Math.max(computeS, storageBoundS);
  const serialS = planned.reduce((s, b) => s + b.timeS, 0);
  const blockPlyBytes = planned.reduce((s, b) => s + b.splats * PLY_BYTES_PER_SPLAT, 0);
  const mergedBytes = options.mergedSplats * PLY_BYTES_PER_SPLAT;
  const fineTuneBytes = memoryBytes(costs, options.mergedSplats, options.pixels, options.cameras);
  const fineTuneS = options.fineTuneSteps * stepSeconds(costs, options.mergedSplats, options.pixels);
  const mergeS = (blockPlyBytes + mergedBytes) / options.storageBytesPerS + fineTuneS;
  const totalS = blocksS + mergeS;
  const storageBytes = blockStorageBytes + blockPlyBytes + mergedBytes;
  const storageLoad = storageBytes / options.storageBytesPerS / totalS;
  const queueMessagesPerS = 4 * Math.min(options.workers, planned.length);
  const notes: string[] = [];
  const tooBig = planned.filter((b) => !b.fits);
  if (tooBig.length) notes.push(`${tooBig.length} block(s) need more than the GPU's ${(options.gpuBytes / 2 ** 30).toFixed(0)} GiB (largest ${(Math.max(...tooBig.map((b) => b.memoryBytes)) / 2 ** 30).toFixed(1)} GiB): split finer`);
  if (options.fineTuneSteps > 0 && fineTuneBytes > options.gpuBytes) notes.push(`the joint fine-tune needs ${(fineTuneBytes / 2 ** 30).toFixed(1)} GiB on one GPU: more than it has; merge without it (--fine-tune 0)`);
  if (storageBoundS > computeS) notes.push(`the storage moves the blocks' checkpoints and images in ${(storageBoundS / 3600).toFixed(2)} h, longer than their training (${(computeS / 3600).toFixed(2)} h): checkpoint less often (--checkpoint-every) or use faster storage`);
  if (planned.length < options.workers) notes.push(`${options.workers - planned.length} of ${options.workers} workers idle: ask for at least as many blocks as workers`);
  const bottleneck: Plan['bottleneck'] = tooBig.length || (options.fineTuneSteps > 0 && fineTuneBytes > options.gpuBytes)
    ? 'memory'
    : queueMessagesPerS > REDIS_OPS_PER_S / 10
      ? 'redis'
      : storageBoundS > computeS
        ? 'storage'
        : mergeS > blocksS
          ? 'merge'
          : 'compute';
  return { costs, blocks: planned, blocksS, computeS, storageBoundS, serialS, mergeS, fineTuneS, fineTuneBytes, totalS, storageBytes, storageLoad, queueMessagesPerS, bottleneck, notes };
}
