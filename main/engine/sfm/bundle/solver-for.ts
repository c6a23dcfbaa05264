/**
 * Which bundle-adjustment solver a device gets: the GPU one (gpu/) on a hardware adapter, the
 * float64 CPU one on a CPU adapter (llvmpipe, SwiftShader), where the GPU path measured 0.4-0.8x
 * the CPU solver's speed (docs/sfm.md, bench ba). One rule for capture and `bench sfm`.
 */
import type { GpuContext } from '../../gpu/context.js';
import { bundleAdjustCpu } from './bundle-adjust-cpu.js';
import { GpuBundleAdjuster } from './gpu/gpu-bundle-adjuster.js';
import type { BundleAdjuster } from './problem.js';

export interface BundleSolver {
  name: 'gpu' | 'cpu';
  adjust: BundleAdjuster;
  /** Frees the GPU solver's buffers (nothing for the CPU one). */
  destroy(): void;
}

export async function bundleSolverFor(ctx: GpuContext): Promise<BundleSolver> {
  if (ctx.info.adapter.software) return { name: 'cpu', adjust: bundleAdjustCpu, destroy: () => undefined };
  const gpu = await GpuBundleAdjuster.create(ctx);
  return { name: 'gpu', adjust: gpu.adjust, destroy: () => gpu.destroy() };
}
