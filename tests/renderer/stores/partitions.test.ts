/**
 * The Partition panel's store over the real contract runtime against a scripted engine: making
 * a partition, the blocks' rows from the newest run trained on it and then from `block` events,
 * and the merged splats loaded when the merge finishes.
 */
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import { contract, type Services } from '../../../shared/contract/index.js';
import type { Partition } from '../../../shared/project/partition.js';
import type { ServiceImpl } from '../../../shared/rpc/define.js';
import { createClient, serve } from '../../../shared/rpc/runtime.js';
import { createMemoryTransportPair } from '../../../shared/rpc/transport.js';
import { usePartitionStore } from '../../../renderer/src/stores/partitions.js';
import { useSceneStore } from '../../../renderer/src/stores/scene.js';
import { settle } from '../helpers/engine.js';

beforeEach(() => setActivePinia(createPinia()));

const ground = { origin: [0, 0, 0] as [number, number, number], axisU: [1, 0, 0] as [number, number, number], axisV: [0, 1, 0] as [number, number, number], up: [0, 0, 1] as [number, number, number] };
const block = (id: string, u0: number, u1: number) => ({ id, core: { min: [u0, 0] as [number, number], max: [u1, 4] as [number, number] }, bounds: { min: [u0 - 1, -1] as [number, number], max: [u1 + 1, 5] as [number, number] }, height: [0, 2] as [number, number], cameras: ['a.png', 'b.png'], points: 120 });
const PARTITION: Partition = { id: 'partition-001', createdAt: '2026-12-02T03:00:00.000Z', method: 'kd', target: { blocks: 2 }, overlap: 0.25, ground, blocks: [block('block-01', 0, 4), block('block-02', 4, 8)] };

describe('partition store', () => {
  it('makes a partition, shows its blocks from the run record and then from block events, and loads the merged splats', async () => {
    const [clientSide, serverSide] = createMemoryTransportPair();
    const calls: Record<string, unknown>[] = [];
    let splatLoads = 0;
    const run = {
      run: 'run-001', status: 'running' as const,
      partition: { partition: 'partition-001', queue: 'redis://queue:6379', merge: { status: 'pending' as const, fineTuneSteps: 0 }, blocks: [
        { block: 'block-01', status: 'finished' as const, step: 100, total: 100, worker: 'gpu-a:11', attempts: 1, checkpointsDir: 'x' },
        { block: 'block-02', status: 'queued' as const, step: 0, total: 100, attempts: 0, checkpointsDir: 'y' },
      ] },
    };
    const impl = {
      projects: {
        partition: async (args: Record<string, unknown>) => (calls.push(args), PARTITION),
        partitions: async () => ({ partitions: [PARTITION], runs: [run] }),
        splats: async () => (splatLoads++, { data: new ArrayBuffer(32), count: 1, step: 100, run: 'run-001' }),
        blockSplats: async () => ({ data: new ArrayBuffer(64), count: 2, step: 100, run: 'run-001' }),
      },
    };
    const server = serve(contract, impl as unknown as ServiceImpl<Services>, serverSide, { caller: 'test' });
    const client = createClient(contract, clientSide);
    const scene = useSceneStore();
    scene.attach(client);
    scene.project = '/p/city.argo';
    const store = usePartitionStore();
    store.attach(client);
    store.settings = { by: 'blocks', blocks: 2, blockSize: 10, method: 'kd', overlap: 0.25 };
    const made = await store.make();
    expect(made?.id).toBe('partition-001');
    expect(calls[0]).toEqual({ project: '/p/city.argo', method: 'kd', overlap: 0.25, blocks: 2 });
    await store.load();
    expect(store.rows.map((r) => [r.id, r.state, r.step, r.worker])).toEqual([['block-01', 'finished', 100, 'gpu-a:11'], ['block-02', 'queued', 0, undefined]]);
    server.emit('block', { job: 'job-1', block: 'block-02', status: 'running', step: 40, total: 100, worker: 'gpu-b:12' });
    await settle();
    expect(store.rows[1]).toMatchObject({ state: 'running', step: 40, total: 100, worker: 'gpu-b:12' });
    expect(store.states).toEqual({ 'block-01': 'finished', 'block-02': 'running' });
    server.emit('block', { job: 'job-1', block: 'block-02', status: 'finished', step: 100, total: 100, worker: 'gpu-b:12', splats: '/p/b2.ply' });
    await settle();
    expect(scene.splats?.count).toBe(2); // the finished blocks, cropped and joined
    expect(scene.source).toEqual({ kind: 'project', project: '/p/city.argo', step: 100 });
    server.emit('merge', { job: 'job-1', status: 'finished', splats: '/p/splats.ply', splatCount: 1 });
    await settle();
    expect(store.merge).toBe('finished');
    expect(splatLoads).toBe(1);
    expect(scene.splats?.count).toBe(1); // the merged splats
  });
});
