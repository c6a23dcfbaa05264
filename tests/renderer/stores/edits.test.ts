import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import { isReactive } from 'vue';
import { lookAt } from '../../../shared/scene/camera.js';
import { ArgonautError } from '../../../shared/rpc/errors.js';
import { operationLabel, useEditStore } from '../../../renderer/src/stores/edits.js';
import { useSceneStore } from '../../../renderer/src/stores/scene.js';
import { useNoticeStore } from '../../../renderer/src/stores/notices.js';
import { projectToPixel } from '../../../renderer/src/viewer/opencv-frame.js';
import { maskHas } from '../../../shared/edits/selection-mask.js';
import { fakeEngine, settle } from '../helpers/engine.js';
import { FakeEdits } from '../helpers/fake-edits.js';
import { freshSeed, rng } from '../../helpers/random.js';

const PROJECT = '/tmp/p/edit.argo';
const CAMERA = { width: 400, height: 300, fx: 300, fy: 300, cx: 200, cy: 150, worldToCamera: lookAt([0, 0, -5], [0, 0, 0], [0, -1, 0]) };

/** `count` splats at random in a cube in front of the camera, random opacity. */
function randomSplats(count: number, seed: number): ArrayBuffer {
  const random = rng(seed);
  const buffer = new ArrayBuffer(count * 32);
  const floats = new Float32Array(buffer);
  const bytes = new Uint8Array(buffer);
  for (let i = 0; i < count; i++) {
    for (let a = 0; a < 3; a++) floats[i * 8 + a] = random() * 2 - 1;
    for (let a = 3; a < 6; a++) floats[i * 8 + a] = 0.01;
    bytes.set([200, 100, 50, Math.floor(random() * 256), 255, 128, 128, 128], i * 32 + 24);
  }
  return buffer;
}

async function setup(count = 1000) {
  const seed = freshSeed();
  const base = randomSplats(count, seed);
  const edits = new FakeEdits(base, count);
  const engine = fakeEngine({}, {
    projects: {
      create: async () => { throw new ArgonautError('internal', 'not used'); },
      open: async () => { throw new ArgonautError('internal', 'not used'); },
      recent: async () => ({ projects: [] }),
      scene: async () => ({ cameras: [CAMERA], views: [{ name: 'a.png', split: 'train' as const }], points: { positions: new Float32Array(0), colors: new Uint8Array(0), count: 0 } }),
      image: async () => { throw new ArgonautError('internal', 'not used'); },
      splats: async () => edits.splats(),
      partition: async () => { throw new ArgonautError('internal', 'not used'); },
      partitions: async () => ({ partitions: [], runs: [] }),
      blockSplats: async () => ({ count: 0, run: 'run-1', step: 0, data: new ArrayBuffer(0) }),
    },
  });
  const scene = useSceneStore();
  scene.attach(engine.client);
  await scene.showProject(PROJECT);
  const store = useEditStore();
  store.useBackend(edits);
  store.active = true;
  await store.refresh();
  const floats = new Float32Array(base);
  const inRect = (i: number, r: { x0: number; y0: number; x1: number; y1: number }) => {
    const p = projectToPixel(CAMERA, [floats[i * 8], floats[i * 8 + 1], floats[i * 8 + 2]])!;
    return p[0] >= r.x0 && p[0] <= r.x1 && p[1] >= r.y0 && p[1] <= r.y1;
  };
  return { seed, edits, scene, store, inRect, count, engine };
}

beforeEach(() => setActivePinia(createPinia()));

