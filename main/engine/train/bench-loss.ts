/**
 * The fixed-load loss benchmark (`bench loss`, docs/benchmarks.md): the training loss's forward
 * and backward (L1 + SSIM and dL/d image, kernels/loss.wgsl) on a deterministic image against a
 * deterministic target at a given size (1920x1440 by default: the real captures' size, where
 * SSIM was 16% of a step's GPU time on the H200), timed with GPU timestamps around the pair
 * (median of 20 after 3 warm-ups), then a profiled pass for the per-kernel table; and the
 * evaluation's colour-corrected PSNR reduction (kernels/colour-correct.wgsl) on the same pair.
 * Pure engine code: the CLI's `bench loss` prints and saves it.
 */
import type { ProfileRow } from '../../../shared/contract/profile.js';
import { lowbias32 } from '../../../shared/random.js';
import { readBuffer, uploadStorage } from '../gpu/buffers.js';
import type { GpuCommands } from '../gpu/commands.js';
import type { GpuContext } from '../gpu/context.js';
import { workgroupMemoryBytes } from '../gpu/wgsl-analysis.js';
import { GpuColourCorrection } from './colour-correct.js';
import { lossCounts, TrainingLoss, type SsimPadding } from './loss.js';
import { createStageTimer } from '../gpu/stage-timer.js';
import { median } from '../../../shared/math/median.js';

export interface LossBenchResult {
  width: number;
  height: number;
  padding: SsimPadding;
  /** Median GPU time of ssim_forward + ssim_backward (the training step's loss). */
  loss_ms: number;
  loss_samples_ms: number[];
  /** Median time of one view's colour-corrected PSNR (moments, host solve, corrected error; two readbacks). */
  colour_correct_ms: number;
  timing: 'timestamps' | 'host';
  variant: string;
  kernels: ProfileRow[];
  kernels_gpu_ms: number;
  workgroup_memory_bytes: Record<string, number>;
  /** The loss value on the fixed pair: a check that the load is the one documented. */
  loss: number;
  ssim: number;
}

/** Deterministic uniform [0, 1) of counter i (lowbias32). */
const uniform = (i: number) => lowbias32((i ^ 0x9e3779b9) >>> 0) / 2 ** 32;

/**
 * The fixed pair: the target a smooth colour field with 8-bit noise (RGBA8, unmasked), the image
 * the target plus noise of +-0.1 (so SSIM is far from 0 and 1 and no L1 sign is a tie).
 */
export function lossBenchPair(width: number, height: number): { image: Float32Array; target: Uint32Array } {
  const pixels = width * height;
  const image = new Float32Array(pixels * 4);
  const target = new Uint32Array(pixels);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const p = y * width + x;
      const smooth = [0.5 + 0.4 * Math.sin(x / 37), 0.5 + 0.4 * Math.cos(y / 23), 0.5 + 0.4 * Math.sin((x + y) / 51)];
      let word = 0xff000000;
      for (let c = 0; c < 3; c++) {
        const t = Math.round(Math.min(1, Math.max(0, smooth[c] + (uniform(3 * p + c) - 0.5) * 0.1)) * 255);
        word |= t << (8 * c);
        image[4 * p + c] = Math.min(1, Math.max(0, t / 255 + (uniform(3 * (p + pixels) + c) - 0.5) * 0.2));
      }
      image[4 * p + 3] = 1;
      target[p] = word >>> 0;
    }
  return { image, target };
}

export async function benchLoss(ctx: GpuContext, options: { width: number; height: number; padding?: SsimPadding; warmup?: number; iterations?: number; profileIterations?: number }): Promise<LossBenchResult> {
  const { device } = ctx;
  const { width, height } = options;
  const padding = options.padding ?? 'valid';
  const warmup = options.warmup ?? 3;
  const iterations = options.iterations ?? 20;
  const loss = await TrainingLoss.create(ctx, padding);
  const frame = loss.createFrame(width, height);
  const pair = lossBenchPair(width, height);
  const image = uploadStorage(device, 'bench.loss.image', pair.image);
  const targets = uploadStorage(device, 'bench.loss.targets', pair.target);
  const counts = lossCounts(width, height, padding);
  const encodeLoss = (c: GpuCommands) => loss.encode(c, frame, image, targets, 0, width, height, counts);

  const timer = createStageTimer(ctx, 'bench.loss');
  const timestamps = timer.timing === 'timestamps';
  ctx.profiler.setMode('off');
  const samples: number[] = [];
  for (let i = 0; i < warmup + iterations; i++) {
    const ms = await timer.time(encodeLoss);
    if (i >= warmup) samples.push(ms);
  }
  const sums = new Float32Array(await readBuffer(device, frame.sums, frame.activeSumsBytes));
  const value = loss.value(sums, width, height, counts);

  // the evaluation's colour-corrected PSNR on the same pair (host time: it reads back twice)
  const colour = await GpuColourCorrection.create(ctx, width * height);
  const colourSamples: number[] = [];
  for (let i = 0; i < warmup + iterations; i++) {
    await device.queue.onSubmittedWorkDone();
    const t0 = performance.now();
    const c = ctx.commands('bench.colourCorrect');
    colour.encodeMoments(c, image, targets, 0, width * height);
    await c.submit();
    await colour.psnr();
    if (i >= warmup) colourSamples.push(performance.now() - t0);
  }
  colour.destroy();

  ctx.profiler.setMode(timestamps ? 'timestamps' : 'host');
  ctx.profiler.reset();
  const profileIterations = options.profileIterations ?? 5;
  for (let i = 0; i < profileIterations; i++) {
    const c = ctx.commands('bench.loss.profile');
    encodeLoss(c);
    await c.submit();
  }
  const report = await ctx.profiler.report();
  ctx.profiler.setMode('off');
  ctx.assertNoErrors('the loss benchmark');
  const workgroupMemory: Record<string, number> = {};
  for (const compiled of [loss.forward, loss.backward]) {
    const [kernel, entry] = compiled.label.split('.');
    workgroupMemory[`${entry} (${compiled.variant})`] = workgroupMemoryBytes(ctx.kernels.source(kernel, compiled.variant, compiled.consts), entry, compiled.constants);
  }
  timer.destroy();
  frame.destroy();
  image.destroy();
  targets.destroy();
  return {
    width,
    height,
    padding,
    loss_ms: median(samples),
    loss_samples_ms: samples,
    colour_correct_ms: median(colourSamples),
    timing: timestamps ? 'timestamps' : 'host',
    variant: loss.forward.variant,
    kernels: report.rows.map((r) => ({ ...r, totalMs: r.totalMs / profileIterations, calls: r.calls / profileIterations })),
    kernels_gpu_ms: report.gpuMs / profileIterations,
    workgroup_memory_bytes: workgroupMemory,
    loss: value.loss,
    ssim: value.ssim,
  };
}
