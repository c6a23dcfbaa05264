import { describe, expect, it } from 'vitest';
import { writeRange } from '../../../../main/engine/gpu/buffers.js';
import { GpuSplats } from '../../../../main/engine/render/gpu-splats.js';
import { Adam } from '../../../../main/engine/train/adam.js';
import { Model } from '../../../../main/engine/train/model.js';
import { emptySplats } from '../../../../shared/scene/splats.js';
import { testGpu } from '../../../helpers/gpu.js';

async function model(count: number, capacity: number) {
  const ctx = await testGpu();
  const s = emptySplats(count, 1);
  for (const [key, values] of Object.entries({ means: s.means, logScales: s.logScales, quats: s.quats, opacityLogits: s.opacityLogits, sh: s.sh })) {
    for (let i = 0; i < values.length; i++) values[i] = key.length + i / 8;
  }
  const adam = await Adam.create(ctx);
  return { ctx, adam, model: new Model(GpuSplats.fromHost(ctx, s, capacity, 'model'), adam, ctx) };
}

describe('the training model', () => {
  it('moves parameters and moments to a larger capacity unchanged (planar SH included)', async () => {
    const { ctx, adam, model: small } = await model(5, 8);
    for (const g of Object.values(small.groups)) writeRange(ctx.device, g.m, new Float32Array(g.m.size / 4).map((_, i) => i + g.stride));
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
