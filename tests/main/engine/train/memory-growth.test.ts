import { describe, expect, it } from 'vitest';
import { GpuMemory } from '../../../../main/engine/gpu/memory.js';
import { capacityBindingLimit, describeCap, fittingCapacity, fittingIntersections, intersectionBindingLimit, resizePeakBytes, splatsWithRoom, type TrainingFootprint } from '../../../../main/engine/train/memory-growth.js';

/** Today's per-splat bytes at SH degree 3 (llvmpipe, MCMC; the same on every device: sums of buffer sizes). */
const FOOTPRINT: TrainingFootprint = { modelPerSplat: 960, rebuiltPerSplat: 229, perIntersection: 77, readbackPerSplat: 192 };

function ledger(budgetBytes: number, liveBytes: number): GpuMemory {
  const memory = new GpuMemory({ totalBytes: budgetBytes, source: 'configured' }, 2 ** 40);
  memory.record({ size: liveBytes, usage: 0 }, () => ({ destroy: () => undefined }) as GPUBuffer);
  return memory;
}

describe('growth within the GPU memory budget', () => {
  it("a resize's peak: the new model beside the old, the frame and densifier grown, new intersections; or after it, a readback of the SH", () => {
    // during: 1e6 + 2000 * 960 + 1000 * 229 + 4000 * 77; after: 1e6 + 1000 * 960 + 1000 * 229 + 4000 * 77 + 2000 * 192
    expect(resizePeakBytes(FOOTPRINT, 1e6, 1000, 2000, 4000, 8000)).toBe(1e6 + 1_920_000 + 229_000 + 308_000);
    const heavyReadback = { ...FOOTPRINT, readbackPerSplat: 5000 };
    expect(resizePeakBytes(heavyReadback, 1e6, 1000, 2000, 4000, 8000)).toBe(1e6 + 960_000 + 229_000 + 308_000 + 10_000_000);
  });

  it('the capacity that fits is the largest whose peak is under the budget less 2% headroom, never under the current one', () => {
    const live = 10_000_000;
    const isectFor = (n: number) => n * 4;
    const memory = ledger(20_000_000, live);
    const capacity = fittingCapacity(FOOTPRINT, memory, 1000, 100_000, 4000, isectFor);
    const usable = 20_000_000 * 0.98;
    expect(resizePeakBytes(FOOTPRINT, live, 1000, capacity, 4000, isectFor(capacity))).toBeLessThanOrEqual(usable);
    expect(resizePeakBytes(FOOTPRINT, live, 1000, capacity + 1, 4000, isectFor(capacity + 1))).toBeGreaterThan(usable);
    expect(fittingCapacity(FOOTPRINT, ledger(1e12, live), 1000, 100_000, 4000, isectFor)).toBe(100_000);
    expect(fittingCapacity(FOOTPRINT, ledger(live, live), 1000, 100_000, 4000, isectFor)).toBe(1000);
    expect(fittingCapacity(FOOTPRINT, new GpuMemory({ totalBytes: Infinity, source: 'none' }, 2 ** 40), 1000, 10_000_000, 4000, isectFor)).toBe(10_000_000);
  });

  it('intersections grow into the room left, and never past the binding limit of a vec4f array', () => {
    expect(fittingIntersections(77, ledger(10_000_000, 9_000_000), 1000, 1_000_000)).toBe(1000 + Math.floor((9_800_000 - 9_000_000) / 77));
    expect(fittingIntersections(77, ledger(10_000_000, 9_900_000), 1000, 1_000_000)).toBe(1000);
    expect(intersectionBindingLimit(2147483644)).toBe(134_217_727);
  });

  it("a capacity is held to what one binding holds of its SH (the H200's 2 GiB: 11.18M splats at SH degree 3)", () => {
    expect(capacityBindingLimit(2147483644, 3)).toBe(11_184_810);
    expect(capacityBindingLimit(2147483644, 0)).toBe(178_956_970);
    expect(describeCap({ step: 0, splats: 11_184_810, wantedCapacity: 20_000_016, capacity: 11_184_810, neededBytes: 0 }, 'binding')).toContain("(capacity 11,184,810): 20,000,016 splats of capacity would put their SH over the device's storage binding limit");
  });

  it("the splats a capacity holds are the most the strategy still has room for (ADC: a refine may double them)", () => {
    const adcHasRoom = (count: number, capacity: number) => 2 * count + 16 <= capacity;
    expect(splatsWithRoom(1034, adcHasRoom)).toBe(509);
    expect(splatsWithRoom(200_016, () => true)).toBe(200_016);
  });

  it('the cap says what was wanted, what it needed and the budget, or that the driver refused', () => {
    const cap = { step: 40, splats: 1034, wantedCapacity: 2304, capacity: 1034, neededBytes: 10_565_380, budgetBytes: 7_485_936 };
    expect(describeCap(cap, 'budget')).toBe('GPU memory: splat growth stopped at step 40, the splat count held at or under 1,034 (capacity 1,034): growing to 2,304 splats of capacity needs 10.1 MiB, over the GPU memory budget of 7.14 MiB. Training goes on without growing; raise --gpu-memory-budget or lower --max-splats to silence this.');
    expect(describeCap({ ...cap, budgetBytes: undefined }, 'driver')).toContain('(capacity 1,034): the driver refused the allocation.');
  });
});
