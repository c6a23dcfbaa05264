import { describe, expect, it } from 'vitest';
import { createStorage, readBuffer, uploadStorage } from '../../../../main/engine/gpu/buffers.js';
import { Adam } from '../../../../main/engine/train/adam.js';
import { GpuArena } from '../../../../main/engine/gpu/arena.js';
import { testGpu } from '../../../helpers/gpu.js';
import { freshSeed, rng } from '../../../helpers/random.js';
import { relativeL2 } from '../../../parity/loss.parity.js';
import { unpackBf16Planar } from '../../../../main/engine/train/bf16-moments.js';
import { adamBf16Reference, adamReference, bf16Nearest } from '../../../reference/adam.js';

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

describe('fused Adam with bf16 moments (planar groups)', () => {
  it('matches the float64 reference that rounds the moments as the kernel does, over several steps (an odd stride: the last pair half empty)', async () => {
    const ctx = await testGpu();
    const seed = freshSeed();
    const random = rng(seed);
    const stride = 27; // SH degree 2: 9 coefficients x 3 channels
    const head = 3;
    const plane = 300;
    const count = 271;
    const p0 = Array.from({ length: plane * stride }, () => random() - 0.5);
    const grads = Array.from({ length: 6 }, () => Array.from({ length: plane * stride }, () => (random() - 0.5) * 3));
    const adam = await Adam.create(ctx);
    const param = uploadStorage(ctx.device, 'p', new Float32Array(p0));
    const grad = createStorage(ctx.device, 'g', plane * stride * 4);
    const counts = uploadStorage(ctx.device, 'n', new Uint32Array([count, 0, 0, 0]));
    const group = adam.createGroup('sh', param, grad, counts, stride, head, undefined, plane, 'bf16');
    expect(group.m.size).toBe(plane * 14 * 4); // ceil(27 / 2) words a splat
    for (const b of [group.m, group.v]) ctx.device.queue.writeBuffer(b.buffer, b.offset, new Uint32Array(b.size / 4));
    for (let t = 0; t < grads.length; t++) {
      ctx.device.queue.writeBuffer(grad, 0, new Float32Array(grads[t]));
      const commands = ctx.commands('adam');
      adam.encode(commands, group, plane, t + 1, 0.01, 0.0005);
      await commands.submit();
    }
    const got = new Float32Array(await readBuffer(ctx.device, param, plane * stride * 4));
    const want = adamBf16Reference(p0, grads, 0.01, 0.0005, stride, head, count, plane);
    const delta = (values: ArrayLike<number>) => Array.from(values, (x, i) => x - p0[i]);
    expect(relativeL2(delta(got), delta(want.param)), `seed ${seed}`).toBeLessThan(1e-3);
    for (const part of ['m', 'v'] as const) {
      const moments = unpackBf16Planar(new Uint32Array(await readBuffer(ctx.device, group[part], group[part].size)), stride, plane);
      expect(relativeL2(Array.from(moments), want[part]), `${part}, seed ${seed}`).toBeLessThan(1e-2);
      // the splats past the count keep zero moments, the upper half of the last pair stays empty
      for (let lane = 0; lane < stride; lane++) for (let s = count; s < plane; s++) expect(moments[lane * plane + s]).toBe(0);
    }
    const words = new Uint32Array(await readBuffer(ctx.device, group.v, group.v.size));
    for (let s = 0; s < count; s++) expect(words[13 * plane + s] >>> 16, `splat ${s}`).toBe(0);
    for (let i = count; i < plane; i++) expect(got[i]).toBe(Math.fround(p0[i]));
  });

  it('lets v decay under a zero gradient (stochastic rounding: 0.999 v is within half a bf16 step of v)', async () => {
    const ctx = await testGpu();
    const plane = 4096;
    const adam = await Adam.create(ctx);
    const param = createStorage(ctx.device, 'p', plane * 2 * 4);
    const grad = uploadStorage(ctx.device, 'g', new Float32Array(plane * 2).fill(1));
    const counts = uploadStorage(ctx.device, 'n', new Uint32Array([plane, 0, 0, 0]));
    const group = adam.createGroup('sh', param, grad, counts, 2, 2, undefined, plane, 'bf16');
    const steps = 300;
    for (let t = 1; t <= steps; t++) {
      const commands = ctx.commands('adam');
      adam.encode(commands, group, plane, t, 1e-4);
      if (t === 1) commands.clearBuffer(grad);
      await commands.submit();
    }
    const v = unpackBf16Planar(new Uint32Array(await readBuffer(ctx.device, group.v, group.v.size)), 2, plane);
    const mean = v.reduce((sum, x) => sum + x, 0) / v.length;
    // float64: 0.001 x 0.999^299; nearest rounding would leave every v at bf16(0.001)
    const want = 0.001 * 0.999 ** (steps - 1);
    expect(Math.abs(mean / want - 1)).toBeLessThan(0.01);
  });

  it('skips a non-finite value and updates the other value of its pair', async () => {
    const ctx = await testGpu();
    const adam = await Adam.create(ctx);
    const param = uploadStorage(ctx.device, 'p', new Float32Array([1, 2, 3, 4]));
    const grad = uploadStorage(ctx.device, 'g', new Float32Array([NaN, 1, 1, Infinity])); // planar: lane 0 = [1, 2], lane 1 = [3, 4]
    const counts = uploadStorage(ctx.device, 'n', new Uint32Array([2, 0, 0, 0]));
    const group = adam.createGroup('sh', param, grad, counts, 2, 2, undefined, 2, 'bf16');
    const commands = ctx.commands('adam');
    adam.encode(commands, group, 2, 1, 0.1);
    await commands.submit();
    const p = new Float32Array(await readBuffer(ctx.device, param, 16));
    expect(p[0]).toBe(1);
    expect(p[3]).toBe(4);
    expect(p[1]).toBeCloseTo(1.9, 5);
    expect(p[2]).toBeCloseTo(2.9, 5);
    expect(new Uint32Array(await readBuffer(ctx.device, adam.flags, 16))[0]).toBe(2);
    const m = unpackBf16Planar(new Uint32Array(await readBuffer(ctx.device, group.m, 8)), 2, 2);
    expect(Array.from(m)).toEqual([0, bf16Nearest(0.1), bf16Nearest(0.1), 0]); // where updated (0.10009765625), 0 where skipped
  });

  it.each([3, 4, 1])('keeps an interleaved group\'s bf16 moments in planar words, each splat its own (stride %i): the float64 reference, sparse', async (stride) => {
    const ctx = await testGpu();
    const seed = freshSeed();
    const random = rng(seed);
    const [capacity, count] = [300, 277];
    const p0 = Array.from({ length: capacity * stride }, () => random() - 0.5);
    const grads = Array.from({ length: 4 }, () => Array.from({ length: capacity * stride }, () => (random() - 0.5) * 2));
    const visible = Array.from({ length: 4 }, () => Uint32Array.from({ length: capacity }, () => (random() < 0.7 ? 1 : 0)));
    const adam = await Adam.create(ctx);
    const param = uploadStorage(ctx.device, 'p', new Float32Array(p0));
    const grad = createStorage(ctx.device, 'g', capacity * stride * 4);
    const flags = createStorage(ctx.device, 'visible', capacity * 4);
    const counts = uploadStorage(ctx.device, 'n', new Uint32Array([count, 0, 0, 0]));
    const group = adam.createGroup('means', param, grad, counts, stride, stride, undefined, 0, 'bf16');
    expect([group.momentPlane, group.m.size]).toEqual([capacity, Math.max(16, capacity * Math.ceil(stride / 2) * 4)]);
    for (let t = 0; t < grads.length; t++) {
      ctx.device.queue.writeBuffer(grad, 0, new Float32Array(grads[t]));
      ctx.device.queue.writeBuffer(flags, 0, visible[t]);
      const commands = ctx.commands('adam');
      adam.encode(commands, group, capacity, t + 1, 0.01, 0.01, 0, { visible: flags });
      await commands.submit();
    }
    // the reference takes planar values: value `lane` of splat s at lane * capacity + s
    const planar = (aos: ArrayLike<number>) => Array.from({ length: capacity * stride }, (_, i) => aos[(i % capacity) * stride + Math.floor(i / capacity)]);
    const want = adamBf16Reference(planar(p0), grads.map(planar), 0.01, 0.01, stride, stride, count, capacity, (step, _lane, s) => visible[step][s] !== 0);
    const got = planar(new Float32Array(await readBuffer(ctx.device, param, capacity * stride * 4)));
    const p = planar(p0);
    expect(relativeL2(got.map((x, i) => x - p[i]), want.param.map((x, i) => x - p[i])), `seed ${seed}`).toBeLessThan(1e-3);
    for (const part of ['m', 'v'] as const) {
      const moments = unpackBf16Planar(new Uint32Array(await readBuffer(ctx.device, group[part], group[part].size)), stride, capacity);
      // exactly the reference's roundings where it took the same steps
      expect(relativeL2(Array.from(moments), want[part]), `${part}, seed ${seed}`).toBeLessThan(1e-2);
      for (let lane = 0; lane < stride; lane++) for (let s = count; s < capacity; s++) expect(moments[lane * capacity + s]).toBe(0);
    }
    // splats no step saw, and those past the count, are as they were
    for (let s = 0; s < capacity; s++) {
      if (s < count && visible.some((v) => v[s])) continue;
      for (let lane = 0; lane < stride; lane++) expect(got[lane * capacity + s]).toBe(Math.fround(p[lane * capacity + s]));
    }
  });

  it('refuses bf16 moments in an arena the group does not own', async () => {
    const ctx = await testGpu();
    const adam = await Adam.create(ctx);
    const b = createStorage(ctx.device, 'p', 48);
    const shared = new GpuArena(ctx.device, 'moments', 'shared', { m: 48, v: 48 });
    expect(() => adam.createGroup('means', b, b, b, 3, 3, shared, 0, 'bf16')).toThrow(/adam\.means: bf16 moments need a group with its own moments/);
  });
});

