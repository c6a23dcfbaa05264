import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import { isReactive } from 'vue';
import { useSceneStore } from '../../../renderer/src/stores/scene.js';
import { fakeEngine, settle } from '../helpers/engine.js';

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
});
