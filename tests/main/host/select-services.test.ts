/**
 * edits.select and edits.cleanPreview through the real contract runtime (validation, masks and
 * selections as raw bytes) with a real engine on this machine's GPU, on a project made from a
 * splat file: the answers are the float64 reference's on the edited splats at their base indices.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeCleanSelection, resolveCleanParams } from '../../../main/engine/edit/clean.js';
import { selectReference } from '../../../main/engine/edit/select-reference.js';
import { maskFromIndices, maskHas } from '../../../shared/edits/selection-mask.js';
import { Engine } from '../../../main/engine/engine.js';
import { writePly } from '../../../main/engine/formats/ply.js';
import { engineOptionsFrom } from '../../../main/engine/options.js';
import { createSplatProject } from '../../../main/engine/project/import.js';
import { tempDir } from '../../helpers/datasets.js';
import { freshSeed, rng } from '../../helpers/random.js';
import { randomSelectCamera, randomSelectScene } from '../../parity/edit-select.parity.js';
import { hostClient, type HostClient } from '../../helpers/host-client.js';

const seed = freshSeed();
const engine = new Engine(engineOptionsFrom({}));
let client: HostClient;
let file: string;
const splats = randomSelectScene(rng(seed), 2001);

beforeAll(async () => {
  const dir = await tempDir('select-services');
  process.env.ARGONAUT_STATE_DIR = path.join(dir, 'state');
  // the PLY holds degree-0 colour and float32 values: what the project reads back is what we compare with
  const ply = path.join(dir, 'in.ply');
  await writePly(ply, { ...splats, shDegree: 0, sh: Float32Array.from({ length: splats.count * 3 }, (_, i) => splats.sh[Math.floor(i / 3) * ((splats.shDegree + 1) ** 2) * 3 + (i % 3)]) });
  file = (await createSplatProject(ply, path.join(dir, 'scene.argo'))).file;
  client = hostClient(engine, path.join(dir, 'state'));
});
afterAll(async () => {
  delete process.env.ARGONAUT_STATE_DIR;
  await engine.dispose();
});

describe(`edits.select and edits.cleanPreview (seed ${seed})`, () => {
  it('selects on the GPU as the reference does, leaves deleted splats out, and previews the cleanup', async () => {
    const box = { kind: 'box' as const, box: { centre: [0, 0, 0] as [number, number, number], halfSize: [0.6, 0.5, 0.7] as [number, number, number], rotation: [0, 0, 0, 1] as [number, number, number, number] } };
    const first = await client.api.edits.select({ project: file, mode: 'replace', shape: box });
    const want = selectReference(splats, { mode: 'replace', shape: box });
    expect(first.splats).toBe(splats.count);
    // equal but for splats within float32 rounding of the box's faces
    const unexplained = Array.from(first.mask).map((w, k) => (w ^ want.mask[k]) & ~want.ambiguous[k]).filter((d) => d !== 0);
    expect(unexplained).toEqual([]);
    expect(first.count).toBeGreaterThan(0);

    const random = randomSelectCamera(rng(seed + 1));
    const camera = { ...random, worldToCamera: [...random.worldToCamera] };
    const rect = { kind: 'rect' as const, min: [0, 0] as [number, number], max: [camera.width / 2, camera.height] as [number, number] };
    const added = await client.api.edits.select({ project: file, mode: 'add', shape: rect, camera, current: first.mask });
    const wantAdded = selectReference(splats, { mode: 'add', shape: rect, camera, current: first.mask });
    expect(Math.abs(added.count - wantAdded.count)).toBeLessThanOrEqual(2); // a splat on the rect's edge may round either way

    // delete the box's splats: 'all' then selects every other one, none of the deleted
    const deleted = Uint32Array.from(Array.from({ length: splats.count }, (_, i) => i).filter((i) => maskHas(first.mask, i)));
    await client.api.edits.apply({ project: file, operation: { op: 'delete' }, selection: deleted });
    const all = await client.api.edits.select({ project: file, mode: 'all' });
    expect(all.count).toBe(splats.count - deleted.length);
    expect(deleted.some((i) => maskHas(all.mask, i))).toBe(false);

    const params = { 'edit.cleanStrength': 0.6, 'edit.cleanRadius': 0.1 };
    const preview = await client.api.edits.cleanPreview({ project: file, params });
    const exclude = maskFromIndices(deleted, splats.count);
    const wantClean = computeCleanSelection(splats, { params: resolveCleanParams(params), exclude });
    expect(Array.from(preview.selection)).toEqual(Array.from(wantClean.selection));
    expect(preview.reasons).toEqual(wantClean.reasons);
    // a second position of the slider reuses the scores and still matches
    const stronger = await client.api.edits.cleanPreview({ project: file, params: { ...params, 'edit.cleanStrength': 0.9 } });
    expect(stronger.selection.length).toBe(computeCleanSelection(splats, { params: resolveCleanParams({ ...params, 'edit.cleanStrength': 0.9 }), exclude }).selection.length);
  });

  it('refuses bad requests by name', async () => {
    await expect(client.api.edits.select({ project: file, mode: 'replace', shape: { kind: 'rect', min: [0, 0], max: [5, 5] } })).rejects.toThrow(/rect selection needs the viewer's camera/);
    await expect(client.api.edits.select({ project: file, mode: 'invert', current: new Uint32Array(3) })).rejects.toThrow(/current selection: 3 words, expected 63/);
    await expect(client.api.edits.cleanPreview({ project: file, params: { 'edit.cleanStrength': 3 } })).rejects.toThrow(/edit.cleanStrength/);
    await expect(client.api.edits.cleanPreview({ project: file, params: { 'edit.cleanNope': 1 } })).rejects.toThrow(/unknown parameter edit.cleanNope/);
  });
});
