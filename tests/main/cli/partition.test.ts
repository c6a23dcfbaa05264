import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Project } from '../../../main/engine/project/project.js';
import { importDataset } from '../../../main/engine/project/import.js';
import { cleanedTempDirs } from '../../helpers/datasets.js';
import { cliJson } from '../../helpers/cli-json.js';
import { freshSeed, rng } from '../../helpers/random.js';
import { writeCityDataset } from '../engine/partition/city-dataset.js';
import { syntheticCity } from '../engine/partition/synthetic-city.js';

const temp = cleanedTempDirs(afterAll);

async function cityProject(options: Parameters<typeof syntheticCity>[1]): Promise<string> {
  const seed = freshSeed();
  const dir = await temp('partition-cli');
  await writeCityDataset(syntheticCity(rng(seed), options), path.join(dir, 'city'), rng(seed + 1));
  const file = path.join(dir, 'city.argo');
  await importDataset(path.join(dir, 'city'), file);
  return file;
}

describe('argonaut partition', () => {
  it('splits a project into blocks, keeps the partition, plans it, lists and removes it', async () => {
    const file = await cityProject({ cols: 4, rows: 2 });
    const made = await cliJson(['partition', file, '--blocks', '2', '--method', 'kd', '--overlap', '0.25', '--plan', '--workers', '2']);
    expect(made.code, made.err).toBe(0);
    const partition = made.result!.partition as { id: string; blocks: { id: string; cameras: string[]; points: number }[] };
    expect(partition.id).toBe('partition-001');
    expect(partition.blocks.map((b) => b.id)).toEqual(['block-01', 'block-02']);
    for (const b of partition.blocks) expect(b.cameras.length).toBeGreaterThan(0);
    const plan = made.result!.plan as { blocks: { worker: number; time_s: number; memory_bytes: number }[]; total_s: number; bottleneck: string };
    expect(plan.blocks.map((b) => b.worker).sort()).toEqual([1, 2]);
    expect(plan.total_s).toBeGreaterThanOrEqual(Math.max(...plan.blocks.map((b) => b.time_s)));
    expect((await Project.open(file)).manifest.partitions.map((p) => p.id)).toEqual(['partition-001']);
    const listed = await cliJson(['partition', file, '--list']);
    expect((listed.result!.partition as { id: string }).id).toBe('partition-001');
    const removed = await cliJson(['partition', file, '--remove', 'partition-001']);
    expect(removed.code, removed.err).toBe(0);
    expect((await Project.open(file)).manifest.partitions).toEqual([]);
  });

  it('refuses bad input by name with exit code 3: an empty block, N < 1, NaN, an unknown partition', async () => {
    const file = await cityProject({ cols: 2, rows: 1, spacing: 30, groundPoints: 0 });
    const empty = await cliJson(['partition', file, '--blocks', '3', '--method', 'grid']);
    expect(empty.code).toBe(3);
    expect(String(empty.error!.message)).toMatch(/block-02 .*holds no SfM points: ask for fewer blocks/);
    const zero = await cliJson(['partition', file, '--blocks', '0']);
    expect(zero.code).toBe(3);
    expect(String(zero.error!.message)).toMatch(/block count must be a whole number >= 1 \(got 0\)/);
    const nan = await cliJson(['partition', file, '--blocks', 'NaN']);
    expect(nan.code).toBe(3);
    expect(String(nan.error!.message)).toMatch(/--blocks must be a number \(got "NaN"\)/);
    const overlap = await cliJson(['partition', file, '--blocks', '2', '--overlap', 'x']);
    expect(overlap.code).toBe(3);
    expect(String(overlap.error!.message)).toMatch(/--overlap must be a number/);
    const unknown = await cliJson(['partition', file, '--remove', 'partition-009']);
    expect(unknown.code).toBe(3);
    expect(String(unknown.error!.message)).toMatch(/no partition partition-009 \(it has /);
    expect((await Project.open(file)).manifest.partitions).toEqual([]);
  });
});
