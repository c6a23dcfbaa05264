/**
 * Harness page for the Partition panel: the panel (no viewer) over the real contract runtime
 * against a scripted engine in the page, the way the studio's stores talk to the engine host.
 * `window.harness` lets the test read the `train.partitioned` calls the panel made, the Viewer's
 * banners, and emit the job's events (a job running, finished) as the engine would.
 */
import { createPinia } from 'pinia';
import { createApp } from 'vue';
import '../../../renderer/src/styles/theme.css';
import { contract, type Services } from '../../../shared/contract/index.js';
import type { JobState } from '../../../shared/contract/projects.js';
import type { Partition } from '../../../shared/project/partition.js';
import type { ServiceImpl } from '../../../shared/rpc/define.js';
import { ArgonautError } from '../../../shared/rpc/errors.js';
import { createClient, serve } from '../../../shared/rpc/runtime.js';
import { createMemoryTransportPair } from '../../../shared/rpc/transport.js';
import PartitionPanel from '../../../renderer/src/components/partition/PartitionPanel.vue';
import { useNoticeStore } from '../../../renderer/src/stores/notices.js';
import { usePartitionStore } from '../../../renderer/src/stores/partitions.js';
import { useSceneStore } from '../../../renderer/src/stores/scene.js';
import { useTrainingStore } from '../../../renderer/src/stores/training.js';

const PROJECT = '/p/city.argo';
const ground = { origin: [0, 0, 0], axisU: [1, 0, 0], axisV: [0, 1, 0], up: [0, 0, 1] } as Partition['ground'];
const block = (id: string, u0: number, u1: number): Partition['blocks'][number] => ({ id, core: { min: [u0, 0], max: [u1, 4] }, bounds: { min: [u0 - 1, -1], max: [u1 + 1, 5] }, height: [0, 2], cameras: ['a.png', 'b.png'], points: 120 });
const PARTITION: Partition = { id: 'partition-001', createdAt: '2026-12-02T03:00:00.000Z', method: 'grid', target: { blocks: 2 }, overlap: 0.2, ground, blocks: [block('block-01', 0, 4), block('block-02', 4, 8)] };

const calls: Record<string, unknown>[] = [];
const [clientSide, serverSide] = createMemoryTransportPair();
const impl = {
  projects: {
    partitions: async () => ({ partitions: [PARTITION], runs: [] }),
    blockSplats: async () => ({ data: new ArrayBuffer(32), count: 1, step: 10, run: 'run-001' }),
  },
  train: {
    partitioned: async (args: Record<string, unknown>) => {
      calls.push(args);
      if (String(args.queue ?? '').includes(':wrong@')) throw new ArgonautError('bad_input', 'redis://:***@queue:6379: Redis refused the password (WRONGPASS): check the user and password in the queue URL');
      return { job: `job-${calls.length}` };
    },
  },
};
const server = serve(contract, impl as unknown as ServiceImpl<Services>, serverSide, { caller: 'harness' });
const client = createClient(contract, clientSide);

const app = createApp(PartitionPanel, { viewer: undefined });
app.use(createPinia());
useSceneStore().attach(client);
useTrainingStore().attach(client);
usePartitionStore().attach(client);
useSceneStore().project = PROJECT;
app.mount('#app');

Object.assign(window, {
  harness: {
    calls: () => JSON.parse(JSON.stringify(calls)) as Record<string, unknown>[],
    notices: () => useNoticeStore().forScope('viewer').map((n) => ({ code: n.code, message: n.message })),
    job: (job: string, state: JobState) => server.emit('job', { job, state, project: PROJECT, run: 'run-001', step: 0, total: 100 }),
    block: (job: string, name: string, status: 'running' | 'finished', step: number) => server.emit('block', { job, block: name, status, step, total: 100, worker: 'in-process' }),
  },
});
