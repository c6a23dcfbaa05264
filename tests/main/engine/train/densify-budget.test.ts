import { describe, expect, it } from 'vitest';
import { poisonBuffer, readBuffer } from '../../../../main/engine/gpu/buffers.js';
import { GpuSplats } from '../../../../main/engine/render/gpu-splats.js';
import { Adam } from '../../../../main/engine/train/adam.js';
import { AdcDensifier, ADC_DEFAULTS } from '../../../../main/engine/train/densify-adc.js';
import { budgetGrowth, effectiveBudget, refineStepsFrom } from '../../../../main/engine/train/densify-budget.js';
import { emptySplats } from '../../../../shared/scene/splats.js';
import { testGpu, variantsOf } from '../../../helpers/gpu.js';
import { freshSeed, rng } from '../../../helpers/random.js';
import { budgetHistogram, budgetKey, budgetScore, budgetThreshold, keyEdgeDistance } from '../../../reference/densify-budget.js';

describe('the budget growth curve', () => {
  const window = { refineStart: 500, refineStop: 15_000, refineEvery: 100 };

  it('counts the refine steps left as ADC refines (step > start, step < stop, every N)', () => {
    expect(refineStepsFrom(0, window)).toBe(144); // 600, 700, ..., 14900
    expect(refineStepsFrom(600, window)).toBe(144);
    expect(refineStepsFrom(601, window)).toBe(143);
    expect(refineStepsFrom(14_900, window)).toBe(1);
    expect(refineStepsFrom(14_901, window)).toBe(0);
    expect(refineStepsFrom(0, { refineStart: 500, refineStop: 500, refineEvery: 100 })).toBe(0);
  });

  it('reaches the budget at the last refine along the front-loaded quadratic, from any start', () => {
    for (const start of [1_000, 100_000]) {
      let count = start;
      const counts: number[] = [];
      for (let step = 0; step < window.refineStop; step++) {
        if (!(step > window.refineStart && step % window.refineEvery === 0)) continue;
        count += budgetGrowth({ budget: 300_000, count, refinesLeft: refineStepsFrom(step, window), maxSplats: 3_000_000 });
        counts.push(count);
      }
      expect(counts.at(-1)).toBe(300_000);
      // n(p) = n0 + (B - n0)(2p - p^2): at half the window three quarters of the growth are done
      const half = counts[Math.floor(counts.length / 2) - 1];
      expect((half - start) / (300_000 - start)).toBeCloseTo(0.75, 1);
      // monotonic, and each refine adds less than the one before (front-loaded)
      const added = counts.map((c, i) => c - (i ? counts[i - 1] : start));
      expect(added.every((a, i) => a >= 0 && (i === 0 || a <= added[i - 1] + 1))).toBe(true);
    }
  });

  it('grows nothing past the budget or the cap, and scales the budget with the coarse level', () => {
    expect(budgetGrowth({ budget: 1000, count: 1200, refinesLeft: 10, maxSplats: 1e6 })).toBe(0);
    expect(budgetGrowth({ budget: 1000, count: 0, refinesLeft: 0, maxSplats: 1e6 })).toBe(0);
    expect(budgetGrowth({ budget: 1e6, count: 0, refinesLeft: 1, maxSplats: 5000 })).toBe(5000);
    expect(effectiveBudget(300_000, 4)).toBe(75_000);
    expect(effectiveBudget(300_000, 1)).toBe(300_000);
  });
});

describe('the budget threshold reference', () => {
  it('takes bins from the top, the crossing bin when that lands nearer', () => {
    const h = new Uint32Array(4096);
    h[4000] = 10;
    h[3000] = 10;
    h[2000] = 100;
    expect(budgetThreshold(h, 10)).toBe(4000);
    expect(budgetThreshold(h, 14)).toBe(3001); // 10 is nearer 14 than 20 is: bins above 3000
    expect(budgetThreshold(h, 16)).toBe(3000);
    expect(budgetThreshold(h, 60)).toBe(2001); // 20 is nearer 60 than 120 is: bins above 2000
    expect(budgetThreshold(h, 80)).toBe(2000);
    expect(budgetThreshold(h, 1000)).toBe(1);
    expect(budgetThreshold(h, 0)).toBe(0xffffffff);
    expect(budgetKey(0)).toBe(0);
    expect(budgetKey(2)).toBeGreaterThan(budgetKey(1.99));
  });
});

/**
 * The GPU's selection against the float64 reference on fresh random statistics: the histogram
 * bin by bin and the threshold exactly (splats whose score sits within float32 rounding of a bin
 * edge may land in the neighbour bin: they are counted and moved in the reference), then a whole
 * refine in budget mode grows exactly the splats at or above the threshold.
 */
