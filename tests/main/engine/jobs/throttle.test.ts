import { describe, expect, it } from 'vitest';
import { Throttle } from '../../../../main/engine/jobs/throttle.js';

describe('Throttle', () => {
  it('is due at once by default, then not before the minimum interval after the work ended', () => {
    const t = new Throttle({ minIntervalMs: 500 });
    expect(t.due(0)).toBe(true);
    t.done(0, 10);
    expect(t.due(509)).toBe(false);
    expect(t.due(510)).toBe(true);
  });

  it('spaces costly work so it takes at most its budget of the time', () => {
    const t = new Throttle({ minIntervalMs: 500, budget: 0.05 });
    t.done(1000, 1040); // 40 ms at 5 %: the next one 800 ms after this one ended
    expect(t.due(1839)).toBe(false);
    expect(t.due(1840)).toBe(true);
    expect(t.stats).toMatchObject({ count: 1, totalMs: 40 });
    expect(t.stats.times).toHaveLength(1);
  });

  it('with a first time, is not due before it (profile reports start after one interval)', () => {
    const t = new Throttle({ minIntervalMs: 5000, firstAtMs: 5000 });
    expect(t.due(4999)).toBe(false);
    expect(t.due(5000)).toBe(true);
  });
});
