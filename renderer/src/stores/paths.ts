import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { TaskStatus } from '../../../shared/contract/index.js';
import { CameraPathSchema, type CameraKeyframe, type CameraPath } from '../../../shared/scene/camera-path.js';
import type { PathSample } from '../../../shared/scene/camera-path-sample.js';
import { sceneOrbit } from '../../../shared/scene/scene-orbit.js';
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import type { StudioClient } from '../api/client.js';
import { besideProject } from './exports.js';
import { useLogStore } from './logs.js';
import { useNoticeStore } from './notices.js';
import { useProjectStore } from './projects.js';
import { useSceneStore } from './scene.js';

/** Seconds between a new keyframe and the one before it. */
export const KEYFRAME_SPACING_S = 2;

/** A path being edited: the schema's shape, but it may have fewer than two keyframes. */
export type PathDraft = Omit<CameraPath, 'keyframes'> & { keyframes: CameraKeyframe[] };

export function emptyDraft(id = 'path-1'): PathDraft {
  return { id, name: 'Camera path', interpolation: 'smooth', loop: false, duration: 0, keyframes: [] };
}

/** The draft's keyframes at new times `times` (same count), the duration following the last. */
function retimed(draft: PathDraft, keyframes: CameraKeyframe[]): PathDraft {
  const last = keyframes.at(-1)?.time ?? 0;
  const duration = draft.loop ? Math.max(draft.duration, last + KEYFRAME_SPACING_S) : last;
  return { ...draft, keyframes, duration };
}

/** A draft's keyframe `index` moved by `delta` places: the poses swap, the times stay (they must increase). */
export function moveKeyframe(draft: PathDraft, index: number, delta: -1 | 1): PathDraft {
  const other = index + delta;
  if (other < 0 || other >= draft.keyframes.length) return draft;
  const keyframes = draft.keyframes.map((k) => ({ ...k }));
  const pose = (k: CameraKeyframe) => ({ position: k.position, rotation: k.rotation, fovYDeg: k.fovYDeg });
  const a = pose(keyframes[index]);
  Object.assign(keyframes[index], pose(keyframes[other]));
  Object.assign(keyframes[other], a);
  return { ...draft, keyframes };
}

/** A draft without keyframe `index` (the later ones keep their times). */
export function deleteKeyframe(draft: PathDraft, index: number): PathDraft {
  return retimed(draft, draft.keyframes.filter((_, i) => i !== index));
}

/** A draft with a keyframe at `sample`, KEYFRAME_SPACING_S after the last (or at 0). */
export function addKeyframe(draft: PathDraft, sample: PathSample): PathDraft {
  const time = draft.keyframes.length ? draft.keyframes.at(-1)!.time + KEYFRAME_SPACING_S : 0;
  const keyframe: CameraKeyframe = { time, position: [...sample.position], rotation: [...sample.rotation], fovYDeg: Math.min(169, Math.max(2, sample.fovYDeg)) };
  return retimed(draft, [...draft.keyframes, keyframe]);
}

/** A draft lasting `duration` seconds: every keyframe time scaled by the same factor. */
export function withDuration(draft: PathDraft, duration: number): PathDraft {
  if (!(duration > 0) || !(draft.duration > 0)) return draft;
  const scale = duration / draft.duration;
  return { ...draft, duration, keyframes: draft.keyframes.map((k) => ({ ...k, time: k.time * scale })) };
}

export function withLoop(draft: PathDraft, loop: boolean): PathDraft {
  const last = draft.keyframes.at(-1)?.time ?? 0;
  return { ...draft, loop, duration: loop ? Math.max(draft.duration, last + KEYFRAME_SPACING_S) : last };
}

/** The splat centres of the viewer's 32-byte layout (xyz floats first). */
function splatCentres(buffer: ArrayBuffer, count: number): Float32Array {
  const floats = new Float32Array(buffer, 0, count * 8);
  const out = new Float32Array(count * 3);
  for (let i = 0; i < count; i++) out.set(floats.subarray(8 * i, 8 * i + 3), 3 * i);
  return out;
}

/**
 * The Viewer's camera-path panel: the path being edited (keyframes from the view, an orbit of the
 * scene, reorder and delete), the timeline's time, the project's saved paths (`paths.*`), and its
 * video render (`paths.render`, a task followed through `task` events, cancellable).
 */
