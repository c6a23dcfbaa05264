import { describe, expect, it } from 'vitest';
import type { GpuContext } from '../../../../main/engine/gpu/context.js';
import { createDensifyStrategy } from '../../../../main/engine/train/densify.js';
import type { DensifyStrategy } from '../../../../main/engine/train/densify-strategy.js';
import { AdcStrategy, ADC_DEFAULTS } from '../../../../main/engine/train/densify-adc.js';
import { McmcStrategy, MCMC_DEFAULTS } from '../../../../main/engine/train/densify-mcmc.js';
import { defaultTrainerConfig } from '../../../../main/engine/train/trainer-config.js';
import { getParam } from '../../../../shared/params/index.js';
import { testGpu } from '../../../helpers/gpu.js';

// The capacity rules touch no GPU: a strategy allocates nothing before rebuild().
const noGpu = {} as GpuContext;

describe('densification strategies', () => {
  it('implements every strategy the registry offers, by its name', () => {
    for (const name of getParam('train.strategy').choices) {
      const strategy = createDensifyStrategy(noGpu, defaultTrainerConfig({ strategy: name }), false);
      expect(strategy.name).toBe(name);
    }
  });

  it('ADC on a capture refines until the capture refine stop (at most the refine stop), elsewhere until the refine stop', () => {
    const refinesOf = (photographed: boolean, adc: Partial<typeof ADC_DEFAULTS>) => {
      const strategy = createDensifyStrategy(noGpu, defaultTrainerConfig({ adc: { ...ADC_DEFAULTS, refineStart: 500, refineEvery: 100, ...adc } }), photographed);
      const refines = Array.from({ length: 20_000 }, (_, step) => step).filter((step) => strategy.checksCapacityAt(step));
      return [refines[0], refines[refines.length - 1]];
    };
    expect(refinesOf(false, { refineStop: 15_000, captureRefineStop: 3_500 })).toEqual([600, 14_900]);
    expect(refinesOf(true, { refineStop: 15_000, captureRefineStop: 3_500 })).toEqual([600, 3_400]);
    expect(refinesOf(true, { refineStop: 2_000, captureRefineStop: 3_500 })).toEqual([600, 1_900]); // the smaller
    expect(refinesOf(true, { refineStop: 15_000, captureRefineStop: 0 })).toEqual([600, 14_900]); // 0: the refine stop's
  });

  it('ADC checks capacity exactly before its refine steps, for the most a refine grows (1.25x the count with refineGrowth 0.25)', () => {
    const adc: DensifyStrategy = new AdcStrategy(noGpu, { ...ADC_DEFAULTS, refineStart: 10, refineEvery: 5, refineStop: 30, refineGrowth: 0.25 });
    const checked = Array.from({ length: 40 }, (_, step) => step).filter((step) => adc.checksCapacityAt(step));
    expect(checked).toEqual([15, 20, 25]); // after the start, before the stop
    expect(adc.hasRoom(100, 141)).toBe(true); // 125 + 16
    expect(adc.hasRoom(101, 141)).toBe(false);
    expect(adc.capacityFor(100_000, 1_000_000)).toBe(126_024);
    expect(adc.capacityFor(10, 1_000_000)).toBe(1037);
    expect(adc.capacityFor(0, 1_000_000)).toBe(1026);
    expect(adc.capacityFor(5000, 2000)).toBe(5024); // never beyond twice the cap
    // the default, refineGrowth 1: a refine may double, the capacity twice the count (the policy before refineGrowth)
    expect(ADC_DEFAULTS.refineGrowth).toBe(1);
    const doubling = new AdcStrategy(noGpu, ADC_DEFAULTS);
    expect(doubling.hasRoom(100, 216)).toBe(true);
    expect(doubling.hasRoom(101, 216)).toBe(false);
    expect(doubling.capacityFor(10, 1_000_000)).toBe(1044);
    // what it grows to has the room it checks for: no resize at the next refine without growth
    for (const count of [0, 10, 5000, 100_000, 3_000_000]) expect(adc.hasRoom(count, adc.capacityFor(count, 10_000_000)), `${count}`).toBe(true);
    expect(adc.initialSplats).toBeUndefined();
  });

  it('MCMC takes its cap at once and never needs to grow', () => {
    const mcmc: DensifyStrategy = new McmcStrategy(noGpu, { ...MCMC_DEFAULTS, capMax: 5000 });
    expect(mcmc.capacityFor(300, 1_000_000)).toBe(5016);
    expect(mcmc.capacityFor(300, 2000)).toBe(2016);
    expect(mcmc.capacityFor(9000, 2000)).toBe(9016);
    expect(mcmc.capacityFor(10, 100)).toBe(1040);
    expect([0, 500, 600, 1000].some((step) => mcmc.checksCapacityAt(step))).toBe(false);
    expect(mcmc.initialSplats).toEqual({ opacity: 0.5, scale: 0.1 });
  });

  it('refuses to record before rebuild() gave it its buffers', () => {
    const adc = new AdcStrategy(noGpu, ADC_DEFAULTS);
    expect(() => adc.holdStatistics({} as never)).toThrow(/ADC densification used before rebuild\(\)/);
    expect(adc.bytes).toBe(0);
  });

  it('ADC keeps its statistics across a resize and starts them over on a plain rebuild', async () => {
    const ctx = await testGpu();
    const adc = new AdcStrategy(ctx, ADC_DEFAULTS);
    await adc.rebuild(64);
    const bytes64 = adc.bytes;
    expect(bytes64).toBeGreaterThan(64 * 4 * 4);
    const [acc, hits] = [new Float32Array([0.5, 0.25, 2]), new Uint32Array([1, 2, 3])];
    const blob = (name: string, count: number) => (name === 'adc.gradAcc' ? acc.slice(0, count) : new Float32Array(hits.buffer.slice(0, count * 4)));
    adc.restore(new Map([['adc.gradAcc', new Uint8Array(acc.buffer)], ['adc.hits', new Uint8Array(hits.buffer)]]), 3, blob);
    const saved = async () => Object.fromEntries((await adc.checkpointBlobs(3)).map((b) => [b.name, Array.from(new Uint32Array(b.data.slice().buffer))]));
    expect(await saved()).toEqual({ 'adc.gradAcc': Array.from(new Uint32Array(acc.buffer)), 'adc.hits': [1, 2, 3] });

    const commands = ctx.commands('hold');
    const restore = adc.holdStatistics(commands);
    await commands.submit();
    await adc.rebuild(256);
    await restore!();
    expect(adc.bytes).toBeGreaterThan(bytes64);
    expect(await saved()).toEqual({ 'adc.gradAcc': Array.from(new Uint32Array(acc.buffer)), 'adc.hits': [1, 2, 3] });

    await adc.rebuild(256);
    expect(await saved()).toEqual({ 'adc.gradAcc': [0, 0, 0], 'adc.hits': [0, 0, 0] });
    adc.destroy();
    expect(adc.bytes).toBe(0);
  });

  it('ADC frees its statistics and refine state at the refine stop, and keeps nothing of them after', async () => {
    const ctx = await testGpu();
    const adc = new AdcStrategy(ctx, { ...ADC_DEFAULTS, refineStop: 100 });
    await adc.rebuild(64);
    expect([adc.readsMean2dFrom(99), adc.readsMean2dFrom(100)], 'the screen-space gradient is read until the refine stop').toEqual([true, false]);
    await adc.retire(99);
    expect(adc.bytes, 'before the refine stop: kept').toBeGreaterThan(0);
    await adc.retire(100);
    expect(adc.bytes).toBe(0);
    await adc.rebuild(256); // a frame rebuild after the stop (intersections, visible capacity)
    expect(adc.bytes, 'rebuild makes nothing after the stop').toBe(0);
    expect(adc.holdStatistics(ctx.commands('hold'))).toBeUndefined();
    expect(await adc.checkpointBlobs(3), 'a checkpoint holds no statistics: a resume starts fresh ones, unused').toEqual([]);
    expect(await adc.clippedGrowth()).toBe(0);
    adc.destroy();
  });
});
