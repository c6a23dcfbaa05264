/**
 * The Partition panel's store over the real contract runtime against a scripted engine: making
 * a partition, the blocks' rows from the newest run trained on it and then from `block` events,
 * the merged splats loaded when the merge finishes, and Train blocks: the `train.partitioned`
 * call it makes, the job the Train view then follows, refused while a job runs, errors as banners.
 */
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import { contract, type Services } from '../../../shared/contract/index.js';
import type { Partition } from '../../../shared/project/partition.js';
import type { ServiceImpl } from '../../../shared/rpc/define.js';
import { createClient, serve } from '../../../shared/rpc/runtime.js';
import { createMemoryTransportPair } from '../../../shared/rpc/transport.js';
import { ArgonautError } from '../../../shared/rpc/errors.js';
import { useNoticeStore } from '../../../renderer/src/stores/notices.js';
import { queueUrlWithPassword, usePartitionStore } from '../../../renderer/src/stores/partitions.js';
import { useSceneStore } from '../../../renderer/src/stores/scene.js';
import { useTrainingStore } from '../../../renderer/src/stores/training.js';
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

  it('Train blocks: starts train.partitioned for the selected partition with the queue, the fine-tune and the project\'s own parameters; the Train view follows the job; not while a job runs; a refusal is a Viewer banner', async () => {
    const [clientSide, serverSide] = createMemoryTransportPair();
    const calls: Record<string, unknown>[] = [];
    const scripted = async (args: Record<string, unknown>) => {
      calls.push(args);
      if (String(args.queue).includes('wrong')) throw new ArgonautError('bad_input', 'redis://:***@queue:6379: Redis refused the password (WRONGPASS): check the user and password in the queue URL');
      return { job: `job-${calls.length}` };
    };
    const impl = {
      projects: { partitions: async () => ({ partitions: [PARTITION], runs: [] }) },
      train: { partitioned: scripted },
    };
    const server = serve(contract, impl as unknown as ServiceImpl<Services>, serverSide, { caller: 'test' });
    const client = createClient(contract, clientSide);
    const scene = useSceneStore();
    scene.attach(client);
    scene.project = '/p/city.argo';
    const training = useTrainingStore();
    training.attach(client);
    training.values = { ...training.values, 'train.iterations': 500 };
    const store = usePartitionStore();
    store.attach(client);
    await store.load();
    expect(store.canTrain).toBe(true);

    store.trainSettings = { queue: '  ', password: 'ignored', mergeFineTune: 25 };
    expect(await store.trainBlocks()).toBe('job-1');
    expect(calls[0]).toMatchObject({ project: '/p/city.argo', partition: 'partition-001', mergeFineTune: 25 });
    expect(calls[0]!.params).toEqual({}); // the Train view's 500 is not the project's: not sent (the contract's default)
    expect(calls[0]).not.toHaveProperty('queue'); // blank: in the engine
    expect(training.job).toMatchObject({ id: 'job-1', state: 'starting', project: '/p/city.argo', partitioned: true });
    expect(store.canTrain).toBe(false);
    server.emit('job', { job: 'job-1', state: 'running', project: '/p/city.argo', run: 'run-001', step: 0, total: 1000 });
    await settle();
    expect(store.canTrain).toBe(false);
    expect(training.job?.partitioned).toBe(true);
    expect(training.canPause).toBe(false); // a partitioned job stops, it does not pause
    expect(training.canStop).toBe(true);
    server.emit('job', { job: 'job-1', state: 'finished', project: '/p/city.argo', run: 'run-001', step: 1000, total: 1000 });
    await settle();
    expect(store.canTrain).toBe(true);

    // A job whose events arrive before the call's reply is followed from them, and still known as partitioned.
    impl.train.partitioned = async (args: Record<string, unknown>) => {
      calls.push(args);
      server.emit('job', { job: 'job-early', state: 'running', project: '/p/city.argo', step: 0, total: 10 });
      await settle();
      return { job: 'job-early' };
    };
    expect(await store.trainBlocks()).toBe('job-early');
    expect(training.job).toMatchObject({ id: 'job-early', state: 'running', partitioned: true });
    expect(training.canPause).toBe(false);
    server.emit('job', { job: 'job-early', state: 'finished', project: '/p/city.argo', step: 10, total: 10 });
    await settle();

    impl.train.partitioned = scripted;
    store.trainSettings = { queue: 'redis://queue:6379', password: 'wrong', mergeFineTune: 0 };
    expect(await store.trainBlocks()).toBeUndefined();
    expect(calls[2]).toMatchObject({ queue: 'redis://:wrong@queue:6379' });
    const [notice] = useNoticeStore().forScope('viewer');
    expect(notice).toMatchObject({ code: 'bad_input', message: expect.stringContaining('Redis refused the password (WRONGPASS)') });
    expect(JSON.stringify(notice)).not.toContain('wrong@');
    expect(training.job?.id).toBe('job-early');
    expect(store.canTrain).toBe(true);
  });

  it('puts the password field into the queue URL, percent-encoded; a URL that does not parse goes as typed', () => {
    expect(queueUrlWithPassword('redis://queue:6379', 's@me:x')).toBe('redis://:s%40me%3Ax@queue:6379');
    expect(queueUrlWithPassword('rediss://user@queue:6380/2', 'pw')).toBe('rediss://user:pw@queue:6380/2');
    expect(queueUrlWithPassword('redis://:old@queue:6379', 'new')).toBe('redis://:new@queue:6379');
    expect(queueUrlWithPassword('redis://queue:6379', '')).toBe('redis://queue:6379');
    expect(queueUrlWithPassword('not a url', 'pw')).toBe('not a url');
  });
});
