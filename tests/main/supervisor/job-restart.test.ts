/**
 * A training job started through the engine host continues by itself after the host dies: the
 * host is SIGKILLed mid-job (what a GPU device loss or a driver crash does to it), the supervisor
 * starts a new one, and the new host resumes the job from its newest checkpoint under the same id.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { importDataset } from '../../../main/engine/project/import.js';
import { HostSupervisor } from '../../../main/supervisor/supervisor.js';
import { builtFile } from '../../helpers/build.js';
import { tempDir } from '../../helpers/datasets.js';
import { tinyDataset } from '../../helpers/projects.js';
import { waitForEvent } from '../../helpers/wait.js';

let supervisor: HostSupervisor | undefined;
afterEach(async () => {
  await supervisor?.stop();
  supervisor = undefined;
});

describe('jobs survive an engine host crash', () => {
  it('resumes a job from its newest checkpoint after the host is killed, and finishes it', async () => {
    const ds = await tinyDataset();
    const dir = await tempDir('restart');
    const file = path.join(dir, 'p.argo');
    await importDataset(ds.root, file, { params: { 'train.iterations': 500, 'train.checkpointEvery': 40 } });
    supervisor = new HostSupervisor({ hostScript: builtFile('host/index.mjs'), stdio: 'pipe', backoffMs: [50], env: { ARGONAUT_STATE_DIR: path.join(dir, 'state') } });
    const events: { name: string; payload: Record<string, unknown> }[] = [];
    supervisor.onEvent((name, payload) => events.push({ name, payload: payload as Record<string, unknown> }));
    const eventPayload = async (match: (e: (typeof events)[number]) => boolean) => (await waitForEvent(events, match, { timeoutMs: 120_000 })).payload;
    await supervisor.start();
    const { job } = (await supervisor.request('train', 'start', { source: { kind: 'project', path: file }, params: {} })) as { job: string };
    await eventPayload((e) => e.name === 'log' && String(e.payload.message).includes('checkpoint at step 80'));
    const firstPid = supervisor.pid!;
    process.kill(firstPid, 'SIGKILL');

    const resumed = await eventPayload((e) => e.name === 'job' && e.payload.job === job && e.payload.state === 'running' && String(e.payload.reason ?? '').startsWith('continues run-001 from step'));
    expect(supervisor.pid).not.toBe(firstPid);
    expect(supervisor.restartCount).toBe(1);
    const from = resumed.step as number;
    expect(from).toBeGreaterThanOrEqual(80);
    expect(from % 40).toBe(0);
    const finished = await eventPayload((e) => e.name === 'job' && e.payload.job === job && e.payload.state === 'finished');
    expect(finished).toMatchObject({ step: 500, total: 500, run: 'run-001' });
    const status = (await supervisor.request('train', 'status', {})) as { jobs: { job: string; state: string; step: number }[] };
    expect(status.jobs.find((j) => j.job === job)).toMatchObject({ state: 'finished', step: 500 });
    const run = JSON.parse(readFileSync(file, 'utf8')).runs[0];
    expect(run).toMatchObject({ status: 'finished', step: 500, resumes: [from] });
    // The restarted host served the GUI's calls as before.
    expect(await supervisor.request('projects', 'open', { path: file })).toMatchObject({ path: file, runs: [{ id: 'run-001', status: 'finished' }] });
  }, 240_000);
});
