import { defineStore } from 'pinia';
import { markRaw, ref, shallowRef } from 'vue';
import type { PinholeCamera } from '../../../shared/scene/camera.js';
import type { StudioClient } from '../api/client.js';
import { generateDemoScene, type DemoScene } from '../viewer/demo-scene.js';

/** Splats to show: a buffer in the 32-byte layout (viewer/splat-layout.ts) and its count. */
export interface SplatData {
  buffer: ArrayBuffer;
  count: number;
}

export type SceneSource = { kind: 'demo' } | { kind: 'snapshot'; job: string; step: number };

/**
 * What the viewer shows: the newest live training snapshot when a job sends them, else the
 * built-in procedural sample scene. Splat buffers, cameras and points are large: they are held
 * with shallowRef + markRaw so Vue never walks them; `source` describes them reactively.
 */
export const useSceneStore = defineStore('scene', () => {
  const source = ref<SceneSource>({ kind: 'demo' });
  /** The splats on screen (replaced, never mutated). */
  const splats = shallowRef<SplatData>();
  /** Training cameras drawn as frustums. */
  const cameras = shallowRef<readonly PinholeCamera[]>([]);
  /** Sparse SfM points (xyz, RGBA bytes). */
  const points = shallowRef<{ positions: Float32Array; colors: Uint8Array; count: number }>();
  let demo: DemoScene | undefined;

  /** Shows the procedural sample scene (generated once, on first use). */
  function showDemo() {
    demo ??= markRaw(generateDemoScene());
    source.value = { kind: 'demo' };
    splats.value = markRaw({ buffer: demo.splats, count: demo.count });
    cameras.value = markRaw(demo.cameras);
    points.value = markRaw(demo.points);
  }

  /** Follows live training snapshots (binary, the engine throttles them; the viewer coalesces). */
  function attach(client: StudioClient) {
    client.on('snapshot', (e) => {
      source.value = { kind: 'snapshot', job: e.job, step: e.step };
      splats.value = markRaw({ buffer: e.data, count: e.count });
      if (demo && cameras.value === demo.cameras) {
        cameras.value = [];
        points.value = undefined;
      }
    });
  }

  return { source, splats, cameras, points, showDemo, attach };
});
