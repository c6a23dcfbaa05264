import { afterEach, describe, expect, it } from 'vitest';
import { createStorage } from '../../../../main/engine/gpu/buffers.js';
import { estimatedBudget, formatBytes, GpuOutOfMemoryError, parseByteSize } from '../../../../main/engine/gpu/memory.js';
import { GpuArena } from '../../../../main/engine/gpu/arena.js';
import { testGpu } from '../../../helpers/gpu.js';

const MiB = 2 ** 20;

describe('the GPU memory ledger', () => {
  afterEach(async () => {
    const ctx = await testGpu();
    ctx.memory.setBudget(estimatedBudget(ctx.info.adapter.software));
    ctx.memory.refuseAsDriver(undefined);
  });

  it('counts every buffer, arenas included, frees each once on destroy, and keeps the peak', async () => {
    const ctx = await testGpu();
    const before = ctx.memory.live;
    ctx.memory.resetPeak();
    const a = createStorage(ctx.device, 'ledger.a', 3 * MiB);
    const arena = new GpuArena(ctx.device, 'moments', 'ledger.arena', { m: MiB, v: MiB });
    expect(ctx.memory.live - before).toBe(3 * MiB + arena.buffer.size + arena.layout.size);
    a.destroy();
    a.destroy(); // a second destroy gives nothing back twice
    expect(ctx.memory.live - before).toBe(arena.buffer.size + arena.layout.size);
    arena.destroy();
    expect(ctx.memory.live).toBe(before);
    expect(ctx.memory.peak - before).toBeGreaterThanOrEqual(5 * MiB);
  });

  it('refuses an allocation past the budget with the numbers, and allocates nothing', async () => {
    const ctx = await testGpu();
    const live = ctx.memory.live;
    ctx.memory.setBudget({ totalBytes: live + 2 * MiB, source: 'configured' });
    const kept = createStorage(ctx.device, 'ledger.fits', MiB);
    let refusal: unknown;
    try {
      createStorage(ctx.device, 'ledger.too-big', 2 * MiB);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(GpuOutOfMemoryError);
    expect((refusal as GpuOutOfMemoryError).refusal).toEqual({ what: 'a buffer "ledger.too-big"', requestedBytes: 2 * MiB, liveBytes: live + MiB, budgetBytes: live + 2 * MiB, refusedBy: 'budget' });
    expect((refusal as Error).message).toContain('passes the GPU memory budget of');
    expect(ctx.memory.live).toBe(live + MiB);
    kept.destroy();
  });

  it('a failed guard destroys what it made (a budget refusal or the driver\'s, injected) and nothing made before it', async () => {
    const ctx = await testGpu();
    const live = ctx.memory.live;
    const outside = createStorage(ctx.device, 'ledger.outside', MiB);
    ctx.memory.setBudget({ totalBytes: live + 4 * MiB, source: 'configured' });
    await expect(ctx.memory.guard(ctx.device, 'a test growth', async () => {
      createStorage(ctx.device, 'ledger.inside', 2 * MiB);
      await Promise.resolve();
      createStorage(ctx.device, 'ledger.over', 2 * MiB);
    })).rejects.toMatchObject({ refusal: { refusedBy: 'budget', what: 'a buffer "ledger.over"' } });
    expect(ctx.memory.live).toBe(live + MiB);
    ctx.memory.refuseAsDriver(1);
    await expect(ctx.memory.guard(ctx.device, 'a test growth', async () => {
      createStorage(ctx.device, 'ledger.first', MiB);
      createStorage(ctx.device, 'ledger.second', MiB);
    })).rejects.toMatchObject({ refusal: { refusedBy: 'driver', what: 'a buffer "ledger.second"' } });
    expect(ctx.memory.live).toBe(live + MiB);
    const made = await ctx.memory.guard(ctx.device, 'a test growth', async () => createStorage(ctx.device, 'ledger.kept', MiB));
    expect(ctx.memory.live).toBe(live + 2 * MiB);
    made.destroy();
    outside.destroy();
  });

  it('refuses a single buffer over the device\'s maxBufferSize before asking Dawn', async () => {
    const ctx = await testGpu();
    const limit = ctx.device.limits.maxBufferSize;
    expect(() => ctx.device.createBuffer({ label: 'ledger.huge', size: limit + 16, usage: GPUBufferUsage.STORAGE })).toThrow(/maxBufferSize/);
  });

  it('budgets: configured sizes in decimal and binary units; half the system memory on a software adapter, none of ours on a GPU', () => {
    expect(parseByteSize('24GB')).toBe(24e9);
    expect(parseByteSize('24GiB')).toBe(24 * 2 ** 30);
    expect(parseByteSize(' 512 MiB ')).toBe(512 * MiB);
    expect(parseByteSize('3e9')).toBe(3e9);
    expect(parseByteSize('')).toBeUndefined();
    for (const bad of ['lots', '-1GB', '0', '12 parsecs']) expect(() => parseByteSize(bad), bad).toThrow(/--gpu-memory-budget: expected a size/);
    expect(estimatedBudget(true, 16e9)).toEqual({ totalBytes: 8e9, source: 'system-memory' });
    expect(estimatedBudget(false, 16e9)).toEqual({ totalBytes: Infinity, source: 'none' });
    expect(formatBytes(1.5 * 2 ** 30)).toBe('1.50 GiB');
    expect(formatBytes(512)).toBe('512 B');
  });
});
