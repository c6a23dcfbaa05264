/**
 * The Home view's project store over the real contract runtime (schemas, in-memory transport,
 * real `serve`) against a scripted engine: what it sends for each kind of new project, how it
 * follows a capture task whose events may arrive before the call returns, the report, frames,
 * failures as notices on Home, and handing the project to Train.
 */
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import { contract, type ProjectSummary, type Services, type TaskStatus } from '../../../shared/contract/index.js';
import type { CaptureReportView } from '../../../shared/contract/tasks.js';
import type { ServiceImpl } from '../../../shared/rpc/define.js';
import { ArgonautError } from '../../../shared/rpc/errors.js';
import { createClient, serve } from '../../../shared/rpc/runtime.js';
import { createMemoryTransportPair } from '../../../shared/rpc/transport.js';
import { useNavigationStore } from '../../../renderer/src/stores/navigation.js';
import { useNoticeStore } from '../../../renderer/src/stores/notices.js';
import { CAPTURE_PARAMS, MAX_THUMBNAILS, useProjectStore } from '../../../renderer/src/stores/projects.js';
import { useTrainingStore } from '../../../renderer/src/stores/training.js';
import { settle } from '../helpers/engine.js';

beforeEach(() => setActivePinia(createPinia()));

const REPORT: CaptureReportView = {
  datasetDir: '/p/walk.argo.data/dataset', registered: 20, total: 24, points: 5000, meanReprojectionErrorPx: 0.41, meanTrackLength: 4.2,
  matcher: 'sequential', cameraModel: 'SIMPLE_RADIAL', models: [{ registered: 20, points: 5000 }], inputs: [{ name: 'walk', kind: 'video', images: 24, registered: 20 }],
  timingsS: { features: 3 }, resumed: [], diagnostics: [{ level: 'warn', message: 'Only 20 of 24 images registered' }],
};
const summary = (name: string, views = 20): ProjectSummary => ({ id: name, path: `/p/${name}.argo`, name, source: { kind: 'video', path: `${name}.mp4`, importedAt: '2026-01-01T00:00:00Z' }, createdMs: 1, modifiedMs: 1, dataset: { kind: 'folder', path: '/p/d', format: 'colmap', views, train: views, test: 0 }, runs: [] });

/** A scripted engine: records calls; capture.import emits the task's whole life before it returns its id. */
function engine(script: { captureEvents?: (task: string) => Omit<TaskStatus, 'task' | 'kind' | 'title' | 'startedMs'>[]; running?: boolean } = {}) {
  const [clientSide, serverSide] = createMemoryTransportPair();
  const calls: { method: string; args: unknown }[] = [];
  const recent: ProjectSummary[] = [];
  const impl = {
    projects: {
      recent: async () => ({ projects: [...recent] }),
      create: async (args: { source: { kind: string } }) => {
        calls.push({ method: 'projects.create', args });
        if (args.source.kind === 'splat') throw new ArgonautError('bad_input', '/x/broken.ply: not a PLY');
        const p = summary('garden');
        recent.unshift(p);
        return p;
      },
      open: async (args: { path: string }) => {
        calls.push({ method: 'projects.open', args });
        return summary('opened', 3);
      },
      scene: async () => ({ cameras: [], views: Array.from({ length: 20 }, (_, i) => ({ name: `walk/frame_${i}.jpg`, split: 'train' as const })), points: { positions: new Float32Array(0), colors: new Uint8Array(0), count: 0 } }),
      image: async (args: { camera: number }) => {
        calls.push({ method: 'projects.image', args });
        return { mime: 'image/png' as const, width: 16, height: 9, data: new ArrayBuffer(8) };
      },
    },
    capture: {
      import: async (args: unknown) => {
        calls.push({ method: 'capture.import', args });
        const task = 'capture-1';
        const base = { task, kind: 'capture' as const, title: 'walk.mp4', startedMs: 1 };
        for (const e of script.captureEvents?.(task) ?? []) server.emit('task', { ...base, ...e });
        return { task };
      },
    },
    tasks: {
      cancel: async ({ task }: { task: string }) => ({ task, state: 'running' as const }),
      status: async () => ({ tasks: script.running ? [{ task: 'capture-0', kind: 'capture' as const, state: 'running' as const, title: 'walk.mp4', stage: 'matching', fraction: 0.3, startedMs: 1 }] : [] }),
    },
  };
  const server = serve(contract, impl as unknown as ServiceImpl<Services>, serverSide, { caller: 'test' });
  return { client: createClient(contract, clientSide), calls, server, recent };
}

