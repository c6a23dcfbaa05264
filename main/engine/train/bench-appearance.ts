/**
 * The fixed-load colour-model benchmark (`bench appearance`, docs/benchmarks.md): one training
 * step's bilateral-grid passes (kernels/appearance.wgsl: apply_forward, apply_backward, grid_tv;
 * kernels/appearance-grad.wgsl: the grid gradient's per-tile partials and their reduce) on a
 * deterministic rendered image, dL/d corrected image and non-identity grids at a given size
 * (1920x1440 by default), timed with GPU timestamps around the step's dispatches (median of 20
 * after 3 warm-ups; host time where the adapter has no timestamps), then a profiled pass for the
 * per-kernel table. The check values (sums of the outputs, read back once) let a test compare the
 * load with the float64 reference. Pure engine code: the CLI's `bench appearance` prints and
 * saves it.
 */
import type { ProfileRow } from '../../../shared/contract/profile.js';
import { lowbias32 } from '../../../shared/random.js';
import { median } from '../../../shared/math/median.js';
import { createStorage, readBuffer, uploadStorage } from '../gpu/buffers.js';
import type { GpuCommands } from '../gpu/commands.js';
import type { GpuContext } from '../gpu/context.js';
import { createStageTimer } from '../gpu/stage-timer.js';
import { workgroupMemoryBytes } from '../gpu/wgsl-analysis.js';
import { Appearance, APPEARANCE_GRIDS, gridFloats } from './appearance.js';

/** Grids of the load (a capture's training images) and the one the frame uses. */
export const APPEARANCE_BENCH_IMAGES = 8;
export const APPEARANCE_BENCH_SLOT = 3;

/** Deterministic uniform [0, 1) of counter i (lowbias32), as the loss benchmark's. */
const uniform = (i: number) => lowbias32((i ^ 0x9e3779b9) >>> 0) / 2 ** 32;

export interface AppearanceBenchLoad {
  /** Rendered image, vec4 per pixel (rgb partly outside [0, 1], alpha 1). */
  image: Float32Array;
  /** dL / d corrected image, vec4 per pixel (alpha's 0). */
  vOut: Float32Array;
  /** Every image's bilateral grid (APPEARANCE_GRIDS.bilagrid). */
  grids: Float32Array;
}

/**
 * The fixed load (docs/benchmarks.md "The colour model at capture size"): channel c of pixel p =
 * (x, y) is s_c + 0.3 (u(3p + c) - 0.5), s = b + 0.2 (sin(x/41), cos(y/29), sin((x - y)/53)),
 * b = 0.5 + 0.5 sin((x + 2y)/47), unclamped (luminance over every layer and past both clamps);
 * v_out's is 1e-3 (u(3(p + P) + c) - 0.5); grid float o is the identity's plus 0.2 (u(2^31 + o)
 * - 0.5).
 */
export function appearanceBenchLoad(width: number, height: number): AppearanceBenchLoad {
  const pixels = width * height;
  const image = new Float32Array(pixels * 4);
  const vOut = new Float32Array(pixels * 4);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const p = y * width + x;
      const brightness = 0.5 + 0.5 * Math.sin((x + 2 * y) / 47);
      const smooth = [brightness + 0.2 * Math.sin(x / 41), brightness + 0.2 * Math.cos(y / 29), brightness + 0.2 * Math.sin((x - y) / 53)];
      for (let c = 0; c < 3; c++) {
        image[4 * p + c] = smooth[c] + 0.3 * (uniform(3 * p + c) - 0.5);
        vOut[4 * p + c] = 1e-3 * (uniform(3 * (p + pixels) + c) - 0.5);
      }
      image[4 * p + 3] = 1;
    }
  const grids = new Float32Array(gridFloats(APPEARANCE_GRIDS.bilagrid, APPEARANCE_BENCH_IMAGES));
  for (let o = 0; o < grids.length; o++) grids[o] = ((o % 12) % 5 === 0 ? 1 : 0) + 0.2 * (uniform(2 ** 31 + o) - 0.5);
  return { image, vOut, grids };
}

/** Float64 sums of the step's outputs: what the load computes, cheap to compare with a reference. */
export interface AppearanceBenchChecks {
  /** Sum of the corrected rgb. */
  out_sum: number;
  /** Sum of dL / d rendered rgb. */
  v_image_sum: number;
  /** L2 norm of the frame image's grid gradient (photometric + TV). */
  grad_slot_l2: number;
  /** L2 norm of every other grid's gradient (TV alone). */
  grad_others_l2: number;
}

