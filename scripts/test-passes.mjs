// The vitest passes of `npm test` (scripts/test.mjs), read by vitest.config.ts when
// ARGONAUT_TEST_PASSES=all: the whole suite on this machine's adapter, and the kernels' parity once
// more on other adapters than this machine's own (issue 13; docs/device-matrix.md): SwiftShader's
// Vulkan driver (subgroups of 4, 32 KiB, 12 storage buffers per stage: both variants), and
// llvmpipe with WebGPU's default limits (16 KiB of workgroup storage, 8 storage buffers per stage:
// the packed kernels). The rasterizer's file takes two cases there that reach every pipeline
// (tests/helpers/gpu.ts isSecondAdapterRun).

/** Where Debian's chromium-common puts SwiftShader's Vulkan driver (tests/helpers/gpu.ts has the same path). */
export const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

/** The project of the whole suite on this machine's adapter. */
export const THIS_ADAPTER = 'this-adapter';

export const SECOND_ADAPTER_PASSES = [
  {
    name: 'swiftshader',
    env: { ARGONAUT_BACKEND: 'swiftshader' },
    files: ['tests/main/engine/gpu/scan.test.ts', 'tests/main/engine/gpu/radix-sort.test.ts', 'tests/main/engine/mesh/kernels.test.ts', 'tests/main/engine/train/loss.test.ts', 'tests/main/engine/render/rasterizer.test.ts'],
  },
  {
    name: 'default-limits',
    env: { ARGONAUT_TEST_LIMITS: 'default' },
    files: ['tests/main/engine/gpu/scan.test.ts', 'tests/main/engine/gpu/radix-sort.test.ts', 'tests/main/engine/mesh/kernels.test.ts', 'tests/main/engine/mesh/ray-depth.test.ts', 'tests/main/engine/train/loss.test.ts', 'tests/main/engine/render/rasterizer.test.ts'],
  },
];
