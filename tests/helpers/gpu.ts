import { openGpu, type GpuContext } from '../../main/engine/gpu/context.js';
import type { KernelVariant } from '../../main/engine/gpu/kernels.js';

let shared: Promise<GpuContext> | undefined;

/**
 * One GPU context per test file (per process). Tests run on whatever adapter this machine has:
 * llvmpipe here and in CI, the H200 through the GPU runner.
 */
export function testGpu(): Promise<GpuContext> {
  shared ??= openGpu({ backend: (process.env.ARGONAUT_BACKEND as never) ?? undefined, kernelVariant: 'auto' });
  return shared;
}

/** The capability variants this device can run: always 'portable', plus 'subgroup' when present. */
export function variantsOf(ctx: GpuContext): KernelVariant[] {
  return ctx.hasSubgroups ? ['portable', 'subgroup'] : ['portable'];
}