describe('project store', () => {
  it('starts a capture with every capture setting and follows it from events that came before the id: stages, then the project, report and frames', async () => {
    const e = engine({
      captureEvents: () => [
        { state: 'running' },
        { state: 'running', stage: 'scan', fraction: 0.5 },
        { state: 'running', stage: 'mapping', fraction: 0.2 },
      ],
    });
    const projects = useProjectStore();
    projects.attach(e.client);
    projects.captureValues['capture.frames'] = 40;
    expect(await projects.create('video', '  /v/walk.mp4 ')).toBe(true);
    expect(e.calls[0]).toEqual({ method: 'capture.import', args: { inputs: ['/v/walk.mp4'], params: { ...Object.fromEntries(CAPTURE_PARAMS.map((p) => [p.key, p.default])), 'capture.frames': 40 } } });
    // The events emitted before the call returned are not lost.
    expect(projects.capture).toMatchObject({ task: 'capture-1', stage: 'mapping', state: 'running' });
    expect(projects.capturing).toBe(true);
    // scan, extract, features, matching, mapping (active), then our SfM's bundle stage, import, verify
    expect(projects.stages.map((s) => s.state)).toEqual(['done', 'done', 'done', 'done', 'active', 'pending', 'pending', 'pending']);

    e.recent.unshift(summary('walk'));
    e.server.emit('task', { task: 'capture-1', kind: 'capture', title: 'walk.mp4', startedMs: 1, state: 'finished', stage: 'verify', fraction: 1, result: { kind: 'capture', project: summary('walk'), report: REPORT } });
    await settle();
    await settle();
    expect(projects.capturing).toBe(false);
    expect(projects.current?.path).toBe('/p/walk.argo');
    expect(projects.report).toEqual(REPORT);
    expect(projects.recent.map((p) => p.name)).toEqual(['walk']);
    await expect.poll(() => projects.frames.length).toBe(MAX_THUMBNAILS);
    // Evenly spread over the 20 views, first and last included.
    const cameras = e.calls.filter((c) => c.method === 'projects.image').map((c) => (c.args as { camera: number }).camera);
    expect(cameras[0]).toBe(0);
    expect(cameras.at(-1)).toBe(19);
    expect(new Set(cameras).size).toBe(MAX_THUMBNAILS);
    expect(projects.frames[0]).toMatchObject({ name: 'walk/frame_0.jpg', width: 16, height: 9, url: expect.stringMatching(/^blob:/) as string });
  });

  it('a failed capture becomes a notice on Home with what to do; its report stays on screen', async () => {
    const e = engine({ captureEvents: () => [{ state: 'failed', stage: 'mapping', error: { code: 'bad_input', message: '/p/x: structure from motion failed' }, report: { ...REPORT, registered: 0 } }] });
    const projects = useProjectStore();
    projects.attach(e.client);
    await projects.create('photos', '/v/shots');
    expect(projects.capture?.state).toBe('failed');
    expect(projects.report?.registered).toBe(0);
    expect(projects.stages.find((s) => s.def.id === 'mapping')?.state).toBe('failed');
    expect(useNoticeStore().forScope('home')).toMatchObject([{ code: 'bad_input', message: '/p/x: structure from motion failed', suggestion: expect.stringContaining('start the same capture again') }]);
    expect(projects.current).toBeUndefined();
  });

  it("sends a photo capture's mask folder with its parameters (train.masks), and none for video, which has no masks", async () => {
    const e = engine({ captureEvents: () => [{ state: 'running' }] });
    const projects = useProjectStore();
    projects.attach(e.client);
    const defaults = Object.fromEntries(CAPTURE_PARAMS.map((p) => [p.key, p.default]));
    expect(await projects.create('photos', '/v/shots', { masks: ' /v/shot-masks ' })).toBe(true);
    expect(e.calls.filter((c) => c.method === 'capture.import').at(-1)).toEqual({ method: 'capture.import', args: { inputs: ['/v/shots'], params: { ...defaults, 'train.masks': '/v/shot-masks' } } });
    e.server.emit('task', { task: 'capture-1', kind: 'capture', title: 'shots', startedMs: 1, state: 'cancelled', stage: 'photos', fraction: 0 });
    await settle();
    expect(await projects.create('video', '/v/walk.mp4', { masks: '/v/shot-masks' })).toBe(true);
    expect(e.calls.filter((c) => c.method === 'capture.import').at(-1)).toEqual({ method: 'capture.import', args: { inputs: ['/v/walk.mp4'], params: defaults } });
  });

  it('creates dataset projects at once, reports engine errors on Home, refuses an empty path without a call', async () => {
    const e = engine();
    const projects = useProjectStore();
    projects.attach(e.client);
    expect(await projects.create('dataset', '/d/garden')).toBe(true);
    expect(e.calls.find((c) => c.method === 'projects.create')).toEqual({ method: 'projects.create', args: { source: { kind: 'dataset', dir: '/d/garden' } } });
    expect(projects.current?.name).toBe('garden');
    // a mask folder travels with the dataset (an empty field sends none)
    expect(await projects.create('dataset', '/d/garden', { masks: ' /d/garden-masks ' })).toBe(true);
    expect(e.calls.filter((c) => c.method === 'projects.create').at(-1)).toEqual({ method: 'projects.create', args: { source: { kind: 'dataset', dir: '/d/garden', masks: '/d/garden-masks' } } });
    expect(await projects.create('dataset', '/d/garden', { masks: '  ' })).toBe(true);
    expect(e.calls.filter((c) => c.method === 'projects.create').at(-1)).toEqual({ method: 'projects.create', args: { source: { kind: 'dataset', dir: '/d/garden' } } });
    expect(await projects.create('splat', '/x/broken.ply')).toBe(false);
    expect(useNoticeStore().forScope('home').at(-1)).toMatchObject({ code: 'bad_input', message: '/x/broken.ply: not a PLY' });
    const creates = () => e.calls.filter((c) => c.method === 'projects.create' || c.method === 'capture.import').length;
    const before = creates();
    expect(await projects.create('video', '   ')).toBe(false);
    expect(creates()).toBe(before);
    expect(useNoticeStore().forScope('home').at(-1)?.message).toMatch(/path of the video file/);
  });

  it('opens a project, and Train then trains it', async () => {
    const e = engine();
    const projects = useProjectStore();
    projects.attach(e.client);
    await projects.open('/p/opened.argo');
    expect(projects.current?.name).toBe('opened');
    projects.train();
    expect(useTrainingStore().source).toEqual({ kind: 'project', path: '/p/opened.argo', name: 'opened' });
    expect(useNavigationStore().current).toBe('train');
  });

  it('after a reload, follows the capture the engine is still running', async () => {
    const e = engine({ running: true });
    const projects = useProjectStore();
    projects.attach(e.client);
    await expect.poll(() => projects.capture?.task).toBe('capture-0');
    expect(projects.capturing).toBe(true);
    e.server.emit('task', { task: 'capture-0', kind: 'capture', title: 'walk.mp4', startedMs: 1, state: 'running', stage: 'mapping', fraction: 0.1 });
    await expect.poll(() => projects.capture?.stage).toBe('mapping');
  });

  it('opens what Electron main asks it to (a double-clicked .argo) on Home', async () => {
    const e = engine();
    const projects = useProjectStore();
    projects.attach(e.client);
    e.server.emit('openProject', { path: '/p/opened.argo', via: 'argv' });
    await expect.poll(() => projects.current?.name).toBe('opened');
    expect(useNavigationStore().current).toBe('home');
  });
});
