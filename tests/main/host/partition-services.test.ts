/**
 * The engine host's partition services through the real contract runtime with a real engine: a
 * project's scene split into blocks and kept in its manifest, listed with its block-trained runs,
 * and bad settings refused by name.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../../main/engine/engine.js';
import { engineOptionsFrom } from '../../../main/engine/options.js';
import { importDataset } from '../../../main/engine/project/import.js';
import { Project } from '../../../main/engine/project/project.js';
import { cleanedTempDirs } from '../../helpers/datasets.js';
import { freshSeed, rng } from '../../helpers/random.js';
import { writeCityDataset } from '../engine/partition/city-dataset.js';
import { syntheticCity } from '../engine/partition/synthetic-city.js';
import { hostClient, type HostClient } from '../../helpers/host-client.js';

const temp = cleanedTempDirs(afterAll);
const engine = new Engine(engineOptionsFrom({}));
let client: HostClient;
let file: string;

beforeAll(async () => {
  const dir = await temp('partition-services');
  const seed = freshSeed();
  await writeCityDataset(syntheticCity(rng(seed), { cols: 4, rows: 2 }), path.join(dir, 'city'), rng(seed + 1));
  file = (await importDataset(path.join(dir, 'city'), path.join(dir, 'city.argo'))).project.file;
  client = hostClient(engine, path.join(dir, 'state'));
});
afterAll(() => engine.dispose());

describe('partition services', () => {
  it('splits a project into blocks, keeps the partition and lists it', async () => {
    const partition = await client.api.projects.partition({ project: file, blocks: 2, method: 'grid', overlap: 0.2 });
    expect(partition.blocks.map((b) => b.id)).toEqual(['block-01', 'block-02']);
    expect((await Project.open(file)).manifest.partitions.map((p) => p.id)).toEqual([partition.id]);
    const listed = await client.api.projects.partitions({ project: file });
    expect(listed.partitions.map((p) => p.id)).toEqual([partition.id]);
    expect(listed.runs).toEqual([]);
  });

  it('refuses an empty block by name and a request with both blocks and a block size', async () => {
    await expect(client.api.projects.partition({ project: file, blocks: 400, method: 'grid', overlap: 0 })).rejects.toMatchObject({ code: 'bad_input', message: expect.stringMatching(/holds no SfM points: ask for fewer blocks/) });
    await expect(client.api.projects.partition({ project: file, blocks: 2, blockSize: 3, method: 'grid', overlap: 0 })).rejects.toMatchObject({ code: 'invalid_argument' });
  });
});
