import { defineStore } from 'pinia';
import { computed, markRaw, ref, shallowRef } from 'vue';
import type { TaskStatus } from '../../../shared/contract/index.js';
import { allParams, type ParamValue } from '../../../shared/params/index.js';
import type { ExportFormat } from '../../../shared/project/manifest.js';
import type { StudioClient } from '../api/client.js';
import { defaultValues } from '../params/form.js';
import type { PreviewMesh } from '../components/mesh-preview.js';
import { useLogStore } from './logs.js';
import { useNoticeStore } from './notices.js';
import { useProjectStore } from './projects.js';
import { MESH_STAGES, stageStates } from './task-stages.js';

export type SplatFormat = ExportFormat;
export type MeshFormat = 'glb' | 'ply' | 'obj';

/** Every `mesh.*` parameter of the registry: the Export view's mesh settings. */
export const MESH_PARAMS = allParams().filter((p) => p.key.startsWith('mesh.'));

/** `/a/b/garden.argo` -> `/a/b/garden<suffix>` (either slash; the engine's OS decides). */
export function besideProject(projectPath: string, suffix: string): string {
  return projectPath.replace(/\.argo$/i, '') + suffix;
}

/**
 * Export: the current project's splats as PLY, .splat, SPZ or glTF (`export.splats`), as a web
 * viewer (`export.web`: a folder with index.html, or one HTML file), and a mesh
 * extracted from them (`mesh.extract`, a task followed through `task` events) with its preview
 * (`mesh.preview`: typed arrays, kept out of reactivity). Output paths default to files beside
 * the project; the view asks a native save dialog first in the desktop app.
 */
export const useExportStore = defineStore('exports', () => {
  const meshValues = ref<Record<string, ParamValue>>(defaultValues(MESH_PARAMS));
  const meshErrors = ref<Record<string, string>>({});
  const meshFormat = ref<MeshFormat>('glb');
  /** Output paths typed by the user, per format (empty: the default beside the project). */
  const paths = ref<Record<string, string>>({});
  /** The newest splat export, and which format is being written. */
  const splatResult = ref<{ format: SplatFormat; path: string; bytes: number; splats: number }>();
  const splatBusy = ref<SplatFormat>();
  /** The web viewer export (`export.web`): one HTML file instead of a folder, replacing a non-empty folder; its newest result. */
  const webSingleFile = ref(false);
  const webForce = ref(false);
  const webResult = ref<{ path: string; bytes: number; splats: number; cameraPaths: number; singleFile: boolean }>();
  const webBusy = ref(false);
  const meshTask = ref<TaskStatus>();
  const meshPreview = shallowRef<PreviewMesh>();
  let client: StudioClient | undefined;
  const early = new Map<string, TaskStatus>();

  const project = computed(() => useProjectStore().current);
  const meshRunning = computed(() => meshTask.value?.state === 'running');
  const meshStages = computed(() => stageStates(MESH_STAGES.filter((s) => (s.id !== 'simplify' || Number(meshValues.value['mesh.targetTriangles']) > 0) && (s.id !== 'visibility' || Number(meshValues.value['mesh.minViews']) > 0)), meshTask.value));
  /** True when the project has trained splats to export (a run with splats, or a checkpoint the engine finds). */
  const hasRuns = computed(() => (project.value?.runs.length ?? 0) > 0);

  function defaultPath(key: string): string {
    if (!project.value) return '';
    const suffix = key === 'mesh-glb' ? '-mesh.glb' : key === 'mesh-ply' ? '-mesh.ply' : key === 'mesh-obj' ? '-mesh.obj' : key === 'web' ? (webSingleFile.value ? '-web.html' : '-web') : `.${key}`;
    return besideProject(project.value.path, suffix);
  }
  /** The path an export of `key` (a splat format, or mesh-<format>) writes. */
  function pathFor(key: string): string {
    return paths.value[key]?.trim() || defaultPath(key);
  }

  function attach(c: StudioClient) {
    client = c;
    c.on('task', (e) => {
      if (e.kind !== 'mesh') return;
      if (meshTask.value?.task !== e.task) {
        early.set(e.task, e);
        return;
      }
      onMeshEvent(e);
    });
    // After a reload the engine may still be meshing: follow it again.
    c.api.tasks
      .status({})
      .then(({ tasks }) => {
        const running = tasks.find((t) => t.kind === 'mesh' && t.state === 'running');
        if (running && !meshTask.value) meshTask.value = early.get(running.task) ?? running;
      })
      .catch((error: unknown) => useLogStore().studio('warn', `could not ask the engine for running mesh tasks: ${(error as Error).message}`));
  }

  function onMeshEvent(e: TaskStatus) {
    meshTask.value = e;
    if (e.state === 'finished') void loadPreview(e.task);
    else if (e.state === 'failed' && e.error) useNoticeStore().report(e.error, 'export');
  }

  async function loadPreview(task: string) {
    if (!client) return;
    try {
      const mesh = await client.api.mesh.preview({ task });
      meshPreview.value = markRaw(mesh);
    } catch (error) {
      useNoticeStore().report(error, 'export');
    }
  }

  async function exportSplats(format: SplatFormat, target = pathFor(format)) {
    if (!client || !project.value) return;
    splatBusy.value = format;
    splatResult.value = undefined; // a new export's line, not the last one's, once it ends
    try {
      splatResult.value = await client.api.export.splats({ project: project.value.path, format, path: target });
    } catch (error) {
      useNoticeStore().report(error, 'export');
    } finally {
      splatBusy.value = undefined;
    }
  }

  async function exportWeb(target = pathFor('web')) {
    if (!client || !project.value) return;
    webBusy.value = true;
    webResult.value = undefined; // the last export's "Wrote ..." line goes while this one runs (and stays gone if it fails)
    try {
      webResult.value = await client.api.export.web({ project: project.value.path, path: target, singleFile: webSingleFile.value, force: webForce.value });
    } catch (error) {
      useNoticeStore().report(error, 'export');
    } finally {
      webBusy.value = false;
    }
  }

  async function extractMesh(target = pathFor(`mesh-${meshFormat.value}`)) {
    if (!client || !project.value) return;
    if (Object.keys(meshErrors.value).length) {
      useNoticeStore().report({ code: 'invalid_argument', message: `Fix the mesh settings first: ${Object.values(meshErrors.value).join('; ')}` }, 'export');
      return;
    }
    try {
      meshPreview.value = undefined;
      const { task } = await client.api.mesh.extract({ project: project.value.path, path: target, params: { ...meshValues.value } });
      meshTask.value = early.get(task) ?? { task, kind: 'mesh', state: 'running', title: target, startedMs: Date.now() };
      early.clear();
      if (meshTask.value.state !== 'running') onMeshEvent(meshTask.value);
    } catch (error) {
      useNoticeStore().report(error, 'export');
    }
  }

  async function cancelMesh() {
    if (!client || !meshTask.value || meshTask.value.state !== 'running') return;
    try {
      await client.api.tasks.cancel({ task: meshTask.value.task });
    } catch (error) {
      useNoticeStore().report(error, 'export');
    }
  }

  return { meshValues, meshErrors, meshFormat, paths, splatResult, splatBusy, webSingleFile, webForce, webResult, webBusy, meshTask, meshPreview, project, meshRunning, meshStages, hasRuns, attach, pathFor, defaultPath, exportSplats, exportWeb, extractMesh, cancelMesh };
});
