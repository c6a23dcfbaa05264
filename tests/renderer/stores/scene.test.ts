import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import { isReactive } from 'vue';
import { useSceneStore } from '../../../renderer/src/stores/scene.js';
import { useNoticeStore } from '../../../renderer/src/stores/notices.js';
import { ArgonautError } from '../../../shared/rpc/errors.js';
import { fakeEngine, settle } from '../helpers/engine.js';

const CAMERA = { width: 128, height: 96, fx: 100, fy: 100, cx: 64, cy: 48, worldToCamera: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 4, 0, 0, 0, 1] };

/** A fake engine whose projects.* answer for one project: two cameras, one SfM point, saved splats unless `untrained`. */
function projectEngine(options: { untrained?: boolean } = {}) {
  const asked: string[] = [];
  const engine = fakeEngine({}, {
    projects: {
      create: async () => { throw new ArgonautError('internal', 'not used'); },
      open: async () => { throw new ArgonautError('internal', 'not used'); },
      recent: async () => ({ projects: [] }),
      scene: async ({ project }) => {
        asked.push(`scene ${project}`);
        if (project.endsWith('missing.argo')) throw new ArgonautError('not_found', `${project}: project file not found`);
        return { cameras: [CAMERA, CAMERA], views: [{ name: 'a.jpg', split: 'train' as const }, { name: 'b.jpg', split: 'test' as const }], points: { positions: new Float32Array([1, 2, 3]), colors: new Uint8Array([255, 128, 0]), count: 1 } };
      },
      image: async ({ camera, maxSize }) => {
        asked.push(`image ${camera} ${maxSize}`);
        return { mime: 'image/png' as const, width: 128, height: 96, data: new Uint8Array([137, 80, 78, 71]).buffer };
      },
      splats: async ({ project }) => {
        asked.push(`splats ${project}`);
        if (options.untrained) throw new ArgonautError('not_found', `${project}: no trained splats yet`);
        return { count: 2, run: 'run-1', step: 700, data: new ArrayBuffer(64) };
      },
      partition: async () => { throw new ArgonautError('internal', 'not used'); },
      partitions: async () => ({ partitions: [], runs: [] }),
      blockSplats: async () => ({ count: 0, run: 'run-1', step: 0, data: new ArrayBuffer(0) }),
    },
  });
  return { ...engine, asked };
}

beforeEach(() => setActivePinia(createPinia()));

describe('scene store', () => {
  it('shows the procedural sample scene: splats, cameras and points, none of them reactive', () => {
    const scene = useSceneStore();
    expect(scene.splats).toBeUndefined();
    scene.showDemo();
    expect(scene.source).toEqual({ kind: 'demo' });
    expect(scene.splats!.count).toBe(24000);
    expect(scene.splats!.buffer.byteLength).toBe(24000 * 32);
    expect(scene.cameras.length).toBe(12);
    expect(scene.points!.count).toBe(3000);
    expect(isReactive(scene.splats)).toBe(false);
    expect(isReactive(scene.cameras)).toBe(false);
  });

  it('replaces the splats with each live snapshot, keeping the buffer as sent', async () => {
    const engine = fakeEngine();
    const scene = useSceneStore();
    scene.attach(engine.client);
    scene.showDemo();
    const data = new ArrayBuffer(32 * 3);
    new Float32Array(data)[0] = 1.5;
    engine.server.emit('snapshot', { job: 'j1', step: 500, count: 3, data });
    await settle();
    expect(scene.source).toEqual({ kind: 'snapshot', job: 'j1', step: 500 });
    expect(scene.splats!.count).toBe(3);
    expect(new Float32Array(scene.splats!.buffer)[0]).toBe(1.5);
    // The sample scene's cameras do not belong to the job.
    expect(scene.cameras).toEqual([]);
    expect(scene.points).toBeUndefined();
  });

  it("shows a project: its cameras, views, SfM points and newest saved splats; its photos come from projects.image", async () => {
    const engine = projectEngine();
    const scene = useSceneStore();
    scene.attach(engine.client);
    scene.showDemo();
    await scene.showProject('/p/statue.argo');
    expect(scene.project).toBe('/p/statue.argo');
    expect(scene.source).toEqual({ kind: 'project', project: '/p/statue.argo', step: 700 });
    expect(scene.cameras).toHaveLength(2);
    expect(scene.views).toEqual([{ name: 'a.jpg', split: 'train' }, { name: 'b.jpg', split: 'test' }]);
    expect(scene.points?.count).toBe(1);
    // The engine sends RGB; the viewer takes RGBA.
    expect([...scene.points!.colors]).toEqual([255, 128, 0, 255]);
    expect(scene.splats?.count).toBe(2);
    expect(isReactive(scene.cameras)).toBe(false);

    const photo = await scene.photo(1, 512);
    expect(engine.asked.at(-1)).toBe('image 1 512');
    expect(photo).toMatchObject({ width: 128, height: 96, url: expect.stringMatching(/^blob:/) });
    URL.revokeObjectURL(photo!.url);
  });

  it('shows a project never trained with its cameras and no splats', async () => {
    const engine = projectEngine({ untrained: true });
    const scene = useSceneStore();
    scene.attach(engine.client);
    scene.showDemo();
    await scene.showProject('/p/new.argo');
    expect(scene.source).toEqual({ kind: 'project', project: '/p/new.argo' });
    expect(scene.splats).toBeUndefined();
    expect(scene.cameras).toHaveLength(2);
    expect(useNoticeStore().notices).toEqual([]);
  });

  it('loads the cameras of the project a job starts training, and keeps live snapshots over its saved splats', async () => {
    const engine = projectEngine();
    const scene = useSceneStore();
    scene.attach(engine.client);
    scene.showDemo();
    engine.server.emit('job', { job: 'j1', state: 'starting', project: '/p/statue.argo', step: 0, total: 100 });
    engine.server.emit('snapshot', { job: 'j1', step: 20, count: 1, data: new ArrayBuffer(32) });
    for (let i = 0; i < 5; i++) await settle();
    expect(scene.cameras).toHaveLength(2);
    expect(scene.project).toBe('/p/statue.argo');
    expect(scene.source).toEqual({ kind: 'snapshot', job: 'j1', step: 20, project: '/p/statue.argo' });
    expect(scene.splats?.count).toBe(1);
    expect(engine.asked).toEqual(['scene /p/statue.argo']);
  });

  it('says in the Viewer when a project cannot be shown', async () => {
    const engine = projectEngine();
    const scene = useSceneStore();
    scene.attach(engine.client);
    await scene.showProject('/p/missing.argo');
    expect(useNoticeStore().forScope('viewer')).toMatchObject([{ code: 'not_found', message: expect.stringContaining('missing.argo') }]);
  });
});
