import { defineStore } from 'pinia';
import { computed, markRaw, ref, shallowRef } from 'vue';
import type { PartitionsResultValue } from '../../../shared/contract/partitions.js';
import type { Partition } from '../../../shared/project/partition.js';
import type { StudioClient } from '../api/client.js';
import type { BlockState } from '../viewer/partition-boxes.js';
import { useLogStore } from './logs.js';
import { useNoticeStore } from './notices.js';
import { useSceneStore } from './scene.js';
import { useTrainingStore } from './training.js';

/** One block as the Partition panel shows it: its size, and its training's state, progress and worker. */
export interface BlockRow {
  id: string;
  cameras: number;
  points: number;
  state: BlockState;
  step: number;
  total: number;
  worker?: string;
}

type BlockLive = { status: Exclude<BlockState, 'none'>; step: number; total: number; worker?: string };

/**
 * The Viewer's Partition panel (docs/scale.md): the shown project's partitions
 * (`projects.partitions`), a new one made from the panel's settings (`projects.partition`), the
 * blocks of the selected one with their state, progress and worker (the newest run trained on it,
 * then the `block` events of a job training it), and the live scene: the finished blocks' splats
 * as each block finishes (`projects.blockSplats`), the run's merged splats once the merge finishes.
 * Train blocks starts a job training the selected partition (`train.partitioned`, with the
 * project's own parameters, as the CLI's `train p.argo --partition ID`), in the engine or on a
 * queue for workers; the training store follows it.
 */
