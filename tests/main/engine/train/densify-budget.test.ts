import { describe, expect, it } from 'vitest';
import { budgetGrowth, effectiveBudget, refineStepsFrom } from '../../../../main/engine/train/densify-budget.js';
import { testGpu, variantsOf } from '../../../helpers/gpu.js';
import { freshSeed } from '../../../helpers/random.js';
import { DENSIFY_BUDGET_CASES, densifyBudgetParity } from '../../../parity/densify-budget.parity.js';
import { budgetKey, budgetThreshold } from '../../../reference/densify-budget.js';

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

describe('budget selection on the GPU', async () => {
  const ctx = await testGpu();
  for (const variant of variantsOf(ctx))
    it.each(DENSIFY_BUDGET_CASES)(`matches the float64 reference and grows that many splats (${variant}, $splats splats)`, async (c) => {
      const result = await densifyBudgetParity(ctx, variant, freshSeed(), c);
      expect(result.detail ?? '', `seed ${result.seed}`).toBe('');
      expect(result.ok).toBe(true);
    });
});
