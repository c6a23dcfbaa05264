/**
 * `export.web` through the real contract runtime: a project's web viewer written by the engine
 * host's service, the contract's checks before it (absolute paths, no unknown fields), errors as
 * envelopes naming the folder.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contract } from '../../../shared/contract/index.js';
import { createClient, serve } from '../../../shared/rpc/runtime.js';
import { createMemoryTransportPair } from '../../../shared/rpc/transport.js';
import { Engine } from '../../../main/engine/engine.js';
import { JobManager } from '../../../main/engine/jobs/manager.js';
import { engineOptionsFrom } from '../../../main/engine/options.js';
import { createServices } from '../../../main/host/services.js';
import { tempDir } from '../../helpers/datasets.js';
import { sphereProject } from '../../helpers/mesh-project.js';

const engine = new Engine(engineOptionsFrom({}));
let client: ReturnType<typeof createClient<typeof contract.services, typeof contract.events>>;
let dir: string;
let project: string;

beforeAll(async () => {
  dir = await tempDir('web-export-service');
  project = (await sphereProject(path.join(dir, 'ball.argo'), { splats: 200, views: 4 })).file;
  const [hostSide, clientSide] = createMemoryTransportPair();
  const jobs = new JobManager({ engine, stateDir: path.join(dir, 'state'), emit: () => undefined });
  serve(contract, createServices(engine, jobs, { stateDir: path.join(dir, 'state'), saved: {}, env: process.env, requestRestart: () => {} }), hostSide, { caller: 'test' });
  client = createClient(contract, clientSide);
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
