/**
 * The engine host's project, training and export services through the real contract runtime
 * (validation, errors as envelopes, typed arrays as bytes), with a real engine on this machine's GPU.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contract } from '../../../shared/contract/index.js';
import { decodeMessage, encodeMessage } from '../../../shared/rpc/codec.js';
import { createClient, serve } from '../../../shared/rpc/runtime.js';
import { createMemoryTransportPair } from '../../../shared/rpc/transport.js';
import { Engine } from '../../../main/engine/engine.js';
import { parseSpz } from '../../../main/engine/formats/spz.js';
import { JobManager } from '../../../main/engine/jobs/manager.js';
import { engineOptionsFrom } from '../../../main/engine/options.js';
import { createServices } from '../../../main/host/services.js';
import { tempDir } from '../../helpers/datasets.js';
import { tinyDataset } from '../../helpers/projects.js';

let dir: string;
let dataset: string;
const engine = new Engine(engineOptionsFrom({}));
const events: { name: string; payload: Record<string, unknown> }[] = [];
let client: ReturnType<typeof createClient<typeof contract.services, typeof contract.events>>;

beforeAll(async () => {
  dir = await tempDir('services');
  process.env.ARGONAUT_STATE_DIR = path.join(dir, 'state');
  dataset = (await tinyDataset()).root;
  const [hostSide, clientSide] = createMemoryTransportPair();
  // The manager emits through the server, which needs the manager's services: bound late.
  const emit: { to?: ReturnType<typeof serve> } = {};
  const jobs = new JobManager({ engine, stateDir: path.join(dir, 'state'), emit: (name, payload) => emit.to?.emit(name, payload as never) });
  emit.to = serve(contract, createServices(engine, jobs, { stateDir: path.join(dir, 'state'), saved: {}, env: process.env, requestRestart: () => {} }), hostSide, { caller: 'test' });
  client = createClient(contract, clientSide);
  client.on('job', (p) => events.push({ name: 'job', payload: p }));
});
afterAll(async () => {
  delete process.env.ARGONAUT_STATE_DIR;
  await engine.dispose();
});

describe('projects, train and export services', () => {
  it('projects.create from a dataset folder: the default name comes from the folder and never overwrites', async () => {
    const first = await client.api.projects.create({ source: { kind: 'dataset', dir: dataset, format: 'colmap' }, dir });
    const base = path.basename(dataset);
    expect(first).toMatchObject({ path: path.join(dir, `${base}.argo`), name: base, source: { kind: 'dataset' }, dataset: { kind: 'folder', format: 'colmap', views: 6, train: 5, test: 1 }, runs: [] });
    const second = await client.api.projects.create({ source: { kind: 'dataset', dir: dataset }, dir });
    expect(second.path).toBe(path.join(dir, `${base}-2.argo`));
    await expect(client.api.projects.create({ source: { kind: 'dataset', dir: dataset }, dir, name: base })).rejects.toMatchObject({ code: 'bad_input', message: expect.stringContaining('already exists') });
  });

  it('projects.create from a dataset with a mask folder: checked, kept as train.masks, each mask checked by name', async () => {
    const { mkdir, writeFile, rm } = await import('node:fs/promises');
    const { encodePng } = await import('../../helpers/images.js');
    const masks = path.join(dir, 'tiny masks');
    await mkdir(masks, { recursive: true });
    const samples = Array.from({ length: 32 * 24 }, (_, i) => (i % 5 ? 255 : 0));
    for (let i = 0; i < 6; i++) await writeFile(path.join(masks, `img_${i}.png`), encodePng({ width: 32, height: 24, colorType: 0, depth: 8, samples }));
    const created = await client.api.projects.create({ source: { kind: 'dataset', dir: dataset, masks }, dir, name: 'masked' });
    const { Project } = await import('../../../main/engine/project/project.js');
    expect((await Project.open(created.path)).manifest.params['train.masks']).toBe(masks);
    await rm(path.join(masks, 'img_4.png'));
    await expect(client.api.projects.create({ source: { kind: 'dataset', dir: dataset, masks }, dir, name: 'masked-2' })).rejects.toMatchObject({ code: 'bad_input', message: expect.stringMatching(/tiny masks: the mask folder has no mask for 1 of 6 images: img_4.png/) });
    await expect(client.api.projects.create({ source: { kind: 'dataset', dir: dataset, masks: path.join(dir, 'no masks') }, dir, name: 'masked-3' })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('projects.create from the sample scene and from a splat PLY', async () => {
    const sample = await client.api.projects.create({ source: { kind: 'sample' }, dir, name: 'Knot' });
    expect(sample).toMatchObject({ name: 'Knot', dataset: { kind: 'sample' }, source: { kind: 'sample' } });
    const scene = await client.api.projects.scene({ project: sample.path });
    expect(scene.cameras).toHaveLength(40);
    expect(scene.points.count).toBe(0);
  });

  it('checks every path from the renderer: absolute, existing, the right kind, with the path named', async () => {
    const missing = path.join(dir, 'nothing.argo');
    const cases: [() => Promise<unknown>, string, RegExp][] = [
      [() => client.api.projects.open({ path: 'relative.argo' }), 'bad_input', /relative\.argo: expected an absolute path/],
      [() => client.api.projects.open({ path: missing }), 'not_found', /nothing\.argo: project file not found/],
      [() => client.api.projects.open({ path: dataset }), 'bad_input', /not a project file \(expected a name ending in \.argo\)/],
      [() => client.api.projects.create({ source: { kind: 'dataset', dir: path.join(dataset, 'images', 'img_0.png') } }), 'bad_input', /img_0\.png: is a file; expected a dataset folder/],
      [() => client.api.projects.create({ source: { kind: 'dataset', dir: 'data' } }), 'bad_input', /data: expected an absolute path/],
      [() => client.api.projects.create({ source: { kind: 'splat', path: dataset } }), 'bad_input', /is a folder; expected a splat file \(\.ply, \.splat, \.spz, \.sog, \.glb\)/],
      [() => client.api.projects.create({ source: { kind: 'sample' }, dir: missing }), 'not_found', /folder not found/],
      [() => client.api.projects.scene({ project: missing }), 'not_found', /project file not found/],
      [() => client.api.train.start({ source: { kind: 'dataset', path: path.join(dir, 'gone') }, params: {} }), 'not_found', /gone: dataset folder not found/],
      [() => client.api.export.splats({ project: missing, format: 'ply', path: path.join(dir, 'x.ply') }), 'not_found', /project file not found/],
    ];
    for (const [call, code, message] of cases) await expect(call()).rejects.toMatchObject({ code, message: expect.stringMatching(message) });
    // Schema errors never reach the host's code.
    await expect(client.api.export.splats({ format: 'ply', path: '/x.ply' } as never)).rejects.toMatchObject({ code: 'invalid_argument', message: expect.stringContaining('give exactly one of project and job') });
    await expect(client.api.projects.image({ project: missing, camera: -1 })).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('scene and image: cameras and SfM points as typed arrays (bytes on the wire), the training photo as PNG', async () => {
    const file = path.join(dir, `${path.basename(dataset)}.argo`);
    const scene = await client.api.projects.scene({ project: file });
    expect(scene.cameras).toHaveLength(6);
    expect(scene.views[0]).toEqual({ name: 'img_0.png', split: 'test' });
    expect(scene.points.positions).toBeInstanceOf(Float32Array);
    expect(scene.points.colors).toBeInstanceOf(Uint8Array);
    expect(scene.points.count).toBe(5);
    // Over the WebSocket codec, the arrays travel as raw bytes and come back typed.
    const wire = encodeMessage({ kind: 'res', id: 1, ok: true, result: scene });
    expect(wire).toBeInstanceOf(Uint8Array);
    const back = (decodeMessage(wire) as { result: typeof scene }).result;
    expect(back.points.positions).toEqual(scene.points.positions);
    const image = await client.api.projects.image({ project: file, camera: 2 });
    const png = PNG.sync.read(Buffer.from(image.data));
    expect([image.mime, image.width, image.height, png.width, png.height]).toEqual(['image/png', 32, 24, 32, 24]);
    const small = await client.api.projects.image({ project: file, camera: 2, maxSize: 16 });
    expect([small.width, small.height]).toEqual([16, 12]);
    await expect(client.api.projects.image({ project: file, camera: 6 })).rejects.toMatchObject({ code: 'bad_input', message: expect.stringContaining('view 6 does not exist') });
  });

  it('train.start on a project, then export.splats by job and by project; status lists the job', async () => {
    const file = path.join(dir, `${path.basename(dataset)}-2.argo`);
    const { job } = await client.api.train.start({ source: { kind: 'project', path: file }, params: { 'train.iterations': 30, 'system.backend': 'auto' } });
    await expect.poll(() => events.some((e) => e.payload.job === job && e.payload.state === 'finished'), { timeout: 60_000 }).toBe(true);
    expect((await client.api.train.status()).jobs[0]).toMatchObject({ job, state: 'finished', step: 30, total: 30, project: file, run: 'run-001' });
    const byJob = await client.api.export.splats({ job, format: 'spz', path: path.join(dir, 'by job.spz') });
    expect(byJob).toMatchObject({ format: 'spz', splats: 5 });
    expect(parseSpz(readFileSync(byJob.path), byJob.path).count).toBe(5);
    const byProject = await client.api.export.splats({ project: file, format: 'splat', path: path.join(dir, 'by project.splat') });
    expect(byProject.bytes).toBe(5 * 32);
    await expect(client.api.export.splats({ project: file, format: 'ply', path: 'relative.ply' })).rejects.toMatchObject({ code: 'bad_input', message: expect.stringContaining('expected an absolute path') });
    await expect(client.api.train.pause({ job: 'job-unknown' })).rejects.toMatchObject({ code: 'not_found' });
    expect((await client.api.projects.open({ path: file })).splats).toBe(5);
  }, 120_000);

  it('projects.recent lists what was created or opened, newest first, and forgets deleted projects', async () => {
    const recent = (await client.api.projects.recent()).projects.map((p) => path.basename(p.path));
    const base = path.basename(dataset);
    expect(recent[0]).toBe(`${base}-2.argo`); // opened last
    expect(recent).toEqual(expect.arrayContaining(['Knot.argo', `${base}.argo`]));
    rmSync(path.join(dir, 'Knot.argo'));
    expect((await client.api.projects.recent()).projects.map((p) => path.basename(p.path))).not.toContain('Knot.argo');
    expect(JSON.parse(readFileSync(path.join(dir, 'state', 'recent.json'), 'utf8')).projects.some((p: { path: string }) => p.path.endsWith('Knot.argo'))).toBe(false);
    expect(existsSync(path.join(dir, 'state', 'recent.json'))).toBe(true);
  });
});
