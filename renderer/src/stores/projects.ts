import { defineStore } from 'pinia';
import { computed, markRaw, ref, shallowRef } from 'vue';
import type { ProjectSummary, TaskStatus } from '../../../shared/contract/index.js';
import { allParams, type ParamValue } from '../../../shared/params/index.js';
import type { StudioClient } from '../api/client.js';
import { defaultValues } from '../params/form.js';
import { useNavigationStore } from './navigation.js';
import { useLogStore } from './logs.js';
import { asNoticeError, useNoticeStore } from './notices.js';
import { captureStages, stageStates } from './task-stages.js';
import { useTrainingStore } from './training.js';

/** What a new project starts from. */
export type NewProjectKind = 'video' | 'photos' | 'dataset' | 'splat';

/** A thumbnail of one of the project's views (an object URL of the engine's PNG). */
export interface FrameThumb {
  url: string;
  name: string;
  width: number;
  height: number;
}

/** Thumbnails shown under a capture's report (evenly spread over the views). */
export const MAX_THUMBNAILS = 12;

/** Every `capture.*` parameter of the registry: the Home view's capture settings. */
export const CAPTURE_PARAMS = allParams().filter((p) => p.key.startsWith('capture.'));

/**
 * Projects on Home: the open project, the recent list, and new projects from a video, a photo
 * folder (a capture task: frames, COLMAP, import, followed through `task` events), a dataset
 * folder or a splat PLY. Failed calls become notices on Home; the capture's report and a strip of
 * the captured frames stay on screen until the next project.
 */
