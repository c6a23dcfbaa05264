/**
 * The camera-path panel's store: the draft's keyframe edits (times stay increasing, poses move),
 * an orbit of the scene's cameras, and save / render over the real contract runtime against a
 * scripted engine, the video task followed through its events.
 */
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import { contract, type Services } from '../../../shared/contract/index.js';
import type { ServiceImpl } from '../../../shared/rpc/define.js';
import { createClient, serve } from '../../../shared/rpc/runtime.js';
import { createMemoryTransportPair } from '../../../shared/rpc/transport.js';
import { CameraPathSchema } from '../../../shared/scene/camera-path.js';
import { lookAt } from '../../../shared/scene/camera.js';
import { addKeyframe, deleteKeyframe, emptyDraft, KEYFRAME_SPACING_S, moveKeyframe, usePathStore, withDuration, withLoop } from '../../../renderer/src/stores/paths.js';
import { useSceneStore } from '../../../renderer/src/stores/scene.js';
import { settle } from '../helpers/engine.js';

beforeEach(() => setActivePinia(createPinia()));

const pose = (x: number) => ({ position: [x, 0, -3] as [number, number, number], rotation: [0, 0, 0, 1] as [number, number, number, number], fovYDeg: 50 });

describe('path drafts', () => {
  it('add keyframes spaced in time, swap poses when reordered, keep increasing times when one is deleted', () => {
    let draft = emptyDraft();
    for (const x of [0, 1, 2]) draft = addKeyframe(draft, pose(x));
    expect(draft.keyframes.map((k) => k.time)).toEqual([0, KEYFRAME_SPACING_S, 2 * KEYFRAME_SPACING_S]);
    expect(draft.duration).toBe(2 * KEYFRAME_SPACING_S);
    expect(CameraPathSchema.safeParse(draft).success).toBe(true);
    const moved = moveKeyframe(draft, 0, 1);
    expect(moved.keyframes.map((k) => k.position[0])).toEqual([1, 0, 2]);
    expect(moved.keyframes.map((k) => k.time)).toEqual(draft.keyframes.map((k) => k.time));
    expect(moveKeyframe(draft, 0, -1)).toBe(draft);
    const deleted = deleteKeyframe(draft, 1);
    expect(deleted.keyframes.map((k) => [k.time, k.position[0]])).toEqual([[0, 0], [2 * KEYFRAME_SPACING_S, 2]]);
    expect(CameraPathSchema.safeParse(deleted).success).toBe(true);
    expect(CameraPathSchema.safeParse(deleteKeyframe(deleted, 0)).success).toBe(false);
  });

  it('a loop lasts past its last keyframe; a new duration scales every time', () => {
    let draft = emptyDraft();
    for (const x of [0, 1]) draft = addKeyframe(draft, pose(x));
    const looped = withLoop(draft, true);
    expect(looped.duration).toBe(2 * KEYFRAME_SPACING_S);
    expect(CameraPathSchema.safeParse(looped).success).toBe(true);
    const longer = withDuration(looped, 8);
    expect(longer.keyframes.map((k) => k.time)).toEqual([0, 4]);
    expect(withLoop(longer, false).duration).toBe(4);
  });
});

describe('path store', () => {
  it('generates an orbit of the scene cameras, saves it and renders it as a task followed to its result', async () => {
    const [clientSide, serverSide] = createMemoryTransportPair();
    const calls: { method: string; args: Record<string, unknown> }[] = [];
    const impl = {
      paths: {
        list: async () => ({ paths: [] }),
        save: async (args: { path: unknown }) => (calls.push({ method: 'paths.save', args }), { paths: [args.path] }),
        render: async (args: Record<string, unknown>) => (calls.push({ method: 'paths.render', args }), { task: 'video-1' }),
      },
      tasks: { cancel: async () => ({ task: 'video-1', state: 'cancelled' }) },
    };
    const server = serve(contract, impl as unknown as ServiceImpl<Services>, serverSide, { caller: 'test' });
    const store = usePathStore();
    store.attach(createClient(contract, clientSide));
    const scene = useSceneStore();
    scene.project = '/work/ball.argo';
    const cameras = Array.from({ length: 8 }, (_, i) => {
      const a = (2 * Math.PI * i) / 8;
      return { width: 64, height: 48, fx: 60, fy: 60, cx: 32, cy: 24, worldToCamera: lookAt([3 * Math.cos(a), -1, 3 * Math.sin(a)], [0, 0, 0], [0, -1, 0]) };
    });
    store.generateOrbit(cameras, 2);
    expect(store.path).toBeDefined();
    expect(store.path!.loop).toBe(true);
    expect(store.path!.duration).toBe(2);
    expect(Math.hypot(...store.path!.keyframes[0].position)).toBeCloseTo(Math.hypot(3, 1), 6);
    await store.save();
    expect(calls[0]).toMatchObject({ method: 'paths.save', args: { project: '/work/ball.argo', path: store.path } });
    expect(store.saved.map((p) => p.id)).toEqual(['orbit']);
    store.video = { width: 64, height: 48, fps: 15 };
    await store.render();
    expect(calls[1]).toMatchObject({ method: 'paths.render', args: { project: '/work/ball.argo', out: '/work/ball-orbit.mp4', settings: { width: 64, height: 48, fps: 15 } } });
    expect(store.rendering).toBe(true);
    server.emit('task', { task: 'video-1', kind: 'video', title: 'x', startedMs: 1, state: 'running', stage: 'render', fraction: 0.5 });
    server.emit('task', { task: 'video-1', kind: 'video', title: 'x', startedMs: 1, state: 'finished', result: { kind: 'video', path: '/work/ball-orbit.mp4', pathId: 'orbit', frames: 30, width: 64, height: 48, fps: 15, durationS: 2, bytes: 1000, seconds: 1 } });
    await settle();
    expect(store.rendering).toBe(false);
    expect(store.task?.result).toMatchObject({ kind: 'video', frames: 30 });
  });
});