describe('fused Adam on part of a group', () => {
  it.each(['f32', 'bf16'] as const)('updates only the visible splats (sparse) and, between full steps, only the first lanes (moments %s)', async (precision) => {
    const ctx = await testGpu();
    const seed = freshSeed();
    const random = rng(seed);
    const stride = 12;
    const head = 3; // lane 3 shares its bf16 word with lane 2: a word half updated
    const plane = 200;
    const count = 181;
    const p0 = Array.from({ length: plane * stride }, () => random() - 0.5);
    const grads = Array.from({ length: 4 }, () => Array.from({ length: plane * stride }, () => (random() - 0.5) * 3));
    const visible = Array.from({ length: 4 }, () => Array.from({ length: plane }, () => (random() < 0.5 ? 1 : 0)));
    const lanes = [stride, head, head, stride]; // SH bands every 3 steps
    const adam = await Adam.create(ctx);
    const param = uploadStorage(ctx.device, 'p', new Float32Array(p0));
    const grad = createStorage(ctx.device, 'g', plane * stride * 4);
    const flags = createStorage(ctx.device, 'visible', plane * 4);
    const counts = uploadStorage(ctx.device, 'n', new Uint32Array([count, 0, 0, 0]));
    const group = adam.createGroup('sh', param, grad, counts, stride, head, undefined, plane, precision);
    for (let t = 0; t < grads.length; t++) {
      ctx.device.queue.writeBuffer(grad, 0, new Float32Array(grads[t]));
      ctx.device.queue.writeBuffer(flags, 0, new Uint32Array(visible[t]));
      const commands = ctx.commands('adam');
      adam.encode(commands, group, plane, t + 1, 0.01, 0.0005, 0, { visible: flags, lanes: lanes[t] });
      await commands.submit();
    }
    const got = new Float32Array(await readBuffer(ctx.device, param, plane * stride * 4));
    const updates = (step: number, lane: number, s: number) => visible[step][s] !== 0 && lane < lanes[step];
    const want = adamBf16Reference(p0, grads, 0.01, 0.0005, stride, head, count, plane, updates, precision === 'bf16');
    const delta = (values: ArrayLike<number>) => Array.from(values, (x, i) => x - p0[i]);
    expect(relativeL2(delta(got), delta(want.param)), `seed ${seed}`).toBeLessThan(precision === 'bf16' ? 1e-3 : 1e-4);
    // a value no step updated is exactly as it was
    for (let lane = 0; lane < stride; lane++) {
      for (let s = 0; s < plane; s++) {
        if (s < count && [0, 1, 2, 3].some((step) => updates(step, lane, s))) continue;
        expect(got[lane * plane + s], `lane ${lane} splat ${s}`).toBe(Math.fround(p0[lane * plane + s]));
      }
    }
  });
});
