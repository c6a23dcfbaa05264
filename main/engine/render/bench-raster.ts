/**
 * The fixed-load raster benchmark (../shared/bench/RASTER_LOAD.md): forward and backward timed
 * with GPU timestamps around each whole stage (median of 20 after 3 warm-ups), then a profiled
 * pass for the per-kernel table. Pure engine code: the CLI's `bench raster` prints and saves it.
 */
import type { ProfileRow } from '../../../shared/contract/profile.js';
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import { lowbias32 } from '../../../shared/random.js';
import type { SplatSet } from '../../../shared/scene/splats.js';
import { readBuffer, writeRange } from '../gpu/buffers.js';
import type { GpuContext } from '../gpu/context.js';
import { workgroupMemoryBytes } from '../gpu/wgsl-analysis.js';
import { GpuSplatGrads, GpuSplats } from './gpu-splats.js';
import { Rasterizer, type RasterizerOptions } from './rasterizer.js';
import { createStageTimer } from '../gpu/stage-timer.js';
import { median } from '../../../shared/math/median.js';

export interface RasterLoadInput {
  splats: SplatSet;
  camera: PinholeCamera;
  near: number;
  background: [number, number, number];
}

export interface RasterBenchResult {
  splats: number;
  width: number;
  height: number;
  forward_ms: number;
  backward_ms: number;
  forward_samples_ms: number[];
  backward_samples_ms: number[];
  intersections: number;
  visible: number;
  timing: 'timestamps' | 'host';
  variant: string;
  config: Required<Pick<RasterizerOptions, 'workgroupSize' | 'backwardBatch' | 'backwardReduce' | 'backwardPixels'>>;
  kernels: ProfileRow[];
  kernels_gpu_ms: number;
  workgroup_memory_bytes: Record<string, number>;
  gpu_memory_bytes: number;
  bytes_per_splat: number;
  bytes_per_intersection: number;
}

/** Deterministic uniform [0,1) for the benchmark's random target (counter hash). */
function targetValue(i: number): number {
  return lowbias32((i ^ 0x9e3779b9) >>> 0) / 2 ** 32;
}

export async function benchRaster(
  ctx: GpuContext,
  load: RasterLoadInput,
  options: RasterizerOptions & { warmup?: number; iterations?: number; profileIterations?: number; onProgress?: (stage: string, done: number, total: number) => void } = {},
): Promise<RasterBenchResult> {
  const { device } = ctx;
  const warmup = options.warmup ?? 3;
  const iterations = options.iterations ?? 20;
  // gsplat's benchmark computes no absgrad (its default): neither do we here
  const rasterizer = await Rasterizer.create(ctx, { ...options, absgrad: false });
  // what ran: the backward as sized from the device (a smaller batch where the preferred one does not fit)
  const { backwardBatch, backwardReduce, backwardPixels } = rasterizer.backward;
  const config = { workgroupSize: rasterizer.workgroupSize, backwardBatch, backwardReduce, backwardPixels };
  const memoryBefore = ctx.memory.live;
  const splats = GpuSplats.fromHost(ctx, load.splats);
  const { camera } = load;
  const settings = { background: load.background, antialiased: false, shDegree: load.splats.shDegree, near: load.near };
  let frame = await rasterizer.createFrame(splats, camera.width, camera.height, Math.max(1 << 20, load.splats.count * 6));
  const forwardOnce = async () => {
    const c = ctx.commands('bench.forward');
    rasterizer.encodeForward(c, frame, camera, settings);
    await c.submit();
  };
  await forwardOnce();
  let counts = await rasterizer.readCounts(frame);
  ctx.assertNoErrors('the first forward of the raster benchmark');
  if (counts.overflow) {
    frame.destroy();
    frame = await rasterizer.createFrame(splats, camera.width, camera.height, Math.ceil(counts.intersections * 1.05));
    await forwardOnce();
    counts = await rasterizer.readCounts(frame);
  }
  // L = mean |image - target| over RGB, target uniform in [0, 1): dL/dI = sign(I - T) / (3P).
  const P = camera.width * camera.height;
  const image = new Float32Array(await readBuffer(device, frame.image, P * 16));
  const vImage = new Float32Array(P * 4);
  for (let p = 0; p < P; p++) for (let c = 0; c < 3; c++) vImage[4 * p + c] = Math.sign(image[4 * p + c] - targetValue(3 * p + c)) / (3 * P);
  writeRange(device, frame.pixelGrads!.image, vImage);
  const grads = new GpuSplatGrads(ctx, splats.capacity, splats.shCoeffs);
  rasterizer.bindBackward(frame, grads);
  const gpuMemory = ctx.memory.live - memoryBefore;

  const timer = createStageTimer(ctx, 'bench.stage');
  const timestamps = timer.timing === 'timestamps';
  ctx.profiler.setMode('off');
  const forward: number[] = [];
  const backward: number[] = [];
  for (let i = 0; i < warmup + iterations; i++) {
    const f = await timer.time((c) => rasterizer.encodeForward(c, frame, camera, settings));
    const b = await timer.time((c) => rasterizer.encodeBackward(c, frame));
    if (i >= warmup) {
      forward.push(f);
      backward.push(b);
    }
    options.onProgress?.('timing', i + 1, warmup + iterations);
  }

  // Per-kernel table: one pass per kernel, timestamped where the device can.
  ctx.profiler.setMode(timestamps ? 'timestamps' : 'host');
  ctx.profiler.reset();
  const profileIterations = options.profileIterations ?? 5;
  for (let i = 0; i < profileIterations; i++) {
    const c = ctx.commands('bench.profile');
    rasterizer.encodeForward(c, frame, camera, settings);
    rasterizer.encodeBackward(c, frame);
    await c.submit();
  }
  const report = await ctx.profiler.report();
  ctx.profiler.setMode('off');
  ctx.assertNoErrors('the raster benchmark');
  const kernels = report.rows.map((r) => ({ ...r, totalMs: r.totalMs / profileIterations, calls: r.calls / profileIterations }));

  const workgroupMemory: Record<string, number> = {};
  for (const [name, compiled] of Object.entries(rasterizer.compiled)) {
    if (!compiled) continue; // optional outputs' pipelines exist only when switched on
    const kernel = compiled.label.split('.')[0];
    const entry = compiled.label.split('.')[1];
    const source = ctx.kernels.source(kernel, compiled.variant, compiled.consts);
    workgroupMemory[`${name} (${compiled.variant})`] = workgroupMemoryBytes(source, entry, compiled.constants);
  }
  const result: RasterBenchResult = {
    splats: load.splats.count,
    width: camera.width,
    height: camera.height,
    forward_ms: median(forward),
    backward_ms: median(backward),
    forward_samples_ms: forward,
    backward_samples_ms: backward,
    intersections: counts.intersections,
    visible: counts.visible,
    timing: timestamps ? 'timestamps' : 'host',
    variant: rasterizer.variant,
    config,
    kernels,
    kernels_gpu_ms: report.gpuMs / profileIterations,
    workgroup_memory_bytes: workgroupMemory,
    gpu_memory_bytes: gpuMemory,
    // parameters + gradients + the frame's per-splat working set
    bytes_per_splat: (splats.capacity * splats.shCoeffs * 12 + splats.capacity * 44) / splats.capacity + (grads.all.reduce((s, b) => s + b.size, 0)) / splats.capacity + frame.bytes.perSplat,
    bytes_per_intersection: frame.bytes.perIntersection,
  };
  timer.destroy();
  grads.destroy();
  frame.destroy();
  splats.destroy();
  return result;
}
