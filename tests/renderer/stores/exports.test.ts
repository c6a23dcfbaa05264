/**
 * The Export view's store over the real contract runtime against a scripted engine: default output
 * paths beside the project, splat exports, a mesh task followed to its preview (kept out of
 * reactivity), failures as notices on Export. And ExportView rendered in Node: no project, then
 * the formats and every mesh.* parameter of the registry.
 */
import { createPinia, setActivePinia, type Pinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import { createSSRApp, h, isReactive } from 'vue';
import { renderToString } from 'vue/server-renderer';
import { contract, type ProjectSummary, type Services, type TaskStatus } from '../../../shared/contract/index.js';
import type { ServiceImpl } from '../../../shared/rpc/define.js';
import { createClient, serve } from '../../../shared/rpc/runtime.js';
import { createMemoryTransportPair } from '../../../shared/rpc/transport.js';
import { ArgonautError } from '../../../shared/rpc/errors.js';
import { EXPORT_FORMATS, type ExportFormat } from '../../../shared/project/manifest.js';
import { besideProject, MESH_PARAMS, useExportStore } from '../../../renderer/src/stores/exports.js';
import { useNoticeStore } from '../../../renderer/src/stores/notices.js';
import { useProjectStore } from '../../../renderer/src/stores/projects.js';
import ExportView from '../../../renderer/src/views/ExportView.vue';
import { tagsWith } from '../helpers/ssr.js';
import { settle } from '../helpers/engine.js';

let pinia: Pinia;
beforeEach(() => {
  pinia = createPinia();
  setActivePinia(pinia);
});

const PROJECT: ProjectSummary = { id: 'b', path: '/work/ball.argo', name: 'ball', source: { kind: 'dataset', path: 'd', importedAt: '2026-01-01T00:00:00Z' }, createdMs: 1, modifiedMs: 1, splats: 1500, runs: [{ id: 'run-001', status: 'finished', step: 0, total: 0 }] };

function engine(meshEvents: Omit<TaskStatus, 'task' | 'kind' | 'title' | 'startedMs'>[]) {
  const [clientSide, serverSide] = createMemoryTransportPair();
  const calls: { method: string; args: unknown }[] = [];
  const impl = {
    export: {
      splats: async (args: { path: string; format: ExportFormat }) => {
        calls.push({ method: 'export.splats', args });
        return { path: args.path, bytes: 12345, splats: 1500, format: args.format };
      },
      web: async (args: { path: string; force: boolean }) => {
        calls.push({ method: 'export.web', args });
        if (!args.force) throw new ArgonautError('invalid_argument', `${args.path}: the folder is not empty`);
        return { path: args.path, bytes: 999, splats: 1500, cameraPaths: 0, singleFile: false };
      },
    },
    mesh: {
      extract: async (args: unknown) => {
        calls.push({ method: 'mesh.extract', args });
        return { task: 'mesh-1' };
      },
      preview: async () => ({ positions: new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]), colors: new Uint8Array(9).fill(200), indices: new Uint32Array([0, 1, 2]) }),
    },
  };
  const server = serve(contract, impl as unknown as ServiceImpl<Services>, serverSide, { caller: 'test' });
  const emitAll = () => {
    for (const e of meshEvents) server.emit('task', { task: 'mesh-1', kind: 'mesh', title: 'ball', startedMs: 1, ...e });
  };
  return { client: createClient(contract, clientSide), calls, emitAll };
}