export const useProjectStore = defineStore('projects', () => {
  /** The project the studio works on (Train trains it, Export exports it). */
  const current = ref<ProjectSummary>();
  const recent = ref<ProjectSummary[]>([]);
  /** A create or open call is in flight. */
  const busy = ref(false);
  /** Capture settings (registry-driven) and their invalid fields. */
  const captureValues = ref<Record<string, ParamValue>>(defaultValues(CAPTURE_PARAMS));
  const captureErrors = ref<Record<string, string>>({});
  /** The capture task followed, and the kinds of its inputs (for its stage list). */
  const capture = ref<TaskStatus>();
  const captureKinds = ref<('video' | 'photos')[]>([]);
  /** Thumbnails of the current project's views (object URLs; revoked when replaced). */
  const frames = shallowRef<FrameThumb[]>([]);
  const framesLoading = ref(false);
  let client: StudioClient | undefined;
  /** Task events that arrived before the call that started the task returned its id. */
  const early = new Map<string, TaskStatus>();

  const capturing = computed(() => capture.value?.state === 'running');
  const stages = computed(() => stageStates(captureStages(captureKinds.value, { sfm: captureValues.value['capture.sfm'] as string | undefined, bundleAdjust: Boolean(captureValues.value['capture.bundleAdjust']) }), capture.value));
  /** The SfM report of the capture on screen: its result, or the report of a capture that failed after SfM. */
  const report = computed(() => (capture.value?.result?.kind === 'capture' ? capture.value.result.report : capture.value?.report));

  function attach(c: StudioClient) {
    client = c;
    c.on('task', (e) => {
      if (e.kind !== 'capture') return;
      if (capture.value?.task !== e.task) {
        early.set(e.task, e);
        return;
      }
      onCaptureEvent(e);
    });
    c.on('openProject', (e) => {
      useNavigationStore().go('home');
      void open(e.path);
    });
    void refreshRecent();
    void adoptRunningCapture();
  }

  /** After a reload the engine may still be capturing: follow its newest running capture again. */
  async function adoptRunningCapture() {
    if (!client) return;
    try {
      const running = (await client.api.tasks.status({})).tasks.find((t) => t.kind === 'capture' && t.state === 'running');
      if (running && !capture.value) {
        captureKinds.value = [];
        capture.value = early.get(running.task) ?? running;
      }
    } catch (error) {
      useLogStore().studio('warn', `could not ask the engine for running captures: ${(error as Error).message}`);
    }
  }

  function onCaptureEvent(e: TaskStatus) {
    capture.value = e;
    if (e.state === 'finished' && e.result?.kind === 'capture') {
      setCurrent(e.result.project);
      void refreshRecent();
    } else if (e.state === 'failed' && e.error) {
      const suggestion = e.report
        ? 'The report below says what went wrong and what to try. No project was made; start the same capture again to continue from the stages that finished.'
        : 'No project was made. Stages that finished are kept: fix the input (more photos, a slower or longer clip, more frames) and start the same capture again to continue.';
      useNoticeStore().report({ code: e.error.code, message: e.error.message, suggestion }, 'home');
    }
  }

  /** A failed call as a notice on Home; a path that is not there gets advice about paths, not about moved projects. */
  function report_(error: unknown) {
    const notice = asNoticeError(error);
    if (notice.code === 'not_found' && !notice.suggestion) notice.suggestion = 'Check the path: it is read on the machine that runs the engine, and must be absolute there.';
    useNoticeStore().report(notice, 'home');
  }

  async function refreshRecent() {
    if (!client) return;
    try {
      recent.value = (await client.api.projects.recent({})).projects;
    } catch (error) {
      report_(error);
    }
  }

  function setCurrent(project: ProjectSummary) {
    current.value = project;
    void loadFrames(project);
  }

  /** A project the engine just created or opened becomes the current one and joins the recent list. */
  function showProject(project: ProjectSummary): true {
    capture.value = undefined;
    setCurrent(project);
    void refreshRecent();
    return true;
  }

  /** An engine call with `busy` set for its length; its error is reported, and the answer is false. */
  async function whileBusy(action: () => Promise<boolean>): Promise<boolean> {
    busy.value = true;
    try {
      return await action();
    } catch (error) {
      report_(error);
      return false;
    } finally {
      busy.value = false;
    }
  }

  /**
   * A new project from `path` (absolute, on the engine's machine). Video and photos start a
   * capture task (this resolves once it started); datasets and splat files are created at once.
   * `masks`: a dataset's mask folder (optional; empty: the dataset's own masks/, if any), or a photo
   * capture's (a mask per photo; ignored for video, which has none).
   */
  async function create(kind: NewProjectKind, path: string, options: { masks?: string } = {}): Promise<boolean> {
    const api = client?.api;
    if (!api) return false;
    const trimmed = path.trim();
    if (!trimmed) {
      report_({ code: 'invalid_argument', message: `Give the path of the ${kind === 'video' ? 'video file' : kind === 'photos' ? 'photo folder' : kind === 'dataset' ? 'dataset folder' : 'splat file'} first.` });
      return false;
    }
    return whileBusy(async () => {
      if (kind === 'video' || kind === 'photos') {
        if (Object.keys(captureErrors.value).length) {
          report_({ code: 'invalid_argument', message: `Fix the capture settings first: ${Object.values(captureErrors.value).join('; ')}` });
          return false;
        }
        captureKinds.value = [kind];
        // a photo capture's masks go with its parameters (train.masks: the capture resizes them into the dataset)
        const masks = kind === 'photos' ? options.masks?.trim() : undefined;
        const { task } = await api.capture.import({ inputs: [trimmed], params: { ...captureValues.value, ...(masks ? { 'train.masks': masks } : {}) } });
        capture.value = early.get(task) ?? { task, kind: 'capture', state: 'running', title: trimmed, startedMs: Date.now() };
        early.clear();
        if (capture.value.state !== 'running') onCaptureEvent(capture.value);
        return true;
      }
      const masks = options.masks?.trim();
      return showProject(await api.projects.create({ source: kind === 'dataset' ? { kind: 'dataset', dir: trimmed, ...(masks ? { masks } : {}) } : { kind: 'splat', path: trimmed } }));
    });
  }

  async function cancelCapture() {
    if (!client || !capture.value || capture.value.state !== 'running') return;
    try {
      await client.api.tasks.cancel({ task: capture.value.task });
    } catch (error) {
      report_(error);
    }
  }

  /** Opens a .argo project (it joins the recent list). */
  async function open(path: string): Promise<boolean> {
    const api = client?.api;
    if (!api) return false;
    return whileBusy(async () => showProject(await api.projects.open({ path: path.trim() })));
  }

  /** Thumbnails of up to MAX_THUMBNAILS views, evenly spread (the engine's image service, PNG). */
  async function loadFrames(project: ProjectSummary) {
    for (const f of frames.value) URL.revokeObjectURL(f.url);
    frames.value = [];
    if (!client || project.dataset?.kind !== 'folder') return;
    framesLoading.value = true;
    try {
      const scene = await client.api.projects.scene({ project: project.path });
      const count = scene.views.length;
      const picks = count <= MAX_THUMBNAILS ? [...Array(count).keys()] : Array.from({ length: MAX_THUMBNAILS }, (_, i) => Math.round((i * (count - 1)) / (MAX_THUMBNAILS - 1)));
      const thumbs: FrameThumb[] = [];
      for (const camera of picks) {
        const image = await client.api.projects.image({ project: project.path, camera, maxSize: 160 });
        if (current.value?.path !== project.path) return; // another project was opened meanwhile
        thumbs.push({ url: URL.createObjectURL(new Blob([image.data], { type: image.mime })), name: scene.views[camera].name, width: image.width, height: image.height });
        frames.value = markRaw([...thumbs]);
      }
    } catch (error) {
      report_(error);
    } finally {
      framesLoading.value = false;
    }
  }

  /** Makes the current project what Train trains, and shows Train. */
  function train() {
    if (!current.value) return;
    useTrainingStore().useSource({ kind: 'project', path: current.value.path, name: current.value.name });
    useNavigationStore().go('train');
  }

  return { current, recent, busy, captureValues, captureErrors, capture, captureKinds, frames, framesLoading, capturing, stages, report, attach, refreshRecent, create, cancelCapture, open, train, setCurrent };
});