describe('edit store', () => {
  it('selects with rectangles through the view camera: replace, Shift-add, subtract; the mask is not reactive', async () => {
    const { seed, store, inRect, count } = await setup();
    expect(store.canEdit).toBe(true);
    const left = { kind: 'rect' as const, x0: 0, y0: 0, x1: 200, y1: 300 };
    const top = { kind: 'rect' as const, x0: 0, y0: 0, x1: 400, y1: 150 };
    await store.selectScreen(left, CAMERA);
    const expectLeft = Array.from({ length: count }, (_, i) => i).filter((i) => inRect(i, left));
    expect(store.selectedCount, `seed ${seed}`).toBe(expectLeft.length);
    expect(expectLeft.length).toBeGreaterThan(100);
    await store.selectScreen(top, CAMERA, 'add');
    const union = Array.from({ length: count }, (_, i) => i).filter((i) => inRect(i, left) || inRect(i, top));
    expect(store.selectedCount, `seed ${seed}`).toBe(union.length);
    await store.selectScreen(top, CAMERA, 'subtract');
    expect(store.selectedCount, `seed ${seed}`).toBe(Array.from({ length: count }, (_, i) => i).filter((i) => inRect(i, left) && !inRect(i, top)).length);
    expect(isReactive(store.mask)).toBe(false);
    expect(store.lastSelectMs).toBeGreaterThanOrEqual(0);
  });

  it('deletes the selection, shows the edited splats with their base indices, and undoes and redoes it', async () => {
    const { seed, edits, scene, store, inRect, count } = await setup();
    const rect = { kind: 'rect' as const, x0: 100, y0: 50, x1: 300, y1: 250 };
    await store.selectScreen(rect, CAMERA);
    const chosen = store.selectedCount;
    await store.deleteSelected();
    expect(edits.calls).toContain(`apply delete ${chosen}`);
    expect(scene.splats!.count, `seed ${seed}`).toBe(count - chosen);
    for (const b of scene.splats!.baseIndex!) expect(inRect(b, rect)).toBe(false);
    expect(store.selectedCount).toBe(0); // spent
    expect(store.applied.map(operationLabel)).toEqual([`Delete ${chosen.toLocaleString('en-US')} splats`]);
    expect(store.canUndo).toBe(true);
    await store.undo();
    expect(scene.splats!.count).toBe(count);
    expect(store.applied).toHaveLength(0);
    expect(store.undone).toHaveLength(1);
    await store.redo();
    expect(scene.splats!.count).toBe(count - chosen);
    expect(store.canRedo).toBe(false);
  });

  it('selects all, inverts and selects none over the shown splats only (deleted ones stay out)', async () => {
    const { store, scene, count } = await setup(300);
    await store.selectScreen({ kind: 'rect', x0: 0, y0: 0, x1: 200, y1: 300 }, CAMERA);
    const left = store.selectedCount;
    await store.deleteSelected();
    store.selectAll();
    expect(store.selectedCount).toBe(count - left);
    const someShown = scene.splats!.baseIndex![0];
    expect(maskHas(store.mask, someShown)).toBe(true);
    store.invert();
    expect(store.selectedCount).toBe(0);
    store.invert();
    expect(store.selectedCount).toBe(count - left);
    store.clearSelection();
    expect(store.selectedCount).toBe(0);
  });

  it('hides and unhides, counting hidden splats; a delete with nothing selected does nothing', async () => {
    const { store, scene, edits, count } = await setup(200);
    expect(await store.deleteSelected()).toBe(false);
    expect(edits.calls.filter((c) => c.startsWith('apply'))).toHaveLength(0);
    await store.selectScreen({ kind: 'rect', x0: 0, y0: 0, x1: 400, y1: 150 }, CAMERA);
    const top = store.selectedCount;
    await store.hideSelected();
    expect(store.hiddenCount).toBe(top);
    expect(scene.splats!.count).toBe(count - top);
    await store.unhideAll();
    expect(store.hiddenCount).toBe(0);
    expect(scene.splats!.count).toBe(count);
    expect(store.applied.map(operationLabel)).toEqual([`Hide ${top.toLocaleString('en-US')} splats`, 'Unhide all']);
  });

  it('previews floater removal at a strength, then applies exactly the previewed splats', async () => {
    const { store, scene, edits, count } = await setup(500);
    store.cleanStrength = 0.3;
    await store.previewClean();
    const preview = store.cleanPreview!;
    expect(preview.count).toBeGreaterThan(0);
    expect(preview.reasons.opacity).toBe(preview.count);
    expect(await store.applyClean()).toBe(true);
    expect(edits.calls).toContain(`apply clean ${preview.count}`);
    expect(scene.splats!.count).toBe(count - preview.count);
    expect(store.cleanPreview).toBeUndefined();
    expect(store.applied[0].op).toBe('clean');
    expect(operationLabel(store.applied[0])).toMatch(/^Remove floaters \(strength 0\.30\): \d+ splats$/);
  });

  it('reports a refused operation as a Viewer banner and keeps the selection', async () => {
    const { store, edits } = await setup(100);
    edits.apply = async () => { throw new ArgonautError('bad_input', 'edit.argo: crop box has a negative size'); };
    await store.selectScreen({ kind: 'rect', x0: 0, y0: 0, x1: 400, y1: 300 }, CAMERA);
    const before = store.selectedCount;
    expect(await store.deleteSelected()).toBe(false);
    expect(store.selectedCount).toBe(before);
    expect(useNoticeStore().forScope('viewer').map((n) => n.message)).toContain('edit.argo: crop box has a negative size');
    expect(store.busy).toBe(false);
  });

  it('follows the application menu: appCommand edit-delete, edit-undo and edit-select-all act while edit mode is on, not after', async () => {
    const { store, scene, engine, edits, count } = await setup(200);
    store.attach(engine.client);
    store.useBackend(edits); // attach installs the client's backend; keep the fake
    engine.server.emit('appCommand', { command: 'edit-select-all' });
    await settle();
    expect(store.selectedCount).toBe(count);
    engine.server.emit('appCommand', { command: 'edit-delete' });
    await expect.poll(() => scene.splats!.count).toBe(0);
    engine.server.emit('appCommand', { command: 'edit-undo' });
    await expect.poll(() => scene.splats!.count).toBe(count);
    store.active = false;
    engine.server.emit('appCommand', { command: 'edit-select-all' });
    engine.server.emit('appCommand', { command: 'view-home' }); // not an edit command: ignored here
    await settle();
    expect(store.selectedCount).toBe(0);
  });

  it('edits nothing without a project: the sample scene is not editable', () => {
    const scene = useSceneStore();
    scene.showDemo();
    const store = useEditStore();
    store.useBackend(new FakeEdits(new ArrayBuffer(32), 1));
    expect(store.project).toBeUndefined();
    expect(store.canEdit).toBe(false);
  });
});

describe('shapes as the engine takes them', () => {
  it('sends screen shapes in the contract’s form (rect min/max, brush circles, ellipsoid field)', async () => {
    const { engineShape } = await import('../../../renderer/src/stores/edit-backend.js');
    expect(engineShape({ kind: 'screen', camera: CAMERA, shape: { kind: 'rect', x0: 1, y0: 2, x1: 30, y1: 40 } })).toEqual({ kind: 'rect', min: [1, 2], max: [30, 40] });
    expect(engineShape({ kind: 'screen', camera: CAMERA, shape: { kind: 'brush', points: [[5, 6]], radiusPx: 9 } })).toEqual({ kind: 'brush', circles: [{ centre: [5, 6], radius: 9 }] });
    const box = { centre: [0, 0, 0] as [number, number, number], halfSize: [1, 1, 1] as [number, number, number], rotation: [0, 0, 0, 1] as [number, number, number, number] };
    expect(engineShape({ kind: 'ellipsoid', box })).toEqual({ kind: 'ellipsoid', ellipsoid: box });
    expect(engineShape({ kind: 'opacity', min: 0, max: 0.2 })).toEqual({ kind: 'opacity', min: 0, max: 0.2 });
  });
});
