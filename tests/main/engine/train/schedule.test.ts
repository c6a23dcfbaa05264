import { describe, expect, it } from 'vitest';
import { activeShDegree, DEFAULT_LEARNING_RATES, delayed, exponentialDecay, linearWarmup, meansLearningRate } from '../../../../main/engine/train/schedule.js';

describe('schedule shapes', () => {
  it('exponential decay runs log-linearly from 1 to the final ratio and holds there', () => {
    expect(exponentialDecay(0, 1000, 0.01)).toBe(1);
    expect(exponentialDecay(500, 1000, 0.01)).toBeCloseTo(0.1, 12); // halfway in log space
    expect(exponentialDecay(1000, 1000, 0.01)).toBeCloseTo(0.01, 14);
    expect(exponentialDecay(5000, 1000, 0.01)).toBeCloseTo(0.01, 14);
    expect(exponentialDecay(3, 0, 0.01)).toBe(1); // no span: no decay
  });

  it('linear warm-up runs from its start value to 1 and holds there; no steps is no warm-up', () => {
    expect(linearWarmup(0, 1000, 0.01)).toBe(0.01);
    expect(linearWarmup(500, 1000, 0.01)).toBeCloseTo(0.505, 14);
    expect(linearWarmup(1000, 1000, 0.01)).toBe(1);
    expect(linearWarmup(4000, 1000, 0.01)).toBe(1);
    expect(linearWarmup(1, 50)).toBe(1 / 50); // from 0: exactly step / steps
    expect(linearWarmup(0, 0)).toBe(1);
  });

  it('a delayed schedule is 0 before its start and counts its steps from there', () => {
    const seen: number[] = [];
    const factor = (k: number) => (seen.push(k), 0.5 + k);
    expect([8, 9, 10, 12].map((s) => delayed(s, 10, factor))).toEqual([0, 0, 0.5, 2.5]);
    expect(seen).toEqual([0, 2]); // never called while frozen
  });

  it("the means' rate is the peak x scene scale, decayed to meansFinalRatio at the end", () => {
    const r = DEFAULT_LEARNING_RATES;
    expect(meansLearningRate(r, 2, 0, 30_000)).toBe(r.means * 2);
    expect(meansLearningRate(r, 2, 15_000, 30_000)).toBeCloseTo(r.means * 2 * Math.sqrt(r.meansFinalRatio), 15);
    expect(meansLearningRate(r, 2, 30_000, 30_000)).toBeCloseTo(r.means * 2 * r.meansFinalRatio, 15);
  });

  it('the active SH degree rises by one every 1000 steps up to the model degree', () => {
    expect([0, 999, 1000, 2500, 9000].map((s) => activeShDegree(s, 3))).toEqual([0, 0, 1, 2, 3]);
  });
});
