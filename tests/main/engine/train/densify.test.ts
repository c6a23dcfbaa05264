import { describe, expect, it } from 'vitest';
import { readBuffer, writeRange } from '../../../../main/engine/gpu/buffers.js';
import { GpuSplats } from '../../../../main/engine/render/gpu-splats.js';
import { Adam } from '../../../../main/engine/train/adam.js';
import { AdcDensifier, ADC_DEFAULTS } from '../../../../main/engine/train/densify-adc.js';
import { emptySplats } from '../../../../shared/scene/splats.js';
import { testGpu } from '../../../helpers/gpu.js';
import { filledMoments, momentsAos, parameterGroups } from '../../../helpers/adam-groups.js';

/**
 * A refine on hand-made statistics: which splats are duplicated, split and pruned, where they
 * land, what their moments become. The reference is written out by hand from gsplat's
 * DefaultStrategy rules.
 */
describe('adaptive density control on the GPU', () => {
  it.each(['f32', 'bf16', 'bf16-all'] as const)('duplicates small high-gradient splats, splits large ones, prunes transparent and huge ones (moments %s)', async (precision) => {
    const ctx = await testGpu();
    const sceneScale = 2;
    const n = 6;
    const s = emptySplats(n, 1);
    const logit = (p: number) => Math.log(p / (1 - p));
    // 0: keep (low gradient); 1: duplicate (high, small); 2: split (high, large);
    // 3: prune (opacity 0.001); 4: split, then pruned as too large (children still > 0.1 x scale); 5: keep
    const scales = [0.01, 0.01, 0.05, 0.01, 0.5, 0.01];
    const opacity = [0.5, 0.5, 0.5, 0.001, 0.5, 0.5];
    for (let i = 0; i < n; i++) {
      s.means.set([i, 0, 0], 3 * i);
      s.logScales.set([Math.log(scales[i]), Math.log(scales[i] * 0.5), Math.log(scales[i] * 0.25)], 3 * i);
      s.quats.set([1, 0, 0, 0], 4 * i);
      s.opacityLogits[i] = logit(opacity[i]);
      for (let k = 0; k < 12; k++) s.sh[12 * i + k] = i * 100 + k;
    }
    const splats = GpuSplats.fromHost(ctx, s, 32);
    const adam = await Adam.create(ctx);
    const groups = parameterGroups(adam, splats, { shStride: 12, precision });
    // moments: recognisable values (7 and 9 are exact in bf16)
    for (const g of Object.values(groups)) for (const [part, value] of [['m', 7], ['v', 9]] as const) writeRange(ctx.device, g[part], filledMoments(g, value));
    const densifier = await AdcDensifier.create(ctx, 32, { ...ADC_DEFAULTS, refineGrowth: 1 }); // growth unlimited here
    const bytesBefore = densifier.bytes;
    // gradient statistics: 2 hits each, average 0.001 (> 0.0002) except splats 0 and 5
    const acc = [0, 0.002, 0.002, 0.002, 0.002, 0.0001];
    ctx.device.queue.writeBuffer(densifier.gradAcc, 0, new Float32Array(acc));
    ctx.device.queue.writeBuffer(densifier.hits, 0, new Uint32Array([2, 2, 2, 2, 2, 2]));
    const commands = ctx.commands('refine');
    densifier.encodeRefine(commands, { step: 4000, seed: 1, sceneScale, grow: true, pruneLarge: true, splatCount: splats.countBuffer, groups });
    await commands.submit();
    const count = new Uint32Array(await readBuffer(ctx.device, splats.countBuffer, 4))[0];
    const out = await splats.download(count);
    // expected order: 0 | 1, 1' | 2a, 2b | (3 pruned) | (4 pruned) | 5
    expect(count).toBe(6);
    const xs = Array.from({ length: count }, (_, i) => out.means[3 * i]);
    expect(xs[0]).toBe(0);
    expect(xs.slice(1, 3)).toEqual([1, 1]);
    expect(xs[5]).toBe(5);
    // split children: moved off the parent by about its scale, scales / 1.6, same colour
    for (const c of [3, 4]) {
      expect(Math.abs(xs[c] - 2)).toBeLessThan(0.05 * 5);
      expect(out.logScales[3 * c]).toBeCloseTo(Math.log(0.05 / 1.6), 5);
      expect(out.sh[12 * c + 5]).toBe(205);
    }
    expect(xs[3]).not.toBe(xs[4]);
    // every SH value moved with its splat: the planes go through the scratch four at a time
    const source = [0, 1, 1, 2, 2, 5];
    expect(Array.from(out.sh.subarray(0, 12 * count))).toEqual(source.flatMap((from) => Array.from({ length: 12 }, (_, k) => from * 100 + k)));
    // moments: kept for originals, zero for the duplicate copy and the split children, in every plane
    const fresh = [7, 7, 0, 0, 0, 7];
    for (const [part, kept] of [['m', 7], ['v', 9]] as const) {
      for (const g of Object.values(groups)) {
        expect(Array.from(await momentsAos(ctx.device, g, part, count)), `${g.name}.${part}`).toEqual(fresh.flatMap((f) => new Array<number>(g.stride).fill(f && kept)));
      }
    }
    // bf16-all: every group's moments in bf16 pairs
    expect(groups.quats.momentShift).toBe(precision === 'bf16-all' ? 1 : 0);
    // the refine's scratch is gone once its work is submitted: the densifier holds what it held before
    expect(densifier.bytes).toBe(bytesBefore);
    // statistics restart after a refine
    expect([...new Float32Array(await readBuffer(ctx.device, densifier.gradAcc, 24))]).toEqual([0, 0, 0, 0, 0, 0]);
  });
});