describe('budget selection on the GPU', async () => {
  const ctx = await testGpu();
  it.each(variantsOf(ctx))('matches the float64 reference and grows that many splats (%s)', async (variant) => {
    const seed = freshSeed();
    const random = rng(seed);
    const n = 3000 + Math.floor(random() * 2000);
    const capacity = 2 * n + 1024;
    const s = emptySplats(n, 0);
    const gradAcc = new Float32Array(n);
    const hits = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      s.means.set([random(), random(), random()], 3 * i);
      s.logScales.set([-5, -5.5, -6], 3 * i); // small: every grown splat is duplicated, none pruned for size
      s.quats.set([1, 0, 0, 0], 4 * i);
      s.opacityLogits[i] = random() * 8 - 3; // opacity 0.05 .. 0.99: none under the prune opacity
      hits[i] = random() < 0.1 ? 0 : 1 + Math.floor(random() * 30);
      gradAcc[i] = hits[i] * 10 ** (-6 + 4 * random());
    }
    const splats = GpuSplats.fromHost(ctx, s, capacity);
    const adam = await Adam.create(ctx);
    const groups = {
      means: adam.createGroup('means', splats.means, splats.means, splats.countBuffer, 3, 3),
      logScales: adam.createGroup('logScales', splats.logScales, splats.logScales, splats.countBuffer, 3, 3),
      quats: adam.createGroup('quats', splats.quats, splats.quats, splats.countBuffer, 4, 4),
      opacityLogits: adam.createGroup('opacityLogits', splats.opacityLogits, splats.opacityLogits, splats.countBuffer, 1, 1),
      sh: adam.createGroup('sh', splats.sh, splats.sh, splats.countBuffer, 3, 3, undefined, splats.capacity),
    };
    const densifier = await AdcDensifier.create(ctx, capacity, { ...ADC_DEFAULTS, budget: 1 }, variant);
    const q = ctx.device.queue;
    q.writeBuffer(densifier.gradAcc, 0, gradAcc);
    q.writeBuffer(densifier.hits, 0, hits);
    q.writeBuffer(densifier.counts, 0, new Uint32Array([n]));
    poisonBuffer(ctx.device, densifier.budgetHistogram);
    poisonBuffer(ctx.device, densifier.budgetThreshold);
    const opacityLogits = new Float32Array(s.opacityLogits);
    const scores = Array.from({ length: n }, (_, i) => budgetScore(gradAcc[i], hits[i], opacityLogits[i]));
    const keys = scores.map(budgetKey);
    const want = Math.floor(n * (0.05 + 0.3 * random()));

    const select = ctx.commands('budget');
    densifier.encodeBudgetThreshold(select, groups.opacityLogits, want);
    await select.submit();
    const histogram = new Uint32Array(await readBuffer(ctx.device, densifier.budgetHistogram, 4096 * 4));
    const threshold = new Uint32Array(await readBuffer(ctx.device, densifier.budgetThreshold, 4))[0];
    // the GPU's histogram bin by bin, after moving the edge cases to the bin the GPU's float32 gave them
    const expected = budgetHistogram(keys);
    const nearEdge = scores.filter((score) => score > 0 && keyEdgeDistance(score) < 1e-5).length;
    let moved = 0;
    for (let b = 0; b < 4096; b++) moved += Math.abs(histogram[b] - expected[b]);
    expect(moved, `seed ${seed}`).toBeLessThanOrEqual(2 * nearEdge);
    expect(histogram.reduce((a, c) => a + c, 0)).toBe(expected.reduce((a, c) => a + c, 0));
    // the threshold from the GPU's own histogram: integer work, exact
    expect(threshold, `seed ${seed}`).toBe(budgetThreshold(histogram, want));
    const selected = histogram.slice(threshold).reduce((a, c) => a + c, 0);
    expect(Math.abs(selected - want), `seed ${seed}`).toBeLessThanOrEqual(Math.max(...histogram) / 2 + 1);

    // a refine in budget mode: exactly the selected splats are duplicated
    const refine = ctx.commands('refine');
    densifier.encodeRefine(refine, { step: 1000, seed: 1, sceneScale: 1, grow: true, pruneLarge: false, splatCount: splats.countBuffer, groups, budgetWant: want });
    await refine.submit();
    const count = new Uint32Array(await readBuffer(ctx.device, splats.countBuffer, 4))[0];
    expect(count, `seed ${seed}`).toBe(n + selected);
    // the refine at the cap (grow false) grows none, whatever the budget
    q.writeBuffer(densifier.gradAcc, 0, gradAcc);
    q.writeBuffer(densifier.hits, 0, hits);
    const capped = ctx.commands('capped');
    densifier.encodeRefine(capped, { step: 1100, seed: 1, sceneScale: 1, grow: false, pruneLarge: false, splatCount: splats.countBuffer, groups, budgetWant: want });
    await capped.submit();
    expect(new Uint32Array(await readBuffer(ctx.device, splats.countBuffer, 4))[0]).toBe(count);
    densifier.destroy();
    splats.destroy();
  });
});