export interface AppearanceBenchResult {
  width: number;
  height: number;
  images: number;
  /** Median GPU time of one step's colour-model passes (forward, backward, TV, gradient). */
  appearance_ms: number;
  appearance_samples_ms: number[];
  timing: 'timestamps' | 'host';
  variant: string;
  kernels: ProfileRow[];
  kernels_gpu_ms: number;
  workgroup_memory_bytes: Record<string, number>;
  checks: AppearanceBenchChecks;
}

/** The check values of read-back outputs (rgb of vec4 pixels; grids of `images`, slot `slot`). */
export function appearanceChecks(out: ArrayLike<number>, vImage: ArrayLike<number>, grad: ArrayLike<number>, pixels: number, stride: number, slot: number, images: number): AppearanceBenchChecks {
  let outSum = 0;
  let vSum = 0;
  for (let p = 0; p < pixels; p++)
    for (let c = 0; c < 3; c++) {
      outSum += out[stride * p + c];
      vSum += vImage[stride * p + c];
    }
  const perImage = grad.length / images;
  let slotSq = 0;
  let othersSq = 0;
  for (let i = 0; i < grad.length; i++) {
    if (Math.floor(i / perImage) === slot) slotSq += grad[i] * grad[i];
    else othersSq += grad[i] * grad[i];
  }
  return { out_sum: outSum, v_image_sum: vSum, grad_slot_l2: Math.sqrt(slotSq), grad_others_l2: Math.sqrt(othersSq) };
}

export async function benchAppearance(ctx: GpuContext, options: { width: number; height: number; warmup?: number; iterations?: number; profileIterations?: number }): Promise<AppearanceBenchResult> {
  const { device } = ctx;
  const { width, height } = options;
  const warmup = options.warmup ?? 3;
  const iterations = options.iterations ?? 20;
  const images = APPEARANCE_BENCH_IMAGES;
  const slot = APPEARANCE_BENCH_SLOT;
  const appearance = await Appearance.create(ctx, 'bilagrid', images, width, height);
  const load = appearanceBenchLoad(width, height);
  const image = uploadStorage(device, 'bench.appearance.image', load.image);
  const vOut = uploadStorage(device, 'bench.appearance.vOut', load.vOut);
  const vImage = createStorage(device, 'bench.appearance.vImage', width * height * 16);
  device.queue.writeBuffer(appearance.grid, 0, load.grids);
  // one training step's colour-model passes (no Adam: the grids stay the load's)
  const encodeStep = (c: GpuCommands) => {
    appearance.encodeForward(c, slot, image, vOut, width, height, vImage);
    appearance.encodeBackward(c);
  };

  const timer = createStageTimer(ctx, 'bench.appearance');
  const timestamps = timer.timing === 'timestamps';
  ctx.profiler.setMode('off');
  const samples: number[] = [];
  for (let i = 0; i < warmup + iterations; i++) {
    const ms = await timer.time(encodeStep);
    if (i >= warmup) samples.push(ms);
  }
  const pixels = width * height;
  const checks = appearanceChecks(
    new Float32Array(await readBuffer(device, appearance.image, pixels * 16)),
    new Float32Array(await readBuffer(device, vImage, pixels * 16)),
    new Float32Array(await readBuffer(device, appearance.grad, appearance.floats * 4)),
    pixels,
    4,
    slot,
    images,
  );

  ctx.profiler.setMode(timestamps ? 'timestamps' : 'host');
  ctx.profiler.reset();
  const profileIterations = options.profileIterations ?? 5;
  for (let i = 0; i < profileIterations; i++) {
    const c = ctx.commands('bench.appearance.profile');
    encodeStep(c);
    await c.submit();
  }
  const report = await ctx.profiler.report();
  ctx.profiler.setMode('off');
  ctx.assertNoErrors('the appearance benchmark');
  const workgroupMemory: Record<string, number> = {};
  let variant = '';
  for (const compiled of appearance.compiledPipelines()) {
    const [kernel, entry] = compiled.label.split('.');
    variant = compiled.variant;
    workgroupMemory[`${entry} (${compiled.variant})`] = workgroupMemoryBytes(ctx.kernels.source(kernel, compiled.variant, compiled.consts), entry, compiled.constants);
  }
  timer.destroy();
  appearance.destroy();
  for (const b of [image, vOut, vImage]) b.destroy();
  return {
    width,
    height,
    images,
    appearance_ms: median(samples),
    appearance_samples_ms: samples,
    timing: timestamps ? 'timestamps' : 'host',
    variant,
    kernels: report.rows.map((r) => ({ ...r, totalMs: r.totalMs / profileIterations, calls: r.calls / profileIterations })),
    kernels_gpu_ms: report.gpuMs / profileIterations,
    workgroup_memory_bytes: workgroupMemory,
    checks,
  };
}
