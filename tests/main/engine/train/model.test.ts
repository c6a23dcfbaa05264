import { describe, expect, it } from 'vitest';
import { writeRange } from '../../../../main/engine/gpu/buffers.js';
import { GpuSplats } from '../../../../main/engine/render/gpu-splats.js';
import { Adam } from '../../../../main/engine/train/adam.js';
import { bf16Nearest } from '../../../reference/adam.js';
import { Model, type ModelMomentsPrecision } from '../../../../main/engine/train/model.js';
import { emptySplats } from '../../../../shared/scene/splats.js';
import { testGpu } from '../../../helpers/gpu.js';

async function model(count: number, capacity: number, precision: ModelMomentsPrecision = 'f32') {
  const ctx = await testGpu();
  const s = emptySplats(count, 1);
  for (const [key, values] of Object.entries({ means: s.means, logScales: s.logScales, quats: s.quats, opacityLogits: s.opacityLogits, sh: s.sh })) {
    for (let i = 0; i < values.length; i++) values[i] = key.length + i / 8;
  }
  const adam = await Adam.create(ctx);
  return { ctx, adam, model: new Model(GpuSplats.fromHost(ctx, s, capacity, 'model'), adam, ctx, precision) };
}

describe('the training model', () => {
  it.each(['f32', 'bf16', 'bf16-all'] as const)('moves parameters and moments to a larger capacity unchanged (planar SH included; moments %s)', async (precision) => {
    const { ctx, adam, model: small } = await model(5, 8, precision);
    // (as bits: a bf16 pair is a u32 word; any word pattern must move unchanged)
    for (const g of Object.values(small.groups)) writeRange(ctx.device, g.m, new Uint32Array(g.m.size / 4).map((_, i) => 0x3f80_0000 + (i + g.stride) * 0x0001_0001));
    const before = await small.checkpointBlobs(ctx.device, 5);
    const commands = ctx.commands('resize');
    const large = small.resized(commands, ctx, adam, 40, 5);
    await commands.submit();
    expect(large.capacity).toBe(40);
    const after = await large.checkpointBlobs(ctx.device, 5);
    expect(after.map((b) => b.name)).toEqual(before.map((b) => b.name));
    for (const [i, blob] of after.entries()) expect(Buffer.from(blob.data).equals(Buffer.from(before[i].data)), blob.name).toBe(true);
    expect(before.find((b) => b.name === 'sh.m')!.data.some((v) => v !== 0)).toBe(true);
    small.destroy();
    large.destroy();
  });

  it.each(['bf16', 'bf16-all'] as const)('keeps f32 moments in checkpoints: a checkpoint of f32 moments resumes into %s moments (rounded to the nearest) and back', async (precision) => {
    const { ctx, model: f32 } = await model(5, 8);
    const values = (g: { m: { size: number }; stride: number }) => new Float32Array(8 * g.stride).map((_, i) => (i % 2 ? -1 : 1) * (0.1 + i / 7));
    for (const g of Object.values(f32.groups)) {
      writeRange(ctx.device, g.m, values(g));
      writeRange(ctx.device, g.v, values(g).map(Math.abs));
    }
    const written = await f32.checkpointBlobs(ctx.device, 5);
    const blob = (from: typeof written) => (name: string, floats: number) => {
      const data = from.find((b) => b.name === name)!.data;
      expect(data.byteLength, name).toBe(floats * 4);
      return new Float32Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
    };
    const { model: bf16 } = await model(5, 16, precision);
    expect(bf16.groups.sh.m.size).toBe(16 * 6 * 4); // SH degree 1: 12 values, 6 words a splat
    // bf16-all: quaternions 2 words a splat, means 2 (the last half empty), opacity 1
    if (precision === 'bf16-all') expect([bf16.groups.quats.m.size, bf16.groups.means.m.size, bf16.groups.opacityLogits.m.size]).toEqual([16 * 2 * 4, 16 * 2 * 4, 16 * 4]);
    bf16.restoreMoments(ctx.device.queue, 5, blob(written));
    const resumed = await bf16.checkpointBlobs(ctx.device, 5);
    for (const part of ['m', 'v']) {
      for (const g of Object.values(bf16.groups)) {
        const before = blob(written)(`${g.name}.${part}`, 5 * g.stride);
        expect(before.some((x) => x !== bf16Nearest(x)), 'the values need rounding').toBe(true);
        // the groups kept in bf16 round to the nearest; the others' stay f32, exactly
        const want = g.momentShift ? Array.from(before, bf16Nearest) : Array.from(before);
        expect(g.momentShift, g.name).toBe(g.name === 'sh' || precision === 'bf16-all' ? 1 : 0);
        expect(Array.from(blob(resumed)(`${g.name}.${part}`, 5 * g.stride)), `${g.name}.${part}`).toEqual(want);
      }
    }
    // and back: bf16 values are f32 values, exactly
    const { model: again } = await model(5, 8);
    again.restoreMoments(ctx.device.queue, 5, blob(resumed));
    const back = await again.checkpointBlobs(ctx.device, 5);
    for (const [i, b] of back.entries()) if (!b.name.endsWith('.param')) expect(Buffer.from(b.data).equals(Buffer.from(resumed[i].data)), b.name).toBe(true);
    for (const m of [f32, bf16, again]) m.destroy();
  });

  it("reports which groups' non-finite counters grew since the last report", async () => {
    const { model: m } = await model(2, 4);
    const slot = (name: keyof typeof m.groups) => 1 + (m.groups[name].index % 7);
    const flags = new Uint32Array(8);
    flags[slot('means')] = 2;
    flags[slot('opacityLogits')] = 1;
    const seen: Record<string, number> = {};
    expect(m.nonFiniteSince(flags, seen)).toEqual(['means 2', 'opacityLogits 1']);
    expect(m.nonFiniteSince(flags, seen)).toEqual([]);
    flags[slot('means')] = 5;
    expect(m.nonFiniteSince(flags, seen)).toEqual(['means 3']);
    m.destroy();
  });
});
