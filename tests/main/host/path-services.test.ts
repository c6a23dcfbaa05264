/**
 * The engine host's camera-path services through the real contract runtime with a real engine:
 * saved paths in the project's manifest, and video renders as cancellable tasks with events.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contract } from '../../../shared/contract/index.js';
import type { TaskStatus } from '../../../shared/contract/tasks.js';
import { createClient, serve } from '../../../shared/rpc/runtime.js';
import { createMemoryTransportPair } from '../../../shared/rpc/transport.js';
import { orbitFromPoints } from '../../../shared/scene/scene-orbit.js';
import { orbitPath } from '../../../shared/scene/camera-path-sample.js';
import { Engine } from '../../../main/engine/engine.js';
import { writePly } from '../../../main/engine/formats/ply.js';
import { JobManager } from '../../../main/engine/jobs/manager.js';
import { TaskManager } from '../../../main/engine/jobs/tasks.js';
import { engineOptionsFrom } from '../../../main/engine/options.js';
import { createSplatProject } from '../../../main/engine/project/import.js';
import { torusKnotSplats } from '../../../main/engine/train/sample-scene.js';
import { createServices } from '../../../main/host/services.js';
import { tempDir } from '../../helpers/datasets.js';
import { waitFor } from '../../helpers/wait.js';

let dir: string;
let file: string;
const engine = new Engine(engineOptionsFrom({}));
const events: TaskStatus[] = [];
let client: ReturnType<typeof createClient<typeof contract.services, typeof contract.events>>;
const splats = torusKnotSplats(2000, 7);
const orbit = orbitPath(orbitFromPoints(splats.means, { duration: 1 }));

beforeAll(async () => {
  dir = await tempDir('path-services');
  process.env.ARGONAUT_STATE_DIR = path.join(dir, 'state');
  const ply = path.join(dir, 'knot.ply');
  await writePly(ply, splats);
  file = (await createSplatProject(ply, path.join(dir, 'knot ü.argo'))).file;
  const [hostSide, clientSide] = createMemoryTransportPair();
  const emit: { to?: ReturnType<typeof serve> } = {};
  const jobs = new JobManager({ engine, stateDir: path.join(dir, 'state'), emit: (name, payload) => emit.to?.emit(name, payload as never) });
  const tasks = new TaskManager({ emit: (status) => emit.to?.emit('task', status), progressIntervalMs: 0 });
  emit.to = serve(contract, createServices(engine, jobs, { stateDir: path.join(dir, 'state'), saved: {}, env: process.env, requestRestart: () => {} }, tasks), hostSide, { caller: 'test' });
  client = createClient(contract, clientSide);
  client.on('task', (e) => events.push(e));
});
afterAll(async () => {
  delete process.env.ARGONAUT_STATE_DIR;
  await engine.dispose();
});

function settled(task: string): Promise<TaskStatus> {
  const last = () => events.filter((e) => e.task === task).at(-1);
  return waitFor(() => {
    const status = last();
    return status && status.state !== 'running' ? status : undefined;
  }, { timeoutMs: 60_000, what: `${task} to settle`, lastSeen: () => JSON.stringify(last()) });
}

describe('paths.list, save, delete', () => {
  it('keep paths in the manifest by id: saved again replaces in place, deleted is gone, unknown ids and bad paths are refused', async () => {
    expect(await client.api.paths.list({ project: file })).toEqual({ paths: [] });
    const second = { ...orbit, id: 'second', name: 'Second' };
    await client.api.paths.save({ project: file, path: orbit });
    expect((await client.api.paths.save({ project: file, path: second })).paths.map((p) => p.id)).toEqual(['orbit', 'second']);
    const renamed = { ...orbit, name: 'Renamed orbit' };
    expect((await client.api.paths.save({ project: file, path: renamed })).paths.map((p) => p.name)).toEqual(['Renamed orbit', 'Second']);
    const onDisk = JSON.parse(readFileSync(file, 'utf8'));
    expect(onDisk.cameraPaths.map((p: { id: string }) => p.id)).toEqual(['orbit', 'second']);
    expect(onDisk.cameraPaths[0]).toEqual(renamed);
    expect((await client.api.paths.delete({ project: file, id: 'second' })).paths.map((p) => p.id)).toEqual(['orbit']);
    await expect(client.api.paths.delete({ project: file, id: 'second' })).rejects.toMatchObject({ code: 'not_found', message: expect.stringMatching(/knot ü\.argo: no saved camera path 'second' \(saved: orbit\)/) });
    const backwards = { ...orbit, keyframes: [orbit.keyframes[1], orbit.keyframes[0]] };
    await expect(client.api.paths.save({ project: file, path: backwards })).rejects.toMatchObject({ code: 'invalid_argument', message: expect.stringMatching(/keyframe times must increase/) });
    expect(JSON.parse(readFileSync(file, 'utf8')).cameraPaths).toEqual([renamed]);
  });
});

describe('paths.render', () => {
  it('renders a video task: load and render stages, the result, and an H.264 file ffprobe reads', async () => {
    const out = path.join(dir, 'orbit.mp4');
    const { task } = await client.api.paths.render({ project: file, path: orbit, out, settings: { width: 48, height: 32, fps: 10 } });
    const last = await settled(task);
    expect(last.error).toBeUndefined();
    expect(last).toMatchObject({ kind: 'video', state: 'finished', result: { kind: 'video', path: out, pathId: 'orbit', frames: 10, width: 48, height: 32, fps: 10, durationS: 1 } });
    const stages = [...new Set(events.filter((e) => e.task === task && e.stage).map((e) => e.stage))];
    expect(stages).toEqual(['load', 'render']);
    expect(events.filter((e) => e.task === task && e.stage === 'render').at(-1)!.fraction).toBe(1);
    const probe = execFileSync('ffprobe', ['-v', 'error', '-count_frames', '-show_entries', 'stream=codec_name,nb_read_frames,width,height', '-of', 'csv=p=0', out], { encoding: 'utf8' }).trim();
    expect(probe).toBe('h264,48,32,10');
  }, 60_000);

  it('cancelled: the task ends cancelled and leaves no file; bad targets are the call\'s error', async () => {
    const out = path.join(dir, 'cancelled.mp4');
    const long = { ...orbit, duration: 60, keyframes: orbit.keyframes.map((k) => ({ ...k, time: k.time * 60 })) };
    const { task } = await client.api.paths.render({ project: file, path: long, out, settings: { width: 48, height: 32, fps: 30 } });
    await waitFor(() => events.find((e) => e.task === task && e.stage === 'render'), { timeoutMs: 30_000, what: 'the first frame' });
    await client.api.tasks.cancel({ task });
    expect((await settled(task)).state).toBe('cancelled');
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).filter((n) => n.includes('cancelled'))).toEqual([]);
    await expect(client.api.paths.render({ project: file, path: orbit, out: path.join(dir, 'none', 'x.mp4'), settings: { width: 48, height: 32, fps: 10 } }))
      .rejects.toMatchObject({ code: 'bad_input', message: expect.stringMatching(/none: the folder for the video does not exist/) });
    await expect(client.api.paths.render({ project: file, path: orbit, out: path.join(dir, 'odd.mp4'), settings: { width: 47, height: 32, fps: 10 } }))
      .rejects.toMatchObject({ code: 'bad_input', message: expect.stringMatching(/odd\.mp4: H\.264 in yuv420p needs an even width and height/) });
  }, 60_000);
});
