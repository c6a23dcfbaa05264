import { defineStore } from 'pinia';
import { markRaw, ref, shallowRef } from 'vue';
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import type { StudioClient } from '../api/client.js';
import { generateDemoScene, type DemoScene } from '../viewer/demo-scene.js';
import { useNoticeStore } from './notices.js';

/** Splats to show: a buffer in the 32-byte layout (viewer/splat-layout.ts) and its count. */
export interface SplatData {
  buffer: ArrayBuffer;
  count: number;
  /**
   * Per shown splat, its index in the edit list's base (the engine's kept -> base map), when the
   * project has edits that removed or hid splats; absent, shown splat i is base splat i.
   */
  baseIndex?: Uint32Array;
}

export type SceneSource =
  | { kind: 'demo' }
  /** A project's saved splats (its newest run), or none yet. */
  | { kind: 'project'; project: string; step?: number }
  /** A live snapshot of a training job. */
  | { kind: 'snapshot'; job: string; step: number; project?: string };

/** A training view: its name and split, beside the camera at the same index. */
export interface ViewInfo {
  name: string;
  split: 'train' | 'test';
}

/** A training view's photo as the engine trains on it (PNG, as an object URL the caller revokes). */
export interface ViewPhoto {
  url: string;
  width: number;
  height: number;
}

/** The engine sends SfM point colours as RGB bytes; the viewer takes RGBA. */
export function rgbaColours(colors: Uint8Array, count: number): Uint8Array {
  if (colors.length === count * 4) return colors;
  if (colors.length !== count * 3) throw new RangeError(`SfM points: ${count} points need ${count * 3} (RGB) or ${count * 4} (RGBA) colour bytes, got ${colors.length}`);
  const rgba = new Uint8Array(count * 4);
  for (let i = 0; i < count; i++) {
    rgba[4 * i] = colors[3 * i];
    rgba[4 * i + 1] = colors[3 * i + 1];
    rgba[4 * i + 2] = colors[3 * i + 2];
    rgba[4 * i + 3] = 255;
  }
  return rgba;
}

/** A `projects.splats` reply as the viewer's data (the kept -> base map when the engine sends one). */
function savedSplats(saved: { data: ArrayBuffer; count: number; keptToBase?: Uint32Array }): SplatData {
  return { buffer: saved.data, count: saved.count, ...(saved.keptToBase ? { baseIndex: saved.keptToBase } : {}) };
}

/**
 * What the viewer shows: the splats of the project being trained (its saved splats, then live
 * snapshots while a job runs), its training cameras and SfM points; or, before any project, the
 * built-in procedural sample scene. Splat buffers, cameras and points are large: they are held
 * with shallowRef + markRaw so Vue never walks them; `source` describes them reactively.
 */
export const useSceneStore = defineStore('scene', () => {
  const source = ref<SceneSource>({ kind: 'demo' });
  /** The splats on screen (replaced, never mutated). */
  const splats = shallowRef<SplatData>();
  /** Training cameras drawn as frustums. */
  const cameras = shallowRef<readonly PinholeCamera[]>([]);
  /** Per camera: image name and split (empty for the demo scene, which has no photos). */
  const views = shallowRef<readonly ViewInfo[]>([]);
  /** Sparse SfM points (xyz, RGBA bytes). */
  const points = shallowRef<{ positions: Float32Array; colors: Uint8Array; count: number }>();
  /** The .argo project whose cameras and points are shown, if any. */
  const project = ref<string>();
  let demo: DemoScene | undefined;
  let client: StudioClient | undefined;
  /** The newest project load; an older one finishing late does not overwrite it. */
  let loading = 0;

  /** Shows the procedural sample scene (generated once, on first use). */
  function showDemo() {
    demo ??= markRaw(generateDemoScene());
    source.value = { kind: 'demo' };
    project.value = undefined;
    splats.value = markRaw({ buffer: demo.splats, count: demo.count });
    cameras.value = markRaw(demo.cameras);
    views.value = [];
    points.value = markRaw(demo.points);
  }

  /**
   * Shows a project: its cameras and SfM points (`projects.scene`) and, unless `keepSplats`, its
   * newest saved splats (`projects.splats`; a project never trained has none). Failures become a
   * banner in the Viewer.
   */
  async function showProject(path: string, options: { keepSplats?: boolean } = {}): Promise<void> {
    if (!client) return;
    const ticket = ++loading;
    const c = client;
    project.value = path;
    try {
      const scene = await c.api.projects.scene({ project: path });
      if (ticket !== loading) return;
      cameras.value = markRaw(scene.cameras);
      views.value = markRaw(scene.views);
      points.value = scene.points.count > 0 ? markRaw({ ...scene.points, colors: rgbaColours(scene.points.colors, scene.points.count) }) : undefined;
      if (options.keepSplats && source.value.kind === 'snapshot') return;
      const saved = await c.api.projects.splats({ project: path }).catch((error: { code?: string }) => {
        if (error.code === 'not_found' || error.code === 'bad_input') return undefined; // nothing trained yet
        throw error;
      });
      if (ticket !== loading || (options.keepSplats && source.value.kind === 'snapshot')) return;
      if (saved) {
        splats.value = markRaw(savedSplats(saved));
        source.value = { kind: 'project', project: path, step: saved.step };
      } else {
        splats.value = undefined;
        source.value = { kind: 'project', project: path };
      }
    } catch (error) {
      if (ticket === loading) useNoticeStore().report(error, 'viewer');
    }
  }

  /**
   * Loads the shown project's splats again (after an edit: `projects.splats` returns them
   * through the edit list). Resolves once they are in `splats`; failures reach the caller.
   */
  async function reloadSplats(): Promise<void> {
    if (!client || !project.value) return;
    const path = project.value;
    const ticket = ++loading;
    const saved = await client.api.projects.splats({ project: path });
    if (ticket !== loading) return;
    splats.value = markRaw(savedSplats(saved));
    source.value = { kind: 'project', project: path, step: saved.step };
  }

  /** The photo of training view `index` of the shown project (undefined for the demo scene). */
  async function photo(index: number, maxSize = 1024): Promise<ViewPhoto | undefined> {
    if (!client || !project.value) return undefined;
    const image = await client.api.projects.image({ project: project.value, camera: index, maxSize });
    return { url: URL.createObjectURL(new Blob([image.data], { type: image.mime })), width: image.width, height: image.height };
  }

  /** Follows training: a job's project gets its cameras shown, its snapshots replace the splats. */
  function attach(c: StudioClient) {
    client = c;
    c.on('job', (e) => {
      if (['starting', 'running'].includes(e.state) && e.project !== project.value) void showProject(e.project, { keepSplats: true });
    });
    c.on('snapshot', (e) => {
      source.value = { kind: 'snapshot', job: e.job, step: e.step, ...(project.value ? { project: project.value } : {}) };
      splats.value = markRaw({ buffer: e.data, count: e.count });
      if (demo && cameras.value === demo.cameras) {
        cameras.value = [];
        points.value = undefined;
      }
    });
  }

  return { source, splats, cameras, views, points, project, showDemo, showProject, reloadSplats, photo, attach };
});
