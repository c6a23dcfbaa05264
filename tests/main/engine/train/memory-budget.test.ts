import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TrainEvent } from '../../../../shared/contract/train-events.js';
import { estimatedBudget, formatBytes } from '../../../../main/engine/gpu/memory.js';
import { importDataset } from '../../../../main/engine/project/import.js';
import { Project } from '../../../../main/engine/project/project.js';
import { trainProject } from '../../../../main/engine/project/train-run.js';
import { runTrainingJob } from '../../../../main/engine/train/job.js';
import { trainerConfigFromParams, trainParamValues } from '../../../../main/engine/train/trainer-config.js';
import { defaultTrainerConfig, Trainer } from '../../../../main/engine/train/trainer.js';
import { MCMC_DEFAULTS } from '../../../../main/engine/train/densify-mcmc.js';
import { readCheckpoint, writeCheckpoint } from '../../../../main/engine/train/checkpoint.js';
import { trainingDataFromPath } from '../../../../main/engine/train/dataset-data.js';
import { tempDir } from '../../../helpers/datasets.js';
import { testGpu } from '../../../helpers/gpu.js';
import { hashFile, tinyDataset } from '../../../helpers/projects.js';
import { randomSplats } from '../../../helpers/splat-sets.js';

const MiB = 2 ** 20;

/**
 * ADC doubling every splat at each refine (any gradient grows): the tiny dataset's 5 splats reach
 * 640 by step 36 and outgrow their 1,034 of capacity at the refine of step 40 (refines stop at half the iterations).
 */
const ADC_DOUBLING = { 'train.iterations': 100, 'train.growGrad2d': 1e-12, 'train.refineStart': 1, 'train.refineEvery': 5, 'train.refineStop': 100 } as const;

const MCMC = { 'train.strategy': 'mcmc', 'train.maxSplats': 200_000, 'train.iterations': 30, 'train.evalEvery': 0 } as const;

/** Bytes a trainer on `root` holds once built with these parameters (no budget). */
async function setUpBytes(root: string, params: Record<string, string | number>) {
  const ctx = await testGpu();
  const data = await trainingDataFromPath(root, {});
  const before = ctx.memory.live;
  const trainer = await Trainer.create(ctx, data, trainerConfigFromParams(trainParamValues(params)));
  const bytes = ctx.memory.live - before;
  trainer.destroy();
  return bytes;
}

