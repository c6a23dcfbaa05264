import { describe, expect, it } from 'vitest';
import { readBuffer, writeRange } from '../../../../main/engine/gpu/buffers.js';
import { GpuSplats } from '../../../../main/engine/render/gpu-splats.js';
import { Adam } from '../../../../main/engine/train/adam.js';
import type { ModelMomentsPrecision } from '../../../../main/engine/train/model.js';
import { McmcDensifier, MCMC_DEFAULTS, relocationReference } from '../../../../main/engine/train/densify-mcmc.js';
import { sampleScene } from '../../../../main/engine/train/sample-scene.js';
import { defaultTrainerConfig, Trainer } from '../../../../main/engine/train/trainer.js';
import { emptySplats } from '../../../../shared/scene/splats.js';
import { testGpu } from '../../../helpers/gpu.js';
import { filledMoments, momentsAos, parameterGroups } from '../../../helpers/adam-groups.js';

const logit = (p: number) => Math.log(p / (1 - p));
const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

async function setup(opacities: number[], cap: number, capacity = cap, precision: ModelMomentsPrecision = 'f32') {
  const ctx = await testGpu();
  const n = opacities.length;
  const s = emptySplats(n, 1);
  for (let i = 0; i < n; i++) {
    s.means.set([i, 2 * i, 3 * i], 3 * i);
    s.logScales.set([Math.log(0.1), Math.log(0.2), Math.log(0.3)], 3 * i);
    s.quats.set([1, 0, 0, 0], 4 * i);
    s.opacityLogits[i] = logit(opacities[i]);
    for (let k = 0; k < 12; k++) s.sh[12 * i + k] = i + k / 100;
  }
  const splats = GpuSplats.fromHost(ctx, s, capacity);
  const adam = await Adam.create(ctx);
  const groups = parameterGroups(adam, splats, { shStride: 12, precision });
  const mcmc = await McmcDensifier.create(ctx, capacity, { ...MCMC_DEFAULTS, capMax: cap });
  return { ctx, splats, groups, mcmc };
}

describe('MCMC densification on the GPU', () => {
  it('matches the relocation formula: a source sampled r-1 times keeps o\' = 1-(1-o)^(1/r)', () => {
    const r = relocationReference(0.6, 1);
    expect(r.opacity).toBeCloseTo(0.6, 12);
    expect(r.scaleFactor).toBeCloseTo(1, 12); // one copy: nothing changes
    const two = relocationReference(0.6, 2);
    expect(two.opacity).toBeCloseTo(1 - Math.sqrt(0.4), 12);
    expect(two.scaleFactor).toBeLessThan(1.5);
  });

  it.each(['f32', 'bf16', 'bf16-all'] as const)('relocates every dead splat onto a live one, grows 5% to the cap, and copies exactly (moments %s)', async (precision) => {
    const opacities = [0.9, 0.001, 0.5, 0.002, 0.7, 0.6, 0.001, 0.8, 0.4, 0.3, 0.0001, 0.9, 0.5, 0.6, 0.7, 0.8, 0.2, 0.3, 0.4, 0.5];
    const n = opacities.length;
    const { ctx, splats, groups, mcmc } = await setup(opacities, 1000, 64, precision);
    // moments: 7 and 9 everywhere (exact in bf16), so the zeroed ones show
    for (const g of Object.values(groups)) for (const [part, value] of [['m', 7], ['v', 9]] as const) writeRange(ctx.device, g[part], filledMoments(g, value));
    const commands = ctx.commands('mcmc');
    mcmc.encodeRefine(commands, splats.countBuffer, groups, 600, 7);
    await commands.submit();
    const count = new Uint32Array(await readBuffer(ctx.device, splats.countBuffer, 4))[0];
    expect(count).toBe(Math.floor(1.05 * n)); // 21
    const out = await splats.download(count);
    const dead = opacities.flatMap((o, i) => (o <= 0.005 ? [i] : []));
    // every splat now alive, every dead slot and every new one an exact copy of a live original
    for (let i = 0; i < count; i++) expect(sigmoid(out.opacityLogits[i]), `splat ${i}`).toBeGreaterThan(0.005);
    const sourceOf = (i: number) => Math.round(out.means[3 * i]); // means were (i, 2i, 3i)
    for (const d of [...dead, n]) {
      const src = sourceOf(d);
      expect(opacities[src]).toBeGreaterThan(0.005);
      expect([out.means[3 * d + 1], out.means[3 * d + 2]]).toEqual([2 * src, 3 * src]);
      expect(out.sh[12 * d + 5]).toBeCloseTo(src + 0.05, 5);
      expect(out.opacityLogits[d]).toBe(out.opacityLogits[src]);
      expect(out.logScales[3 * d]).toBe(out.logScales[3 * src]);
    }
    // moments: zero for every destination (and the sampled sources), kept elsewhere; every lane
    // alike, in every group (scales and opacity: zeroed by the relocation itself)
    for (const [part, kept] of [['m', 7], ['v', 9]] as const) {
      for (const g of Object.values(groups)) {
        const k = g.stride;
        const m = await momentsAos(ctx.device, g, part, count);
        for (const d of [...dead, n]) expect(Array.from(m.subarray(k * d, k * d + k)), `${g.name}.${part} of ${d}`).toEqual(new Array<number>(k).fill(0));
        for (let i = 0; i < count; i++) expect(new Set(m.subarray(k * i, k * i + k)).size, `${g.name}.${part} of ${i}`).toBe(1);
        expect(Array.from({ length: count }, (_, i) => m[k * i]), `${g.name}.${part}`).toContain(kept);
      }
    }
  });

  it('samples sources in proportion to opacity', async () => {
    // 2 live splats (0.9 and 0.1) and 3000 dead ones: ~90% of the copies come from the first
    const opacities = [0.9, 0.1, ...new Array(3000).fill(0.001)];
    const { ctx, splats, groups, mcmc } = await setup(opacities, 3002, 3002 + 16);
    const commands = ctx.commands('mcmc');
    mcmc.encodeRefine(commands, splats.countBuffer, groups, 700, 3);
    await commands.submit();
    const out = await splats.download(3002);
    let fromFirst = 0;
    for (let i = 2; i < 3002; i++) if (Math.round(out.means[3 * i]) === 0) fromFirst++;
    expect(fromFirst / 3000).toBeGreaterThan(0.87);
    expect(fromFirst / 3000).toBeLessThan(0.93);
  });

  it('trains the sample scene with --strategy mcmc, growing toward the cap', async () => {
    const ctx = await testGpu();
    const data = await sampleScene(ctx, { width: 48, height: 36, views: 16, splats: 600 });
    const config = defaultTrainerConfig({ iterations: 300, shDegree: 0, initPoints: 300, strategy: 'mcmc', maxSplats: 2000, mcmc: { ...MCMC_DEFAULTS, capMax: 2000, refineStart: 20, refineEvery: 20 } });
    const trainer = await Trainer.create(ctx, data, config);
    const before = await trainer.evaluate();
    for (let i = 0; i < 300; i++) await trainer.trainStep();
    const after = await trainer.evaluate();
    const final = await trainer.download();
    trainer.destroy();
    expect(final.count).toBeGreaterThan(300 * 1.05 ** 5);
    expect(after.psnr - before.psnr, `${before.psnr} -> ${after.psnr}`).toBeGreaterThan(3);
  }, 300_000);
});
