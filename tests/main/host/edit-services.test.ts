/**
 * The edit service through the real contract runtime: validation (shapes, selections sorted and
 * distinct, present exactly where an operation takes one), engine checks (in range), errors as
 * envelopes naming the project, and the selection's bytes over the WebSocket codec.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeMessage, encodeMessage } from '../../../shared/rpc/codec.js';
import { Engine } from '../../../main/engine/engine.js';
import { writePly } from '../../../main/engine/formats/ply.js';
import { createSplatProject } from '../../../main/engine/project/import.js';
import { engineOptionsFrom } from '../../../main/engine/options.js';
import { tempDir } from '../../helpers/datasets.js';
import { hashTree } from '../../helpers/projects.js';
import { freshSeed } from '../../helpers/random.js';
import { randomSplats } from '../../helpers/splat-sets.js';
import { hostClient, type HostClient } from '../../helpers/host-client.js';

const engine = new Engine(engineOptionsFrom({}));
let client: HostClient;
let dir: string;

beforeAll(async () => {
  dir = await tempDir('edit-services');
  client = hostClient(engine, path.join(dir, 'state'));
});
afterAll(async () => {
  await engine.dispose();
});

describe('edits service', () => {
  const seed = freshSeed();
  it(`get, apply, undo, redo, clear: the state after each (seed ${seed})`, async () => {
    const ply = path.join(dir, 'in.ply');
    await writePly(ply, randomSplats(120, 1, seed));
    const project = (await createSplatProject(ply, path.join(dir, 's.argo'))).file;
    expect(await client.api.edits.get({ project })).toMatchObject({ project, history: 0, summary: { operations: 0, before: 120, after: 120, layers: ['main'] } });
    const selection = Uint32Array.from({ length: 40 }, (_, i) => 3 * i);
    // the selection crosses the WebSocket codec as raw bytes and comes back typed
    const wire = decodeMessage(encodeMessage({ kind: 'req', id: 1, service: 'edits', method: 'apply', args: { project, operation: { op: 'delete' }, selection } })) as { args: { selection: Uint32Array<ArrayBuffer> } };
    expect(wire.args.selection).toBeInstanceOf(Uint32Array);
    const applied = await client.api.edits.apply({ project, operation: { op: 'delete', label: 'Delete 40 splats (box)' }, selection: wire.args.selection });
    expect(applied.summary).toMatchObject({ operations: 1, after: 80, counts: { delete: 1 } });
    const separated = await client.api.edits.apply({ project, operation: { op: 'separate', layer: 'props' }, selection: Uint32Array.of(1, 2) });
    expect(separated.summary).toMatchObject({ operations: 2, after: 80, layers: ['main', 'props'] });
    expect((await client.api.edits.undo({ project })).summary).toMatchObject({ operations: 1, undone: 1, layers: ['main'] });
    expect((await client.api.edits.redo({ project })).summary).toMatchObject({ operations: 2, undone: 0 });
    // the viewer's splats: edited, with each one's base index (what a selection names), or raw
    const shown = await client.api.projects.splats({ project });
    expect(shown.count).toBe(80);
    expect(Array.from(shown.keptToBase!.subarray(0, 4))).toEqual([1, 2, 4, 5]);
    const raw = await client.api.projects.splats({ project, raw: true });
    expect(raw.count).toBe(120);
    expect(raw.keptToBase).toBeUndefined();
    expect((await client.api.edits.clear({ project })).summary).toMatchObject({ operations: 0, after: 120 });

    const before = hashTree(dir, (name) => name === 'state');
    const refusals: [Parameters<typeof client.api.edits.apply>[0], string, RegExp][] = [
      [{ project, operation: { op: 'delete' } }, 'invalid_argument', /selection.*a delete needs a selection/],
      [{ project, operation: { op: 'delete' }, selection: Uint32Array.of(5, 5) }, 'invalid_argument', /must be sorted and distinct/],
      [{ project, operation: { op: 'crop', box: { centre: [0, 0, 0], halfSize: [1, 1, 1], rotation: [0, 0, 0, 1] } }, selection: Uint32Array.of(1) }, 'invalid_argument', /a crop takes no selection/],
      [{ project, operation: { op: 'crop', box: { centre: [0, 0, 0], halfSize: [1, -2, 1], rotation: [0, 0, 0, 1] } } }, 'invalid_argument', /halfSize/],
      [{ project, operation: { op: 'melt' } as never, selection: Uint32Array.of(1) }, 'invalid_argument', /op/],
      [{ project, operation: { op: 'hide' }, selection: Uint32Array.of(119, 120) }, 'bad_input', /s\.argo: the hide edit's selection: index 1 is 120, not below the base's 120 splats/],
    ];
    for (const [args, code, message] of refusals) await expect(client.api.edits.apply(args)).rejects.toMatchObject({ code, message: expect.stringMatching(message) });
    expect(hashTree(dir, (name) => name === 'state')).toEqual(before);
  });
});
