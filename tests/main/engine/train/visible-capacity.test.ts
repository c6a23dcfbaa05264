import { describe, expect, it } from 'vitest';
import { VisibleCapacity, visibleCapacityFor } from '../../../../main/engine/train/visible-capacity.js';

describe("the training frame's visible capacity", () => {
  it('holds while the views use at most 85% of it, and grows to 1.5x the count past that', () => {
    expect(visibleCapacityFor(850, 1000, 5000)).toBe(1000);
    expect(visibleCapacityFor(851, 1000, 5000)).toBe(1277);
    expect(visibleCapacityFor(4000, 1000, 5000), 'never past the splat capacity').toBe(5000);
    expect(visibleCapacityFor(10, 1000, 500), 'a frame is never larger than its capacity').toBe(500);
  });

  it('counts the splats a refine added since the last check as visible, and each check starts a new period', () => {
    const v = new VisibleCapacity(1000);
    v.report(600, 1000);
    expect(v.check(1000, 4000, 1000), 'no growth: 600 of 1000').toBe(1000);
    v.report(600, 1000);
    // a refine doubled the splats: 600 seen + 1000 added
    expect(v.check(1000, 4000, 2000)).toBe(2400);
    v.report(700, 2400);
    expect(v.check(2400, 4000, 2000), 'the refine is counted once').toBe(2400);
    expect(v.overflows).toBe(0);
  });

  it('counts the steps whose view overflowed the frame', () => {
    const v = new VisibleCapacity(100);
    v.report(120, 100);
    v.report(90, 100);
    expect(v.overflows).toBe(1);
    expect(v.check(100, 1000, 100)).toBe(180);
  });
});