describe('export store', () => {
  it('writes beside the project unless a path is typed', () => {
    expect(besideProject('/a/b/garden.argo', '.spz')).toBe('/a/b/garden.spz');
    expect(besideProject('C:\\p\\garden.ARGO', '-mesh.glb')).toBe('C:\\p\\garden-mesh.glb');
    useProjectStore().current = PROJECT;
    const store = useExportStore();
    expect(store.pathFor('spz')).toBe('/work/ball.spz');
    expect(store.pathFor('mesh-obj')).toBe('/work/ball-mesh.obj');
    store.paths.spz = ' /elsewhere/x.spz ';
    expect(store.pathFor('spz')).toBe('/elsewhere/x.spz');
  });

  it('exports splats of the current project and shows the result', async () => {
    const e = engine([]);
    useProjectStore().current = PROJECT;
    const store = useExportStore();
    store.attach(e.client);
    await store.exportSplats('spz');
    expect(e.calls).toEqual([{ method: 'export.splats', args: { project: '/work/ball.argo', format: 'spz', path: '/work/ball.spz' } }]);
    expect(store.splatResult).toEqual({ path: '/work/ball.spz', bytes: 12345, splats: 1500, format: 'spz' });
  });

  it("shows a web export's result, and none while the next runs or after it fails", async () => {
    const e = engine([]);
    useProjectStore().current = PROJECT;
    const store = useExportStore();
    store.attach(e.client);
    store.webForce = true;
    await store.exportWeb();
    expect(store.webResult).toMatchObject({ path: '/work/ball-web', splats: 1500 });
    store.webForce = false;
    const running = store.exportWeb();
    expect(store.webResult).toBeUndefined(); // not the last export's line while this one runs
    await running;
    expect(store.webResult).toBeUndefined();
    expect(useNoticeStore().notices.at(-1)?.message).toContain('the folder is not empty');
  });

  it('extracts a mesh with the mesh settings, follows the task to the end and loads its preview outside reactivity', async () => {
    const e = engine([
      { state: 'running', stage: 'fuse', fraction: 0.5 },
      { state: 'finished', stage: 'write', fraction: 1, result: { kind: 'mesh', path: '/work/ball-mesh.glb', format: 'glb', bytes: 900, triangles: 1, vertices: 3, views: 10, grid: [8, 8, 8], timingsS: {} } },
    ]);
    useProjectStore().current = PROJECT;
    const store = useExportStore();
    store.attach(e.client);
    store.meshValues['mesh.resolution'] = 64;
    await store.extractMesh();
    expect(e.calls[0]).toEqual({ method: 'mesh.extract', args: { project: '/work/ball.argo', path: '/work/ball-mesh.glb', params: { ...Object.fromEntries(MESH_PARAMS.map((p) => [p.key, p.default])), 'mesh.resolution': 64 } } });
    expect(store.meshRunning).toBe(true);
    e.emitAll();
    await settle();
    await settle();
    expect(store.meshTask?.state).toBe('finished');
    expect(store.meshStages.every((s) => s.state === 'done')).toBe(true);
    await expect.poll(() => store.meshPreview?.indices.length).toBe(3);
    expect(isReactive(store.meshPreview)).toBe(false);
  });

  it('a failed mesh task becomes a notice on Export', async () => {
    const e = engine([{ state: 'failed', stage: 'load', error: { code: 'bad_input', message: '/work/ball.argo: the project has no splats' } }]);
    useProjectStore().current = PROJECT;
    const store = useExportStore();
    store.attach(e.client);
    await store.extractMesh();
    e.emitAll();
    await settle();
    expect(useNoticeStore().forScope('export')).toMatchObject([{ code: 'bad_input', message: '/work/ball.argo: the project has no splats' }]);
    expect(store.meshStages.find((s) => s.def.id === 'load')?.state).toBe('failed');
  });
});

describe('ExportView', () => {
  async function render(): Promise<string> {
    const app = createSSRApp({ render: () => h(ExportView) });
    app.use(pinia);
    return renderToString(app);
  }

  it('without a project, says to open one first and offers no export button', async () => {
    const html = await render();
    expect(tagsWith(html, 'data-section', 'no-project')).toHaveLength(1);
    expect(tagsWith(html, 'data-export')).toHaveLength(0);
    expect(html).toContain('No project open');
  });

  it('with a project: every splat format, the mesh formats and every mesh.* parameter of the registry', async () => {
    useProjectStore().current = PROJECT;
    const html = await render();
    expect(tagsWith(html, 'data-export').map((t) => /data-export="(\w+)"/.exec(t)![1])).toEqual([...EXPORT_FORMATS]);
    for (const def of MESH_PARAMS) expect(tagsWith(html, 'data-param', def.key), def.key).toHaveLength(1);
    for (const ext of ['glb', 'ply', 'obj']) expect(html).toContain(`value="${ext}"`);
    expect(html).toContain('/work/ball-mesh.glb'); // the default path, as the placeholder
    expect(tagsWith(html, 'data-field', 'no-splats')).toHaveLength(0);
  });

  it('warns when the project has nothing trained to export, and disables the buttons', async () => {
    useProjectStore().current = { ...PROJECT, runs: [] };
    const html = await render();
    expect(tagsWith(html, 'data-field', 'no-splats')).toHaveLength(1);
    for (const tag of tagsWith(html, 'data-export')) expect(tag).toMatch(/disabled/);
  });
});
