import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { H200_STEP_COSTS, memoryBytes, planPartition, stepCostsOfBench, stepSeconds } from '../../../../main/engine/partition/plan.js';
import { simulationTableRows } from '../../../../main/engine/partition/simulate.js';

const root = path.resolve(import.meta.dirname, '../../../..');
const options = { workers: 2, iterations: 1000, gpuBytes: 2 ** 34, storageBytesPerS: 1e9, checkpointEvery: 0, fineTuneSteps: 0, mergedSplats: 1000, pixels: 1000, cameras: 10 };

describe('plan', () => {
  it('takes its per-step costs from the bench result it names', () => {
    const bench = JSON.parse(readFileSync(path.join(root, H200_STEP_COSTS.source), 'utf8'));
    expect(stepCostsOfBench(bench, H200_STEP_COSTS.source)).toEqual(H200_STEP_COSTS);
  });

  it('gives the measured run back: its step time and its peak memory', () => {
    const c = H200_STEP_COSTS;
    expect(stepSeconds(c, c.splats, c.pixels)).toBeCloseTo(c.secondsPerStep, 12);
    expect(memoryBytes(c, c.splats, c.pixels, c.trainViews)).toBeCloseTo(c.peakBytes, 0);
    // twice the splats: the per-splat share of the step doubles, the per-pixel share stays
    expect(stepSeconds(c, 2 * c.splats, c.pixels)).toBeCloseTo(c.secondsPerStep * (1 + (1 - c.pixelShare)), 12);
  });

  it('puts the longest blocks first on the freest worker, and says what does not fit', () => {
    const c = H200_STEP_COSTS;
    const blocks = [3, 1, 2, 2].map((k, i) => ({ id: `block-0${i + 1}`, cameras: 10, splats: k * c.splats, pixels: 1000 }));
    const plan = planPartition(blocks, options);
    const perWorker = [0, 1].map((w) => plan.blocks.filter((b) => b.worker === w).reduce((s, b) => s + b.timeS, 0));
    expect(plan.blocksS).toBeCloseTo(Math.max(...perWorker), 9);
    // longest first: 3 and 2 start, then 2 goes beside the 2 and 1 beside the 3 (3 + 1 | 2 + 2)
    expect(plan.blocks.find((b) => b.id === 'block-01')!.worker).toBe(plan.blocks.find((b) => b.id === 'block-02')!.worker);
    expect(plan.serialS).toBeCloseTo(perWorker[0]! + perWorker[1]!, 9);
    expect(plan.bottleneck).toBe('compute');
    const small = planPartition(blocks, { ...options, gpuBytes: memoryBytes(c, 2.5 * c.splats, 1000, 10) });
    expect(small.blocks.filter((b) => !b.fits).map((b) => b.id)).toEqual(['block-01']);
    expect(small.bottleneck).toBe('memory');
    expect(small.notes.join(' ')).toMatch(/1 block\(s\) need more than the GPU/);
  });

  it("is storage-bound when the workers' checkpoints together outrun the shared storage", () => {
    const blocks = ['block-01', 'block-02'].map((id) => ({ id, cameras: 10, splats: 1e6, pixels: 1000 }));
    const plan = planPartition(blocks, { ...options, iterations: 10, checkpointEvery: 1, storageBytesPerS: 1e6 });
    expect(plan.bottleneck).toBe('storage');
    expect(plan.blocksS).toBeCloseTo(plan.storageBoundS, 9);
    expect(plan.storageBoundS).toBeGreaterThan(1.9 * plan.computeS);
  });

  it('docs/scale.md shows the simulation these numbers give', () => {
    const doc = readFileSync(path.join(root, 'docs/scale.md'), 'utf8');
    for (const row of simulationTableRows()) expect(doc).toContain(row);
  });
});
