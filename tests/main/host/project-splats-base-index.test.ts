/**
 * `projects.splats` with edits: the splats sent are the edited ones, and `keptToBase` names each
 * one's splat in the edit list's base, so the Viewer can show a selection (base indices) on them.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../../main/engine/engine.js';
import { writePly } from '../../../main/engine/formats/ply.js';
import { createSplatProject } from '../../../main/engine/project/import.js';
import { engineOptionsFrom } from '../../../main/engine/options.js';
import { tempDir } from '../../helpers/datasets.js';
import { freshSeed } from '../../helpers/random.js';
import { randomSplats } from '../../helpers/splat-sets.js';
import { hostClient, type HostClient } from '../../helpers/host-client.js';

const engine = new Engine(engineOptionsFrom({}));
let client: HostClient;
let dir: string;

beforeAll(async () => {
  dir = await tempDir('splats-base-index');
  client = hostClient(engine, path.join(dir, 'state'));
});
afterAll(async () => {
  await engine.dispose();
});

describe('projects.splats with edits', () => {
  const seed = freshSeed();
  it(`sends no base map without edits, and after a delete and a hide each shown splat's base index (seed ${seed})`, async () => {
    const ply = path.join(dir, 'in.ply');
    await writePly(ply, randomSplats(100, 1, seed));
    const project = (await createSplatProject(ply, path.join(dir, 's.argo'))).file;
    const raw = await client.api.projects.splats({ project });
    expect(raw.count).toBe(100);
    expect(raw.keptToBase).toBeUndefined();
    const rawFloats = new Float32Array(raw.data);

    await client.api.edits.apply({ project, operation: { op: 'delete' }, selection: Uint32Array.from({ length: 30 }, (_, i) => 3 * i) });
    await client.api.edits.apply({ project, operation: { op: 'hide' }, selection: Uint32Array.of(1, 2, 4) });
    const edited = await client.api.projects.splats({ project });
    const kept = Array.from({ length: 100 }, (_, i) => i).filter((i) => !(i % 3 === 0 && i < 90) && ![1, 2, 4].includes(i));
    expect(edited.count).toBe(kept.length);
    expect(edited.keptToBase).toBeInstanceOf(Uint32Array);
    expect([...edited.keptToBase!]).toEqual(kept);
    // each shown splat is its base splat: same centre
    const floats = new Float32Array(edited.data);
    kept.forEach((b, i) => {
      for (let a = 0; a < 3; a++) expect(floats[i * 8 + a]).toBe(rawFloats[b * 8 + a]);
    });
  });
});
