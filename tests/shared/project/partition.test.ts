import { describe, expect, it } from 'vitest';
import { PartitionedRunSchema, PartitionSchema, redactQueueUrl, type Partition } from '../../../shared/project/partition.js';
import { parseManifest } from '../../../shared/project/manifest.js';
import { validManifest } from '../../helpers/projects.js';

function partition(overrides: Partial<Partition> = {}): Partition {
  const block = (id: string, u0: number, u1: number) => ({ id, core: { min: [u0, -1] as [number, number], max: [u1, 1] as [number, number] }, bounds: { min: [u0 - 0.2, -1.2] as [number, number], max: [u1 + 0.2, 1.2] as [number, number] }, height: [0, 1] as [number, number], cameras: ['a.jpg'], points: 10 });
  return {
    id: 'partition-001',
    createdAt: '2026-12-02T00:00:00.000Z',
    method: 'grid',
    target: { blocks: 2 },
    overlap: 0.1,
    ground: { origin: [0, 0, 0], axisU: [1, 0, 0], axisV: [0, 0, 1], up: [0, -1, 0] },
    blocks: [block('block-01', -1, 0), block('block-02', 0, 1)],
    ...overrides,
  };
}

describe('partition schema', () => {
  it('accepts a partition and keeps it through a manifest round trip', () => {
    const m = validManifest({ partitions: [partition()] });
    expect(parseManifest(JSON.parse(JSON.stringify(m)), '/p.argo', { dataDir: 'd' }).manifest.partitions).toEqual([partition()]);
  });

  it('refuses axes that are not orthonormal, inverted rectangles, duplicate blocks and a block without cameras', () => {
    expect(PartitionSchema.safeParse(partition({ ground: { origin: [0, 0, 0], axisU: [1, 0, 0], axisV: [1, 0, 0], up: [0, -1, 0] } })).error?.issues[0]?.message).toMatch(/orthonormal/);
    const inverted = partition();
    inverted.blocks[0]!.core = { min: [1, 0], max: [0, 1] };
    expect(PartitionSchema.safeParse(inverted).error?.issues[0]?.message).toMatch(/min <= max/);
    const twice = partition();
    twice.blocks[1]!.id = 'block-01';
    expect(PartitionSchema.safeParse(twice).error?.issues[0]?.message).toMatch(/distinct/);
    const blind = partition();
    blind.blocks[0]!.cameras = [];
    expect(PartitionSchema.safeParse(blind).error?.issues[0]?.message).toMatch(/at least one camera/);
  });

  it('records a partitioned run beside the usual run fields', () => {
    const run = { partition: 'partition-001', queue: 'redis://127.0.0.1:6379', blocks: [{ block: 'block-01', status: 'running', step: 10, total: 100, attempts: 1, checkpointsDir: 'd/runs/run-001/blocks/block-01' }], merge: { status: 'pending', fineTuneSteps: 0 } };
    expect(PartitionedRunSchema.parse(run)).toEqual(run);
    expect(PartitionedRunSchema.safeParse({ ...run, blocks: [{ ...run.blocks[0], status: 'lost' }] }).success).toBe(false);
  });

  it('removes a queue password before it is stored or shown', () => {
    expect(redactQueueUrl('redis://:hunter2@host:6379/0')).toBe('redis://:***@host:6379/0');
    expect(redactQueueUrl('rediss://user:hunter2@host:6380')).toBe('rediss://user:***@host:6380');
    expect(redactQueueUrl('redis://hunter2@host')).toBe('redis://***@host');
    expect(redactQueueUrl('redis://host:6379')).toBe('redis://host:6379');
  });
});
