import { describe, expect, it } from 'vitest';
import type { GpuInfo } from '../../../../shared/contract/gpu.js';
import { KernelRegistry } from '../../../../main/engine/gpu/kernels.js';
import { kernelPlan, measureKernelPlan } from '../../../../main/engine/render/kernel-plan.js';

// SwiftShader's Vulkan adapter as issue 13 found it: 4-lane subgroups, 32 KiB, 12 storage buffers.
const swiftShader: GpuInfo = {
  backend: 'vulkan', featureLevel: 'core', adapter: { name: 'SwiftShader Device', vendor: 'google', architecture: '', description: '', software: true },
  features: ['subgroups'], subgroupMinSize: 4, subgroupMaxSize: 4, variant: 'subgroup', variantForced: false,
  limits: { maxComputeWorkgroupStorageSize: 32768, maxStorageBuffersPerShaderStage: 12, maxComputeInvocationsPerWorkgroup: 256 },
};
// source() only preprocesses WGSL: no device needed
const kernels = new KernelRegistry(undefined as never, 'subgroup');

describe('kernel plan: what each family gets on a device, and whether it fits', () => {
  it("flags the subgroup backward of issue 13 on SwiftShader (2 px, 32 subgroups: ~38 KB > 32 KiB) and says why it has 32 subgroup slots", () => {
    const plan = measureKernelPlan(kernelPlan(swiftShader, { backwardReduce: 'partials', backwardPixels: 2 }), kernels, swiftShader.limits);
    const backward = plan.find((f) => f.family.startsWith('rasterize backward'))!;
    expect(backward.constants).toEqual({ BATCH_B: 24, PPT: 2, MAX_SUBGROUPS: 32 });
    expect(backward.reason).toContain('MAX_SUBGROUPS 32 = 256 / 2 px / 4 lanes');
    // Dawn reported 37,968 B; the WGSL reading comes within 64 B of it
    expect(Math.abs(backward.needs.workgroupStorageBytes - 37968)).toBeLessThan(64);
    expect(backward.fits).toBe(false);
    expect(backward.overLimits).toMatch(/workgroup storage \d+ B > 32768 B/);
    // everything else fits: render and mesh run there
    expect(plan.filter((f) => !f.fits).map((f) => f.family)).toEqual(['rasterize backward (train)']);
  });

  it('every family fits a 48 KiB device (the H200 class) with 32-lane subgroups', () => {
    const h200: GpuInfo = { ...swiftShader, subgroupMinSize: 32, subgroupMaxSize: 32, limits: { ...swiftShader.limits, maxComputeWorkgroupStorageSize: 49152, maxComputeInvocationsPerWorkgroup: 1024 } };
    const plan = measureKernelPlan(kernelPlan(h200, { backwardReduce: 'partials', backwardPixels: 1 }), kernels, h200.limits);
    expect(plan.filter((f) => !f.fits).map((f) => `${f.family}: ${f.overLimits}`)).toEqual([]);
    expect(plan.map((f) => f.family)).toEqual(['project', 'intersect', 'scan', 'radix-sort', 'rasterize forward', 'rasterize backward (train)', 'gather']);
  });
});
