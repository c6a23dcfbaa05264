import { describe, expect, it } from 'vitest';
import { bindGroup } from '../../../../main/engine/gpu/buffers.js';
import { testGpu } from '../../../helpers/gpu.js';

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
});