describe('a refine that would grow more than its room', () => {
  it.each([
    { room: 'the capacity', capacity: 8, refineGrowth: 1, grown: [0, 1] },
    { room: 'refineGrowth x n', capacity: 32, refineGrowth: 0.5, grown: [0, 1, 2] },
  ])('grows the first splats by index into $room, keeps the rest ungrown, and counts them', async ({ capacity, refineGrowth, grown }) => {
    const ctx = await testGpu();
    const n = 6;
    const s = emptySplats(n, 0);
    for (let i = 0; i < n; i++) {
      s.means.set([i, 0, 0], 3 * i);
      s.logScales.set([Math.log(0.01), Math.log(0.01), Math.log(0.01)], 3 * i);
      s.quats.set([1, 0, 0, 0], 4 * i);
      s.opacityLogits[i] = 0; // 0.5
    }
    const splats = GpuSplats.fromHost(ctx, s, capacity);
    const adam = await Adam.create(ctx);
    const c = splats.countBuffer;
    const groups = parameterGroups(adam, splats);
    const densifier = await AdcDensifier.create(ctx, capacity, { ...ADC_DEFAULTS, refineGrowth });
    // every splat small with a high gradient: all six would duplicate (12 > 8; 6 > 0.5 x 6)
    ctx.device.queue.writeBuffer(densifier.gradAcc, 0, new Float32Array(n).fill(0.002));
    ctx.device.queue.writeBuffer(densifier.hits, 0, new Uint32Array(n).fill(2));
    const commands = ctx.commands('refine');
    densifier.encodeRefine(commands, { step: 1000, seed: 1, sceneScale: 2, grow: true, pruneLarge: false, splatCount: c, groups });
    await commands.submit();
    const count = new Uint32Array(await readBuffer(ctx.device, c, 4))[0];
    expect(count).toBe(n + grown.length);
    const out = await splats.download(count);
    expect(Array.from({ length: count }, (_, i) => out.means[3 * i])).toEqual([0, 1, 2, 3, 4, 5].flatMap((i) => (grown.includes(i) ? [i, i] : [i])));
    expect(await densifier.clippedGrowth()).toBe(n - grown.length);
  });
});