export const usePathStore = defineStore('paths', () => {
  const draft = ref<PathDraft>(emptyDraft());
  const saved = ref<CameraPath[]>([]);
  /** Seconds along the draft the view shows. */
  const timeS = ref(0);
  const playing = ref(false);
  const video = ref({ width: 1280, height: 720, fps: 30 });
  /** The MP4 typed by the user (empty: beside the project). */
  const out = ref('');
  const task = ref<TaskStatus>();
  const busy = ref(false);
  let client: StudioClient | undefined;

  const project = computed(() => useSceneStore().project ?? useProjectStore().current?.path);
  const checked = computed(() => CameraPathSchema.safeParse(draft.value));
  /** The draft as a valid path, or undefined (fewer than two keyframes, ...). */
  const path = computed(() => (checked.value.success ? checked.value.data : undefined));
  const problem = computed(() => (checked.value.success ? undefined : draft.value.keyframes.length < 2 ? 'Add at least two keyframes, or generate an orbit.' : checked.value.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')));
  const outPath = computed(() => out.value.trim() || (project.value ? besideProject(project.value, `-${draft.value.id}.mp4`) : ''));
  const rendering = computed(() => task.value?.state === 'running');

  function attach(c: StudioClient) {
    client = c;
    c.on('task', (e) => {
      if (e.kind === 'video' && (!task.value || task.value.task === e.task || task.value.state !== 'running')) onTask(e);
    });
  }

  function onTask(e: TaskStatus) {
    task.value = e;
    if (e.state === 'failed' && e.error) useNoticeStore().report(e.error, 'viewer');
    if (e.state === 'finished' && e.result?.kind === 'video') useLogStore().studio('info', `${e.result.path}: ${e.result.frames} frames rendered`);
  }

  function edit(next: PathDraft) {
    draft.value = next;
    timeS.value = Math.min(timeS.value, next.duration);
  }

  /** An orbit of the shown scene (its training cameras, else its splats), `duration` seconds. */
  function generateOrbit(cameras: readonly PinholeCamera[], duration = 4) {
    const scene = useSceneStore();
    const positions = scene.splats ? splatCentres(scene.splats.buffer, scene.splats.count) : new Float32Array(0);
    if (cameras.length < 2 && positions.length === 0) {
      useNoticeStore().report({ code: 'invalid_argument', message: 'Nothing to orbit: the scene has no cameras and no splats yet.' }, 'viewer');
      return;
    }
    const orbit = sceneOrbit(cameras, positions, { duration });
    edit({ ...orbit, id: draft.value.id === 'path-1' || draft.value.id === 'orbit' ? 'orbit' : draft.value.id });
  }

  async function load() {
    if (!client || !project.value) return;
    try {
      saved.value = (await client.api.paths.list({ project: project.value })).paths;
    } catch (error) {
      useNoticeStore().report(error, 'viewer');
    }
  }

  async function save() {
    if (!client || !project.value || !path.value) return;
    busy.value = true;
    try {
      saved.value = (await client.api.paths.save({ project: project.value, path: path.value })).paths;
    } catch (error) {
      useNoticeStore().report(error, 'viewer');
    } finally {
      busy.value = false;
    }
  }

  async function remove(id: string) {
    if (!client || !project.value) return;
    try {
      saved.value = (await client.api.paths.delete({ project: project.value, id })).paths;
    } catch (error) {
      useNoticeStore().report(error, 'viewer');
    }
  }

  function open(id: string) {
    const found = saved.value.find((p) => p.id === id);
    if (found) edit(structuredClone({ ...found, keyframes: [...found.keyframes] }) as PathDraft);
  }

  async function render() {
    if (!client || !project.value || !path.value) return;
    try {
      const { task: id } = await client.api.paths.render({ project: project.value, path: path.value, out: outPath.value, settings: { ...video.value } });
      if (task.value?.task !== id) task.value = { task: id, kind: 'video', state: 'running', title: outPath.value, startedMs: Date.now() };
    } catch (error) {
      useNoticeStore().report(error, 'viewer');
    }
  }

  async function cancel() {
    if (!client || !task.value || task.value.state !== 'running') return;
    try {
      await client.api.tasks.cancel({ task: task.value.task });
    } catch (error) {
      useNoticeStore().report(error, 'viewer');
    }
  }

  return { draft, saved, timeS, playing, video, out, task, busy, project, path, problem, outPath, rendering, attach, edit, generateOrbit, load, save, remove, open, render, cancel };
});
