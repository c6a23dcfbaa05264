import { describe, expect, it } from 'vitest';
import { formatProfileTable } from '../../../../shared/contract/profile.js';
import { profileScans } from '../../../parity/profiler.parity.js';

describe('GPU profiler', () => {
  it('times every dispatch, and its table sums to the measured GPU time within the wall-clock span', async () => {
    const { report, dispatches, levels } = await profileScans({}, 2_000_000, 3);
    expect(levels).toBeGreaterThan(1);
    const calls = report.rows.reduce((s, r) => s + r.calls, 0);
    expect(calls).toBe(dispatches);
    expect(report.rows.map((r) => r.kernel).sort()).toEqual(['scan.reduce_blocks', 'scan.scan_blocks']);
    const sum = report.rows.reduce((s, r) => s + r.totalMs, 0);
    expect(sum).toBeCloseTo(report.gpuMs, 9);
    expect(report.gpuMs).toBeGreaterThan(0);
    expect(report.gpuMs).toBeLessThanOrEqual(report.wallMs);
    const percent = report.rows.reduce((s, r) => s + r.percent, 0);
    expect(percent).toBeCloseTo(100, 6);
    for (const r of report.rows) expect(r.avgMs).toBeCloseTo(r.totalMs / r.calls, 9);
    const table = formatProfileTable(report);
    expect(table).toMatch(/scan\.scan_blocks/);
    expect(table).toMatch(/GPU [\d.]+ ms over [\d.]+ ms wall-clock/);
    // each row says how its pipeline runs here (variant and constants)
    for (const r of report.rows) expect(r.config).toMatch(/^(portable|subgroup); .*WG=256/);
    expect(table).toMatch(/scan\.scan_blocks .*(portable|subgroup); .*WG=256/);
  });

  it('costs nothing when off: no rows', async () => {
    const { openGpu } = await import('../../../../main/engine/gpu/context.js');
    const ctx = await openGpu({ profile: false });
    expect(ctx.profiler.mode).toBe('off');
    expect((await ctx.profiler.report()).rows).toEqual([]);
    ctx.destroy();
  });
});
