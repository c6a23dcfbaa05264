import { describe, expect, it } from 'vitest';
import { createStorage, readBuffer, uploadStorage } from '../../../../main/engine/gpu/buffers.js';
import { Adam } from '../../../../main/engine/train/adam.js';
import { testGpu } from '../../../helpers/gpu.js';
import { freshSeed, rng } from '../../../helpers/random.js';
import { relativeL2 } from '../../../parity/loss.parity.js';
import { adamReference } from '../../../reference/adam.js';

describe('fused Adam kernel', () => {
  it('matches the reference over several steps, with per-element learning rates and the GPU count', async () => {
    const ctx = await testGpu();
    const seed = freshSeed();
    const random = rng(seed);
    const stride = 12; // like SH degree 1: 4 coefficients x 3 channels
    const head = 3;
    const capacity = 700;
    const count = 613;
    const p0 = Array.from({ length: capacity * stride }, () => random() - 0.5);
    const grads = Array.from({ length: 5 }, () => Array.from({ length: capacity * stride }, () => (random() - 0.5) * 3));
    const adam = await Adam.create(ctx);
    const param = uploadStorage(ctx.device, 'p', new Float32Array(p0));
    const grad = createStorage(ctx.device, 'g', capacity * stride * 4);
    const counts = uploadStorage(ctx.device, 'n', new Uint32Array([0, count, 0, 0]));
    const group = adam.createGroup('test', param, grad, counts, stride, head);
    for (let s = 0; s < grads.length; s++) {
      ctx.device.queue.writeBuffer(grad, 0, new Float32Array(grads[s]));
      const commands = ctx.commands('adam');
      adam.encode(commands, group, capacity, s + 1, 0.01, 0.0005, 1);
      await commands.submit();
    }
    const got = new Float32Array(await readBuffer(ctx.device, param, capacity * stride * 4));
    const want = adamReference(p0, grads, 0.01, 0.0005, stride, head, count);
    const deltaGot = [...got].map((x, i) => x - p0[i]);
    const deltaWant = want.map((x, i) => x - p0[i]);
    expect(relativeL2(deltaGot, deltaWant), `seed ${seed}`).toBeLessThan(1e-4);
    expect(new Uint32Array(await readBuffer(ctx.device, adam.flags, 16))[0]).toBe(0);
    // splats past the count are untouched
    for (let i = count * stride; i < capacity * stride; i++) expect(got[i]).toBe(Math.fround(p0[i]));
  });
});

describe('fused Adam guards against non-finite gradients', () => {
  it('skips NaN and Inf gradient elements, counts them, and updates the rest', async () => {
    const ctx = await testGpu();
    const adam = await Adam.create(ctx);
    const param = uploadStorage(ctx.device, 'p', new Float32Array([1, 2, 3, 4]));
    const grad = uploadStorage(ctx.device, 'g', new Float32Array([NaN, 1, Infinity, -1]));
    const counts = uploadStorage(ctx.device, 'n', new Uint32Array([4, 0, 0, 0]));
    const group = adam.createGroup('guard', param, grad, counts);
    const commands = ctx.commands('adam');
    adam.encode(commands, group, 4, 1, 0.1);
    await commands.submit();
    const p = new Float32Array(await readBuffer(ctx.device, param, 16));
    expect(p[0]).toBe(1);
    expect(p[2]).toBe(3);
    expect(p[1]).toBeCloseTo(1.9, 5);
    expect(p[3]).toBeCloseTo(4.1, 5);
    expect(new Uint32Array(await readBuffer(ctx.device, adam.flags, 16))[0]).toBe(2);
    const m = new Float32Array(await readBuffer(ctx.device, group.m, 16));
    expect(Number.isFinite(m[0]) && Number.isFinite(m[2])).toBe(true);
  });
});