export const usePartitionStore = defineStore('partitions', () => {
  const partitions = shallowRef<Partition[]>([]);
  const runs = shallowRef<PartitionsResultValue['runs']>([]);
  const selectedId = ref<string>();
  const showBoxes = ref(true);
  const live = ref<Record<string, BlockLive>>({});
  const merge = ref<'running' | 'finished' | 'failed'>();
  const settings = ref({ by: 'blocks' as 'blocks' | 'blockSize', blocks: 4, blockSize: 10, method: 'grid' as 'grid' | 'kd', overlap: 0.2 });
  /**
   * Train blocks: a queue URL (empty: the blocks train in the engine, one after another), its
   * password apart (a masked field, so it is not on screen) and the merge's fine-tune steps.
   */
  const trainSettings = ref({ queue: '', password: '', mergeFineTune: 0 });
  const busy = ref(false);
  let client: StudioClient | undefined;

  const project = computed(() => useSceneStore().project);
  const selected = computed(() => partitions.value.find((p) => p.id === selectedId.value) ?? partitions.value.at(-1));
  /** The newest run trained on the selected partition. */
  const run = computed(() => [...runs.value].reverse().find((r) => r.partition.partition === selected.value?.id));

  const rows = computed<BlockRow[]>(() =>
    (selected.value?.blocks ?? []).map((b) => {
      const recorded = run.value?.partition.blocks.find((r) => r.block === b.id);
      const now = live.value[b.id];
      const state = now?.status ?? recorded?.status ?? 'none';
      return { id: b.id, cameras: b.cameras.length, points: b.points, state, step: now?.step ?? recorded?.step ?? 0, total: now?.total ?? recorded?.total ?? 0, ...((now?.worker ?? recorded?.worker) ? { worker: now?.worker ?? recorded?.worker } : {}) };
    }),
  );
  /** Train blocks is possible: a partition to train, no call under way, no job holding the engine. */
  const canTrain = computed(() => Boolean(project.value && selected.value) && !busy.value && !useTrainingStore().active);
  const states = computed(() => Object.fromEntries(rows.value.map((r) => [r.id, r.state])) as Record<string, BlockState>);

  function attach(c: StudioClient) {
    client = c;
    c.on('block', (e) => {
      live.value = { ...live.value, [e.block]: { status: e.status, step: e.step, total: e.total, ...(e.worker ? { worker: e.worker } : {}) } };
      if (e.status === 'finished' || e.status === 'failed') useLogStore().studio(e.status === 'failed' ? 'warn' : 'info', `${e.block} ${e.status}${e.worker ? ` (${e.worker})` : ''}`);
      if (e.status === 'finished' && merge.value !== 'finished') void showFinishedBlocks();
    });
    c.on('merge', (e) => {
      merge.value = e.status;
      if (e.status === 'finished') {
        useLogStore().studio('info', `merged ${e.splatCount?.toLocaleString('en-US') ?? ''} splats`);
        void useSceneStore().reloadSplats().catch((error: unknown) => useNoticeStore().report(error, 'viewer'));
        void load();
      }
    });
  }

  /** The finished blocks so far (cropped to their cores, joined) in the viewer, until the merge replaces them. */
  async function showFinishedBlocks(): Promise<void> {
    const scene = useSceneStore();
    const path = scene.project;
    if (!client || !path) return;
    try {
      const found = await client.api.projects.blockSplats({ project: path });
      if (scene.project !== path || merge.value === 'finished') return;
      scene.splats = markRaw({ buffer: found.data, count: found.count });
      scene.source = { kind: 'project', project: path, step: found.step };
    } catch (error) {
      useNoticeStore().report(error, 'viewer');
    }
  }

  async function load(): Promise<void> {
    if (!client || !project.value) {
      partitions.value = [];
      runs.value = [];
      return;
    }
    try {
      const result = await client.api.projects.partitions({ project: project.value });
      partitions.value = result.partitions;
      runs.value = result.runs;
    } catch (error) {
      useNoticeStore().report(error, 'viewer');
    }
  }

  /** Splits the shown project's scene with the panel's settings; the new partition is selected. */
  async function make(): Promise<Partition | undefined> {
    if (!client || !project.value) return undefined;
    const s = settings.value;
    busy.value = true;
    try {
      const partition = await client.api.projects.partition({ project: project.value, method: s.method, overlap: s.overlap, ...(s.by === 'blocks' ? { blocks: s.blocks } : { blockSize: s.blockSize }) });
      partitions.value = [...partitions.value, partition];
      selectedId.value = partition.id;
      live.value = {};
      return partition;
    } catch (error) {
      useNoticeStore().report(error, 'viewer');
      return undefined;
    } finally {
      busy.value = false;
    }
  }

  /** Starts training the selected partition's blocks as a job; the Train view follows it. Errors are the Viewer's banners (names, never a password: the engine redacts it). */
  async function trainBlocks(): Promise<string | undefined> {
    const file = project.value;
    const partition = selected.value;
    if (!client || !file || !partition) return undefined;
    const queue = queueUrlWithPassword(trainSettings.value.queue.trim(), trainSettings.value.password);
    busy.value = true;
    // Before the call: the new job's first block events may arrive before its reply.
    live.value = {};
    merge.value = undefined;
    try {
      const { job } = await client.api.train.partitioned({
        // No params: the Train view holds registry defaults, not the project's, and would override them.
        project: file, partition: partition.id, mergeFineTune: trainSettings.value.mergeFineTune,
        ...(queue ? { queue } : {}),
      });
      useTrainingStore().follow({ id: job, state: 'starting', project: file, partitioned: true });
      return job;
    } catch (error) {
      useNoticeStore().report(error, 'viewer');
      return undefined;
    } finally {
      busy.value = false;
    }
  }

  return { partitions, runs, selectedId, selected, run, rows, states, showBoxes, live, merge, settings, trainSettings, busy, canTrain, project, attach, load, make, trainBlocks };
});

/**
 * The queue URL with the password field's password in it (`redis://host:6379` + `pw` is
 * `redis://:pw@host:6379`, percent-encoded). A URL that does not parse goes as typed: the engine
 * names what is wrong with it, password redacted.
 */
export function queueUrlWithPassword(url: string, password: string): string {
  if (!url || !password) return url;
  try {
    const parsed = new URL(url);
    if (!parsed.hostname) return url;
    parsed.password = password;
    return parsed.toString();
  } catch {
    return url;
  }
}

