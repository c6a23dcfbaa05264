import { describe, expect, it, vi } from 'vitest';
import { chooseVariant, GpuContext, openGpu } from '../../../../main/engine/gpu/context.js';
import { backendOrder, noGpuMessage } from '../../../../main/engine/gpu/adapter.js';
import { KernelRegistry } from '../../../../main/engine/gpu/kernels.js';
import type { GpuInfo } from '../../../../shared/contract/gpu.js';
import { testGpu } from '../../../helpers/gpu.js';

const info: GpuInfo = {
  backend: 'vulkan', featureLevel: 'core',
  adapter: { name: 'fake', vendor: '', architecture: '', description: '', software: false },
  features: [], limits: {}, subgroupMinSize: 0, subgroupMaxSize: 0, variant: 'portable', variantForced: false,
};

describe('GPU context', () => {
  it('prefers the native backend and falls back to OpenGL on Linux', () => {
    expect(backendOrder('linux', 'auto')).toEqual(['vulkan', 'opengl']);
    expect(backendOrder('darwin', 'auto')).toEqual(['metal']);
    expect(backendOrder('win32', 'auto')).toEqual(['d3d12', 'vulkan']);
    expect(backendOrder('linux', 'opengl')).toEqual(['opengl']);
    expect(noGpuMessage('linux', ['vulkan: no adapter'])).toMatch(/apt-get install libegl1 libegl-mesa0 libgl1-mesa-dri/);
  });

  it('chooses the subgroup variant only where subgroups exist, and can be forced', () => {
    expect(chooseVariant(true, 'auto')).toEqual({ variant: 'subgroup', forced: false });
    expect(chooseVariant(false, 'auto')).toEqual({ variant: 'portable', forced: false });
    expect(chooseVariant(true, 'portable')).toEqual({ variant: 'portable', forced: true });
    expect(() => chooseVariant(false, 'subgroup')).toThrow(/no subgroups feature/);
  });

  it('surfaces a device loss as an event, but not its own destroy()', async () => {
    let lose!: (v: { reason: string; message: string }) => void;
    const lost = new Promise<{ reason: string; message: string }>((r) => (lose = r));
    const device = { lost, destroy: vi.fn() } as unknown as GPUDevice;
    const ctx = new GpuContext(device, info, 'off', {} as GPU);
    const seen: unknown[] = [];
    ctx.onLost((i) => seen.push(i));
    lose({ reason: 'unknown', message: 'driver reset' });
    await new Promise((r) => setTimeout(r, 0));
    expect(seen).toEqual([{ reason: 'unknown', message: 'driver reset' }]);
    expect(ctx.isLost).toBe(true);

    let lose2!: (v: { reason: string; message: string }) => void;
    const ctx2 = new GpuContext({ lost: new Promise((r) => (lose2 = r)), destroy: () => lose2({ reason: 'destroyed', message: '' }) } as unknown as GPUDevice, info, 'off', {} as GPU);
    const seen2: unknown[] = [];
    ctx2.onLost((i) => seen2.push(i));
    ctx2.destroy();
    await new Promise((r) => setTimeout(r, 0));
    expect(seen2).toEqual([]);
  });
});

describe('kernel registry', () => {
  it('compiles once per configuration and caches', async () => {
    const ctx = await testGpu();
    const registry = new KernelRegistry(ctx.device, 'portable');
    const a = registry.get({ kernel: 'scan', entryPoint: 'scan_blocks', constants: { WG: 64, ITEMS: 2 } });
    const b = registry.get({ kernel: 'scan', entryPoint: 'scan_blocks', constants: { ITEMS: 2, WG: 64 } });
    const c = registry.get({ kernel: 'scan', entryPoint: 'scan_blocks', constants: { WG: 128, ITEMS: 2 } });
    expect(a).toBe(b);
    expect(c).not.toBe(a);
    expect((await a).constants).toEqual({ WG: 64, ITEMS: 2 });
    expect(registry.cachedCount).toBe(2);
  });

  it('reports WGSL compile errors with the kernel and line', async () => {
    const ctx = await testGpu();
    const registry = new KernelRegistry(ctx.device, 'portable', { broken: '@compute @workgroup_size(1) fn main() {\n  let x: u32 = 1.5;\n}' });
    await expect(registry.get({ kernel: 'broken', entryPoint: 'main' })).rejects.toThrow(/kernel broken:main.*failed to compile[\s\S]*2:/);
  });
});

describe('Dawn toggles', async () => {
  const { dawnToggles } = await import('../../../../main/engine/gpu/context.js');
  it('skips validation and robustness only when asked not to validate, and keeps exact timestamps when profiling', () => {
    expect(dawnToggles(false, true)).toEqual([]);
    expect(dawnToggles(false, false)).toEqual(['enable-dawn-features=skip_validation,disable_robustness']);
    expect(dawnToggles(true, true)).toEqual(['disable-dawn-features=timestamp_quantization']);
  });
  it('validates under tests by default', () => {
    expect(dawnToggles(false)).toEqual([]);
  });

  it('opens a device with limits lowered below the adapter\'s, and names a limit it does not know', async () => {
    // WebGPU's default (Dawn never gives less); llvmpipe offers 32 KiB, the H200 48
    const ctx = await openGpu({ validate: true, limits: { maxComputeWorkgroupStorageSize: 16384 } });
    try {
      expect(ctx.device.limits.maxComputeWorkgroupStorageSize).toBe(16384);
      expect(ctx.info.limits.maxComputeWorkgroupStorageSize).toBe(16384);
    } finally {
      ctx.destroy();
    }
    await expect(openGpu({ limits: { maxWorkgroupStorage: 1 } })).rejects.toThrow('limit maxWorkgroupStorage is not one of this adapter');
  });
});
