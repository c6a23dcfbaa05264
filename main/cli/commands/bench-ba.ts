/**
 * `bench ba`: bundle adjustment's fixed load, solved by the GPU solver (sfm/bundle/gpu/) and by
 * the float64 CPU solver from the same start: a synthetic problem (synthetic-problem.ts, seed 1)
 * of --images images, --points points each seen by --obs-per-point images, mixed camera models,
 * 0.5 px noise, two images held. Reports milliseconds per LM iteration, PCG steps and the final
 * float64 costs of both (docs/sfm.md, "Bundle adjustment on the GPU").
 */
import { formatProfileTable } from '../../../shared/contract/profile.js';
import { openGpu } from '../../engine/gpu/context.js';
import { bundleAdjustCpu } from '../../engine/sfm/bundle/bundle-adjust-cpu.js';
import { GpuBundleAdjuster } from '../../engine/sfm/bundle/gpu/gpu-bundle-adjuster.js';
import { MIXED_MODELS, syntheticBaProblem } from '../../engine/sfm/bundle/gpu/synthetic-problem.js';
import { BA_DEFAULTS, type BaOptions, type BaProblem, type BaResult } from '../../engine/sfm/bundle/problem.js';
import { UsageError } from '../args.js';
import { benchStamp, writeResult } from '../bench-result.js';
import type { CommandContext } from '../command.js';

/** The size: a 150-frame video's map. */
export const BENCH_BA_SIZE = { images: 150, points: 60000, obsPerPoint: 5, iterations: 10 } as const;

function summary(r: BaResult) {
  const pcg = r.perIteration.map((i) => i.pcgIterations);
  return {
    ms_per_iteration: r.iterations ? (1000 * r.seconds) / r.iterations : 0,
    seconds: r.seconds,
    iterations: r.iterations,
    accepted: r.perIteration.filter((i) => i.accepted).length,
    pcg_iterations: pcg,
    pcg_iterations_mean: pcg.length ? pcg.reduce((a, b) => a + b, 0) / pcg.length : 0,
    initial_cost: r.initialCost,
    final_cost: r.finalCost,
    reason: r.reason,
  };
}

/** LM iterations of the separate profiled run (--profile-kernels). */
const PROFILED_ITERATIONS = 2;

/**
 * The per-kernel table from a second, profiled GPU context: profiling changes the timing (one
 * pass per dispatch with timestamps; without them, as on llvmpipe, each dispatch submitted and
 * waited for alone), so the timed run above is never the profiled one.
 */
async function profiledIterations(context: CommandContext, start: BaProblem, options: BaOptions) {
  const gpu = await openGpu({ ...context.engineOptions, profile: true });
  try {
    const adjuster = await GpuBundleAdjuster.create(gpu);
    gpu.profiler.reset();
    await adjuster.solve(start, { ...options, maxIterations: PROFILED_ITERATIONS });
    const report = await gpu.profiler.report();
    adjuster.stages.destroy();
    return report;
  } finally {
    gpu.destroy();
  }
}

export async function benchBa(context: CommandContext): Promise<void> {
  const { options, out, positionals } = context;
  if (positionals.length) throw new UsageError(`bench ba takes no positional arguments (got ${positionals.join(' ')})`);
  const images = (options.images as number | undefined) ?? BENCH_BA_SIZE.images;
  const points = (options.points as number | undefined) ?? BENCH_BA_SIZE.points;
  const obsPerPoint = (options['obs-per-point'] as number | undefined) ?? BENCH_BA_SIZE.obsPerPoint;
  const iterations = (options['lm-iterations'] as number | undefined) ?? BENCH_BA_SIZE.iterations;
  if (images < 3) throw new UsageError(`bench ba: --images must be at least 3 (got ${images})`);
  if (points < 1) throw new UsageError(`bench ba: --points must be at least 1 (got ${points})`);
  if (obsPerPoint < 2 || obsPerPoint > images) throw new UsageError(`bench ba: --obs-per-point must be between 2 and --images (${images}), got ${obsPerPoint}`);
  if (iterations < 1) throw new UsageError(`bench ba: --lm-iterations must be at least 1 (got ${iterations})`);
  out.progress({ stage: 'generate', message: `${images} images, ${points.toLocaleString()} points x ${obsPerPoint} observations` }, true);
  const { start } = syntheticBaProblem(1, { images, points, obsPerPoint, models: MIXED_MODELS, fixed: 2, noisePx: 0.5, rotationNoise: 0.01, positionNoise: 0.02 });
  // a fixed number of iterations (no early stop), so both solvers do the same work
  const baOptions = { ...BA_DEFAULTS, maxIterations: iterations, functionTolerance: 0, gradientTolerance: 0, parameterTolerance: 0 };
  const gpu = await openGpu(context.engineOptions);
  try {
    const adjuster = await GpuBundleAdjuster.create(gpu);
    const progress = (stage: string) => (k: number) => out.progress({ stage, step: k, total: iterations });
    const gpuResult = summary(await adjuster.solve(start, baOptions, { onProgress: progress('gpu') }));
    out.progress({ stage: 'gpu', message: `${gpuResult.ms_per_iteration.toFixed(1)} ms per LM iteration, final cost ${gpuResult.final_cost.toPrecision(8)}` }, true);
    const cpuResult = options['skip-cpu'] ? undefined : summary(await bundleAdjustCpu(start, baOptions, { onProgress: progress('cpu') }));
    const kernels = options['profile-kernels'] ? await profiledIterations(context, start, baOptions) : undefined;
    const result = {
      bench: 'ba',
      images,
      points,
      observations: start.obsImage.length,
      obs_per_point: obsPerPoint,
      lm_iterations: iterations,
      gpu: gpuResult,
      ...(cpuResult ? { cpu: cpuResult, final_cost_relative_difference: (gpuResult.final_cost - cpuResult.final_cost) / cpuResult.final_cost, speedup: cpuResult.ms_per_iteration / gpuResult.ms_per_iteration } : {}),
      ...(kernels ? { kernels } : {}),
      ...benchStamp(gpu),
    };
    adjuster.stages.destroy();
    await writeResult(options.out as string | undefined, result);
    const line = (name: string, r: ReturnType<typeof summary>) =>
      `${name}: ${r.ms_per_iteration.toFixed(1)} ms per LM iteration (${r.iterations}, ${r.accepted} accepted, PCG ${r.pcg_iterations_mean.toFixed(1)} steps on average), cost ${r.initial_cost.toPrecision(8)} -> ${r.final_cost.toPrecision(8)}`;
    const human = [
      `bundle adjustment, ${images} images, ${points.toLocaleString()} points, ${result.observations.toLocaleString()} observations (${gpu.info.adapter.name})`,
      line('GPU', gpuResult),
      ...(cpuResult ? [line('CPU', cpuResult), `final costs differ by ${(result.final_cost_relative_difference as number).toExponential(2)} relative; GPU ${(result.speedup as number).toFixed(1)}x the CPU's speed`] : []),
      ...(kernels ? ['', `per kernel over ${PROFILED_ITERATIONS} profiled LM iterations (${kernels.source}):`, formatProfileTable(kernels)] : []),
    ].join('\n');
    out.result(result, human);
  } finally {
    gpu.destroy();
  }
}