describe('training within a GPU memory budget (forced small on the CPU adapter)', () => {
  afterEach(async () => {
    const ctx = await testGpu();
    ctx.memory.setBudget(estimatedBudget(ctx.info.adapter.software));
    ctx.memory.refuseAsDriver(undefined);
  });

  it('growth past the budget is capped: the run finishes under the cap, said once in the log and on every progress after', async () => {
    const ctx = await testGpu();
    const ds = await tinyDataset();
    // MCMC takes its whole --max-splats capacity at the start: a budget of twice what 4,000 splats take holds far fewer than 200,000
    const small = await setUpBytes(ds.root, { ...MCMC, 'train.maxSplats': 4000 });
    const budget = ctx.memory.live + 2 * small;
    ctx.memory.setBudget({ totalBytes: budget, source: 'configured' });
    const events: TrainEvent[] = [];
    const result = await runTrainingJob(ctx, { source: { kind: 'dataset', path: ds.root }, params: MCMC, onEvent: (e) => void events.push(e) });
    expect(result.steps).toBe(30);
    const cap = result.memoryCap!;
    expect(cap).toMatchObject({ step: 0, budgetBytes: budget, wantedCapacity: 200_016 });
    expect(cap.capacity).toBeGreaterThan(4000);
    expect(cap.capacity).toBeLessThan(200_016);
    expect(cap.splats).toBeLessThanOrEqual(cap.capacity);
    expect(cap.neededBytes).toBeGreaterThan(budget);
    expect(result.splatCount).toBeLessThanOrEqual(cap.splats);
    expect(result.peakGpuBytes).toBeLessThanOrEqual(budget);
    const capLogs = events.filter((e) => e.type === 'log' && e.message.includes('splat growth stopped'));
    expect(capLogs).toHaveLength(1);
    expect(capLogs[0]).toMatchObject({ level: 'warn', message: expect.stringContaining(`the splat count held at or under ${cap.splats.toLocaleString('en-US')} (capacity ${cap.capacity.toLocaleString('en-US')})`) });
    const trainProgress = events.filter((e) => e.type === 'progress' && e.stage === 'train');
    expect(trainProgress.length).toBeGreaterThan(0);
    for (const p of trainProgress) expect(p).toMatchObject({ memoryCap: cap });
  }, 300_000);

  it('a capped run resumes at the capacity it stopped at, capped the same: bit-identical to the uninterrupted capped run', async () => {
    const ctx = await testGpu();
    const ds = await tinyDataset();
    const data = await trainingDataFromPath(ds.root, {});
    const config = defaultTrainerConfig({ strategy: 'mcmc', maxSplats: 200_000, iterations: 40, mcmc: { ...MCMC_DEFAULTS, capMax: 200_000, refineStart: 4, refineEvery: 5, refineStop: 40 } });
    // 1,500 initial splats: past the 1,024 a capacity starts at, so a resume from a grown count would start elsewhere
    const initial = randomSplats(1500, config.shDegree, 5);
    const probe = await Trainer.create(ctx, data, { ...config, maxSplats: 4000, mcmc: { ...config.mcmc, capMax: 4000 } }, { initial });
    const small = ctx.memory.live;
    probe.destroy();
    ctx.memory.setBudget({ totalBytes: 2 * small - ctx.memory.live, source: 'configured' });
    const straight = await Trainer.create(ctx, data, config, { initial });
    for (let i = 0; i < 40; i++) await straight.trainStep();
    const want = await straight.download();
    const cappedAt = straight.memoryCap!;
    expect(cappedAt.capacity).toBeLessThan(200_016);
    straight.destroy();

    const first = await Trainer.create(ctx, data, config, { initial });
    for (let i = 0; i < 17; i++) await first.trainStep();
    await first.settle();
    expect(first.splatCount).toBeGreaterThan(1500); // grown before the checkpoint
    const state = await first.checkpointState();
    first.destroy();
    const file = path.join(await tempDir('memory-resume'), 'step-17.ckpt');
    await writeCheckpoint(file, state.header, state.blobs);
    const resumed = await Trainer.resume(ctx, data, config, await readCheckpoint(file), file);
    expect(resumed.capacity).toBe(cappedAt.capacity);
    expect(resumed.memoryCap).toEqual(cappedAt);
    for (let i = 17; i < 40; i++) await resumed.trainStep();
    const got = await resumed.download();
    resumed.destroy();
    expect(got.count).toBe(want.count);
    for (const key of ['means', 'logScales', 'quats', 'opacityLogits', 'sh'] as const) expect(Buffer.from(got[key].buffer).equals(Buffer.from(want[key].buffer)), key).toBe(true);
  }, 300_000);

  it('a refusal inside a growth (the driver\'s, injected) puts the old capacity back and caps growth; training goes on', async () => {
    const ctx = await testGpu();
    const ds = await tinyDataset();
    const data = await trainingDataFromPath(ds.root, {});
    const config = trainerConfigFromParams(trainParamValues(ADC_DOUBLING));
    const live = ctx.memory.live;
    const trainer = await Trainer.create(ctx, data, config);
    const capacity = trainer.capacity;
    ctx.memory.refuseAsDriver(0, /^raster\./); // the resize's new frame: refused after the new model is made and the old frame freed
    const warnings: string[] = [];
    trainer.onWarning = (m) => warnings.push(m);
    while (trainer.step < 100 && !trainer.memoryCap) await trainer.trainStep();
    expect(trainer.memoryCap, 'the densifier outgrew its capacity within 100 steps').toBeDefined();
    expect(trainer.memoryCap!.message).toContain('the driver refused the allocation');
    expect(trainer.capacity).toBe(capacity);
    expect(trainer.memoryCap!.step).toBe(40);
    expect(trainer.memoryCap!.splats).toBe(capacity);
    expect(trainer.splatCap).toBe(Math.floor((capacity - 16) / 2)); // ADC grows only where a refine's doubling still fits
    while (trainer.step < 100) await trainer.trainStep();
    const splats = await trainer.download();
    expect(splats.count).toBeLessThanOrEqual(trainer.memoryCap!.splats);
    expect(Number.isFinite(splats.means[0])).toBe(true);
    trainer.destroy();
    expect(ctx.memory.live).toBe(live);
  }, 300_000);

  it('a growth past the budget mid-run grows as far as fits (or not at all) and caps there, the peak under the budget', async () => {
    const ctx = await testGpu();
    const ds = await tinyDataset();
    const data = await trainingDataFromPath(ds.root, {});
    const config = trainerConfigFromParams(trainParamValues(ADC_DOUBLING));
    const trainer = await Trainer.create(ctx, data, config);
    const capacity = trainer.capacity;
    const budget = ctx.memory.live + MiB; // short of the 2,304 splats the refine of step 40 wants room for
    ctx.memory.setBudget({ totalBytes: budget, source: 'configured' });
    ctx.memory.resetPeak();
    while (trainer.step < 100) await trainer.trainStep();
    const splats = await trainer.download();
    const cap = trainer.memoryCap!;
    expect(cap).toMatchObject({ step: 40, wantedCapacity: 2304, budgetBytes: budget });
    expect(cap.message).toContain(`needs ${formatBytes(cap.neededBytes)}, over the GPU memory budget of ${formatBytes(budget)}`);
    expect(cap.neededBytes).toBeGreaterThan(budget);
    expect(cap.capacity).toBeGreaterThanOrEqual(capacity);
    expect(cap.capacity).toBeLessThan(2304);
    expect(trainer.capacity).toBe(cap.capacity);
    expect(splats.count).toBeLessThanOrEqual(cap.splats);
    expect(cap.splats).toBe(trainer.capacity);
    expect(ctx.memory.peak).toBeLessThanOrEqual(budget);
    trainer.destroy();
  }, 300_000);

  it('a start that cannot fit is refused (bad_input) with the needed bytes and the budget; the project file stays byte-identical', async () => {
    const ctx = await testGpu();
    const ds = await tinyDataset();
    const dir = await tempDir('memory-refusal');
    const { project } = await importDataset(ds.root, path.join(dir, 'p.argo'));
    const before = hashFile(project.file);
    const budget = ctx.memory.live + 64 * 1024;
    ctx.memory.setBudget({ totalBytes: budget, source: 'configured' });
    const refusal = await trainProject(ctx, await Project.open(project.file), { overrides: { 'train.iterations': 5 } }).catch((e: unknown) => e);
    expect(refusal).toMatchObject({ code: 'bad_input', details: { refusedAtStart: true, budgetBytes: budget, refusedBy: 'budget' } });
    const details = (refusal as { details: { neededBytes: number } }).details;
    expect(details.neededBytes).toBeGreaterThan(64 * 1024);
    expect((refusal as Error).message).toMatch(new RegExp(`needs at least .*\\(${details.neededBytes} bytes.*budget is .*\\(${budget} bytes`));
    expect(hashFile(project.file)).toBe(before);
    expect(ctx.memory.live).toBe(budget - 64 * 1024); // nothing of the refused set-up stays allocated
  }, 300_000);

  it('a driver refusal mid-run fails the run cleanly, losing at most the steps since its last checkpoint; the run then resumes and finishes', async () => {
    const ctx = await testGpu();
    const ds = await tinyDataset();
    const dir = await tempDir('memory-driver-oom');
    const { project } = await importDataset(ds.root, path.join(dir, 'p.argo'));
    const params = { 'train.iterations': 50, 'train.checkpointEvery': 10, 'train.strategy': 'mcmc', 'train.maxSplats': 2000 } as const;
    const failed = await trainProject(ctx, project, {
      overrides: params,
      // at step 25 the next allocation (a readback's staging buffer, at the latest the step-30 checkpoint's) is refused
      between: async (control) => void (control.step === 25 && ctx.memory.refuseAsDriver(0)),
    }).catch((e: unknown) => e);
    expect(failed).toMatchObject({ code: 'unavailable', message: expect.stringContaining('out of GPU memory') });
    const reopened = await Project.open(project.file);
    const run = reopened.manifest.runs[0];
    expect(run).toMatchObject({ status: 'failed', error: { code: 'unavailable' } });
    expect(run.latestCheckpoint!.step).toBeGreaterThanOrEqual(20);
    const lastCheckpoint = run.latestCheckpoint!.step;
    const resumed = await trainProject(ctx, reopened, {});
    expect(resumed.resumedFrom).toBe(lastCheckpoint);
    expect(resumed.run).toMatchObject({ id: run.id, status: 'finished', step: 50 });
  }, 300_000);
});
