/**
 * `export.web` through the real contract runtime: a project's web viewer written by the engine
 * host's service, the contract's checks before it (absolute paths, no unknown fields), errors as
 * envelopes naming the folder.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../../main/engine/engine.js';
import { engineOptionsFrom } from '../../../main/engine/options.js';
import { tempDir } from '../../helpers/datasets.js';
import { sphereProject } from '../../helpers/mesh-project.js';
import { hostClient, type HostClient } from '../../helpers/host-client.js';

const engine = new Engine(engineOptionsFrom({}));
let client: HostClient;
let dir: string;
let project: string;

beforeAll(async () => {
  dir = await tempDir('web-export-service');
  project = (await sphereProject(path.join(dir, 'ball.argo'), { splats: 200, views: 4 })).file;
  client = hostClient(engine, path.join(dir, 'state'));
}, 60_000);
afterAll(async () => {
  await engine.dispose();
});

describe('export.web', () => {
  it('writes the folder or one HTML file, refuses a non-empty folder without force and relative paths', async () => {
    const folder = path.join(dir, 'site');
    const written = await client.api.export.web({ project, path: folder });
    expect(written).toMatchObject({ path: folder, splats: 200, cameraPaths: 0, singleFile: false, files: ['index.html', 'scene.js', 'viewer.js'] });
    expect(readdirSync(folder).sort()).toEqual(['index.html', 'scene.js', 'viewer.js']);

    const single = await client.api.export.web({ project, path: path.join(dir, 'ball.html'), singleFile: true });
    expect(single).toMatchObject({ singleFile: true, files: ['ball.html'] });

    const busy = path.join(dir, 'busy');
    mkdirSync(busy);
    writeFileSync(path.join(busy, 'keep.txt'), 'x');
    await expect(client.api.export.web({ project, path: busy })).rejects.toMatchObject({ code: 'bad_input', message: expect.stringMatching(/busy: the folder is not empty/) });
    expect(readdirSync(busy)).toEqual(['keep.txt']);
    expect((await client.api.export.web({ project, path: busy, force: true })).files).toHaveLength(3);

    await expect(client.api.export.web({ project, path: 'relative' })).rejects.toMatchObject({ code: 'bad_input', message: expect.stringContaining('expected an absolute path') });
    await expect(client.api.export.web({ project, path: folder, format: 'spz' } as never)).rejects.toMatchObject({ code: 'invalid_argument' });
  }, 60_000);
});
