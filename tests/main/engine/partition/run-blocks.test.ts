/**
 * Partitioned runs without a queue (the embedded default) and the block records' one-writer
 * scheme: status files merged into the manifest by its one writer, with no update lost.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { blockDir, blockStatusFile, mergeBlockStatuses, readBlockStatus, writeBlockStatus, type PartitionedProjectRun } from '../../../../main/engine/partition/block-status.js';
import { defaultBlockInput, type BlockInputOf } from '../../../../main/engine/partition/block-train.js';
import { partitionedRun, trainPartitioned } from '../../../../main/engine/partition/run-blocks.js';
import { mergeBlocks } from '../../../../main/engine/partition/merge.js';
import { Project } from '../../../../main/engine/project/project.js';
import { readPly } from '../../../../main/engine/formats/ply.js';
import type { TrainEvent } from '../../../../shared/contract/train-events.js';
import { cleanedTempDirs } from '../../../helpers/datasets.js';
import { testGpu } from '../../../helpers/gpu.js';
import { partitionedProject } from '../../../helpers/partitions.js';

const temp = cleanedTempDirs(afterAll);

describe('block status files: one writer per block, merged by the manifest\'s one writer', () => {
  it('many interleaved updates of two blocks while the coordinator merges: the manifest ends with every block\'s last update', async () => {
    const project = await partitionedProject(await temp('status'), { 'train.iterations': 40 });
    const { run } = await partitionedRun(project, { partition: 'partition-001' });
    const writer = async (block: string, worker: string) => {
      for (let step = 1; step <= 40; step++) {
        const record = { ...run.partition.blocks.find((b) => b.block === block)!, status: 'running' as const, step, worker, attempts: 1 };
        await writeBlockStatus(project, run.id, record);
      }
      await writeBlockStatus(project, run.id, { ...run.partition.blocks.find((b) => b.block === block)!, status: 'finished', step: 40, worker, attempts: 1, splats: `${block}.ply`, splatCount: 7 });
    };
    let merging = true;
    const coordinator = (async () => {
      while (merging) {
        if (await mergeBlockStatuses(project, run)) await project.save();
        await new Promise((r) => setTimeout(r, 1));
      }
    })();
    await Promise.all([writer('block-00', 'host-a:1'), writer('block-01', 'host-b:2')]);
    merging = false;
    await coordinator;
    await mergeBlockStatuses(project, run);
    await project.save();
    const saved = (await Project.open(project.file)).manifest.runs.at(-1) as PartitionedProjectRun;
    expect(saved.partition.blocks.map((b) => [b.block, b.status, b.step, b.worker, b.splatCount])).toEqual([
      ['block-00', 'finished', 40, 'host-a:1', 7],
      ['block-01', 'finished', 40, 'host-b:2', 7],
    ]);
    expect(saved.step).toBe(80);
  });

  it('a damaged status file is named and the manifest\'s record kept', async () => {
    const project = await partitionedProject(await temp('status-bad'), { 'train.iterations': 10 });
    const { run } = await partitionedRun(project, { partition: 'partition-001' });
    await writeBlockStatus(project, run.id, { ...run.partition.blocks[0]!, status: 'running', step: 3 });
    const { writeFile } = await import('node:fs/promises');
    await writeFile(blockStatusFile(project, run.id, 'block-00'), '{"updatedAt": ');
    const warnings: string[] = [];
    expect(await readBlockStatus(project, run.id, 'block-00', (m) => warnings.push(m))).toBeUndefined();
    expect(warnings[0]).toContain(`${blockStatusFile(project, run.id, 'block-00')}: not valid JSON`);
  });

  it('an unknown partition is refused by name, listing the ones the project has', async () => {
    const project = await partitionedProject(await temp('no-partition'), { 'train.iterations': 10 });
    await expect(partitionedRun(project, { partition: 'partition-009' })).rejects.toThrow(`${project.file}: no partition partition-009 (it has partition-001)`);
  });
});

describe('trainPartitioned without a queue: the blocks in turn, in this process', () => {
  it('trains each block on its own views with checkpoints in its own folder, then merges; interrupted, it continues from the block\'s checkpoint', async () => {
    const ctx = await testGpu();
    const project = await partitionedProject(await temp('in-process'), { 'train.iterations': 60, 'train.checkpointEvery': 20 });
    // The real block input, watched: which views each block's training loads.
    const real = defaultBlockInput();
    const seenViews: string[][] = [];
    const blockInput: BlockInputOf = async (p, partition, id, r) => {
      const input = await real(p, partition, id, r);
      const views: string[] = [];
      seenViews.push(views);
      return { ...input, viewFilter: (v, i) => (input.viewFilter(v, i) ? (views.push(v.name), true) : false) };
    };
    const merges: number[] = [];
    const merge: NonNullable<Parameters<typeof trainPartitioned>[2]['mergeBlocks']> = async (c, p, r, o) => {
      merges.push(o.fineTuneSteps);
      return mergeBlocks(c, p, r, o);
    };
    // First: stopped during block-01 after its first checkpoint.
    const stop = new AbortController();
    const events: TrainEvent[] = [];
    const first = await trainPartitioned(ctx, project, {
      partition: 'partition-001', blockInput, mergeBlocks: merge, signal: stop.signal,
      onEvent: (e) => {
        events.push(e);
        if (e.type === 'checkpoint' && e.file.includes('block-01') && e.step >= 20) stop.abort();
      },
    });
    expect(first.run.status).toBe('interrupted');
    expect(merges).toEqual([]);
    const [b0, b1] = first.run.partition.blocks;
    expect(b0).toMatchObject({ status: 'finished', step: 60, worker: 'in-process', attempts: 1 });
    expect(b1!.status).toBe('queued');
    expect(b1!.latestCheckpoint!.step).toBeGreaterThanOrEqual(20);
    expect(b1!.latestCheckpoint!.file).toContain(path.join('blocks', 'block-01', 'checkpoints'));
    expect(existsSync(path.join(blockDir(project, first.run.id, 'block-00'), 'splats.ply'))).toBe(true);
    // Each block trained on its own cameras (and evaluated on the one test view, img_0, when it sees the block).
    const cameras = project.manifest.partitions[0]!.blocks.map((b) => b.cameras);
    expect(seenViews[0]!.filter((n) => n !== 'img_0.png').sort()).toEqual([...cameras[0]!].sort());
    expect(seenViews[1]!.filter((n) => n !== 'img_0.png').sort()).toEqual([...cameras[1]!].sort());
    expect(events.filter((e) => e.type === 'block' && e.status === 'finished').map((e) => (e as { block: string }).block)).toEqual(['block-00']);

    // Again (a fresh process would reopen the file): block-00 is kept, block-01 continues.
    const reopened = await Project.open(project.file);
    const resumedAt = b1!.latestCheckpoint!.step;
    const logs: string[] = [];
    const second = await trainPartitioned(ctx, reopened, { partition: 'partition-001', blockInput, mergeBlocks: merge, mergeFineTune: 5, onEvent: (e) => void (e.type === 'log' && logs.push(e.message)) });
    expect(second.alreadyFinished).toEqual(['block-00']);
    expect(second.run.id).toBe(first.run.id);
    expect(logs.some((m) => m.includes(`block-01 continues from step ${resumedAt}`))).toBe(true);
    expect(second.run.status).toBe('finished');
    expect(second.run.partition.blocks.map((b) => [b.status, b.step, b.attempts])).toEqual([['finished', 60, 1], ['finished', 60, 2]]);
    expect(merges).toEqual([5]);
    const saved = JSON.parse(readFileSync(project.file, 'utf8'));
    expect(saved.runs.at(-1).partition.merge).toMatchObject({ status: 'finished', fineTuneSteps: 5 });
    expect(existsSync(reopened.resolve(saved.runs.at(-1).outputs.splats))).toBe(true);
    const splats = await readPly(reopened.resolve(second.run.partition.blocks[1]!.splats!));
    expect(splats.count).toBe(second.run.partition.blocks[1]!.splatCount);
  }, 120_000);
});
