import { existsSync } from 'node:fs';
import type { BackendChoice } from '../../shared/contract/gpu.js';
import { openGpu, type GpuContext } from '../../main/engine/gpu/context.js';
import type { KernelVariant } from '../../main/engine/gpu/kernels.js';

let shared: Promise<GpuContext> | undefined;

/** Where Debian's chromium-common puts SwiftShader's Vulkan driver (`dpkg -S vk_swiftshader_icd.json`). */
export const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

/**
 * The backend tests open, from ARGONAUT_BACKEND: unset is the platform's choice (llvmpipe here);
 * `swiftshader` is Vulkan on SwiftShader's CPU driver (subgroups of 4, 32 KiB of workgroup
 * storage, 12 storage buffers per stage), pointing the Vulkan loader at its ICD unless
 * VK_ICD_FILENAMES already names one. The loader reads the variable when Dawn creates its
 * instance, so setting it here, before the first openGpu, is early enough.
 */
export function testBackend(env: NodeJS.ProcessEnv = process.env, icd = SWIFTSHADER_ICD): BackendChoice | undefined {
  const requested = env.ARGONAUT_BACKEND || undefined;
  if (requested !== 'swiftshader') return requested as BackendChoice | undefined;
  if (!env.VK_ICD_FILENAMES) {
    if (!existsSync(icd)) throw new Error(`ARGONAUT_BACKEND=swiftshader: ${icd} is missing (apt-get install chromium, or set VK_ICD_FILENAMES to SwiftShader's vk_swiftshader_icd.json)`);
    env.VK_ICD_FILENAMES = icd;
  }
  return 'vulkan';
}

/** WebGPU's guaranteed limits that size our pipelines (ARGONAUT_TEST_LIMITS=default). */
export const WEBGPU_DEFAULT_TEST_LIMITS = { maxComputeWorkgroupStorageSize: 16384, maxStorageBuffersPerShaderStage: 8 } as const;

/**
 * Limits requested below the adapter's, from ARGONAUT_TEST_LIMITS: `default` (WebGPU's 16 KiB of
 * workgroup storage, 8 storage buffers per stage) or `name=value,...` (e.g.
 * maxComputeWorkgroupStorageSize=16384 alone, while storage buffers are still over 8 in places).
 */
export function testLimits(env: NodeJS.ProcessEnv = process.env): Record<string, number> | undefined {
  const spec = env.ARGONAUT_TEST_LIMITS?.trim();
  if (!spec) return undefined;
  if (spec === 'default') return { ...WEBGPU_DEFAULT_TEST_LIMITS };
  const limits: Record<string, number> = {};
  for (const part of spec.split(',')) {
    const [name, value] = part.split('=');
    if (!/^[a-zA-Z]+$/.test(name ?? '') || !/^\d+$/.test(value ?? '')) throw new Error(`ARGONAUT_TEST_LIMITS: "${part}" is not name=integer (or the whole value "default")`);
    limits[name] = Number(value);
  }
  return limits;
}

/**
 * One GPU context per test file (per process). Tests run on whatever adapter this machine has:
 * llvmpipe here and in CI, the H200 through the GPU runner, SwiftShader with
 * ARGONAUT_BACKEND=swiftshader, limits lowered with ARGONAUT_TEST_LIMITS (docs/gpu-machine.md).
 */
export function testGpu(): Promise<GpuContext> {
  shared ??= openGpu({ backend: testBackend(), kernelVariant: 'auto', limits: testLimits() });
  return shared;
}

/** The capability variants this device can run: always 'portable', plus 'subgroup' when present. */
export function variantsOf(ctx: GpuContext): KernelVariant[] {
  return ctx.hasSubgroups ? ['portable', 'subgroup'] : ['portable'];
}

/**
 * Whether this run is one of npm test's second passes on another adapter (SwiftShader, lowered
 * limits): the slow suites then take a few cases that still reach every pipeline.
 */
export function isSecondAdapterRun(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.ARGONAUT_BACKEND || env.ARGONAUT_TEST_LIMITS);
}
