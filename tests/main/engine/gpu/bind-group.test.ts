import { describe, expect, it } from 'vitest';
import { bindGroup } from '../../../../main/engine/gpu/buffers.js';
import { testGpu } from '../../../helpers/gpu.js';
import { GpuSplats } from '../../../../main/engine/render/gpu-splats.js';
import { emptySplats } from '../../../../shared/scene/splats.js';

describe('bindGroup with a compiled kernel pipeline', async () => {
  const ctx = await testGpu();
  it("binds only what the entry point uses, so one entries list serves a kernel's entry points", async () => {
    const { device } = ctx;
    const forward = await ctx.kernels.get({ kernel: 'rasterize', entryPoint: 'rasterize_forward', variant: 'portable' });
    const backward = await ctx.kernels.get({ kernel: 'rasterize', entryPoint: 'rasterize_backward', variant: 'portable', constants: { BATCH_B: 64 } });
    const extra = [...backward.bindings].filter((b) => !forward.bindings.has(b));
    expect(extra.length).toBeGreaterThan(0); // the backward's gradients are no forward binding
    const buffers = new Map<number, GPUBuffer>();
    for (const b of new Set([...forward.bindings, ...backward.bindings])) buffers.set(b, device.createBuffer({ size: 1 << 16, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.UNIFORM }));
    const entries = Object.fromEntries(buffers);
    device.pushErrorScope('validation');
    bindGroup(device, forward, entries);
    expect(await device.popErrorScope()).toBeNull();
    // the raw pipeline gets every entry, and the layout refuses the ones it does not hold
    device.pushErrorScope('validation');
    bindGroup(device, forward.pipeline, entries);
    expect(await device.popErrorScope()).not.toBeNull();
    for (const b of buffers.values()) b.destroy();
  });

  it('a packed entry point binds its arena up to the end of the members it uses, so an unused large last member (SH) does not count against the binding limit', async () => {
    const { device } = ctx;
    // inject_noise reads and writes members of splat_params (packed on every device) and never touches the SH
    const noise = await ctx.kernels.get({ kernel: 'mcmc', entryPoint: 'inject_noise', constants: { WG: 256 } });
    const pack = noise.packs.find((p) => p.kind === 'splat_params')!;
    expect(pack).toBeDefined();
    const splats = GpuSplats.fromHost(ctx, emptySplats(0, 3), 4096);
    const prefixEnd = splats.opacityLogits.offset + splats.opacityLogits.size;
    expect(splats.arena.size).toBeGreaterThan(4 * prefixEnd); // SH is most of the arena
    const plain = new Map<number, GPUBuffer>();
    const entries: Record<number, GPUBuffer | typeof splats.means> = {};
    for (const b of noise.bindings) if (!pack.memberBindings.includes(b) && b !== pack.binding && b !== pack.layoutBinding) plain.set(b, (entries[b] = device.createBuffer({ size: 1 << 16, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.UNIFORM })));
    for (const b of pack.memberBindings) entries[b] = splats.opacityLogits;
    // the device with a lower binding limit (what bindGroup reads); its methods called on the real one
    const limited = (bytes: number) => ({ limits: { maxStorageBufferBindingSize: bytes }, createBindGroup: (d: GPUBindGroupDescriptor) => device.createBindGroup(d) }) as unknown as GPUDevice;
    device.pushErrorScope('validation');
    bindGroup(limited(prefixEnd), noise, entries);
    expect(await device.popErrorScope()).toBeNull();
    expect(() => bindGroup(limited(prefixEnd - 256), noise, entries)).toThrow(`arena splats is bound over ${prefixEnd} bytes, over this device's ${prefixEnd - 256}-byte binding limit`);
    for (const b of plain.values()) b.destroy();
    splats.destroy();
  });
});
