import { afterEach, describe, expect, it } from 'vitest';
import { HostSupervisor, type HostState } from '../../../main/supervisor/supervisor.js';
import { builtFile } from '../../helpers/build.js';
import { waitFor } from '../../helpers/wait.js';

let supervisor: HostSupervisor | undefined;
afterEach(async () => {
  await supervisor?.stop();
  supervisor = undefined;
});

/** Resolves once the supervisor's state is `state`. */
function untilState(sup: HostSupervisor, state: HostState): Promise<HostState> {
  return waitFor(() => (sup.state === state ? state : undefined), { timeoutMs: 20_000, what: `host state ${state}`, lastSeen: () => sup.state });
}

describe('engine host supervision', () => {
  it('starts the host as a plain Node process that answers the contract', async () => {
    supervisor = new HostSupervisor({ hostScript: builtFile('host/index.mjs'), stdio: 'pipe' });
    await supervisor.start();
    const pong = (await supervisor.request('system', 'ping', {})) as { pid: number };
    expect(pong.pid).toBe(supervisor.pid);
    expect(pong.pid).not.toBe(process.pid);
  });

  it('restarts the host after it is killed, fails the call in flight, and serves again', async () => {
    supervisor = new HostSupervisor({ hostScript: builtFile('host/index.mjs'), stdio: 'pipe', backoffMs: [50] });
    await supervisor.start();
    const firstPid = supervisor.pid!;
    const states: HostState[] = [];
    supervisor.onState((s) => states.push(s));
    const inFlight = supervisor.request('system', 'info', {}); // opens the GPU: slow enough to be in flight
    process.kill(firstPid, 'SIGKILL');
    // The call fails in the same exit handler that sets 'crashed', so 'ready' below is the restarted host.
    await expect(inFlight).rejects.toMatchObject({ code: 'host_crashed' });
    await untilState(supervisor, 'ready');
    expect(states).toEqual(['crashed', 'restarting', 'ready']);
    expect(supervisor.restartCount).toBe(1);
    expect(supervisor.pid).not.toBe(firstPid);
    await expect(supervisor.request('system', 'ping', {})).resolves.toMatchObject({ pong: true, pid: supervisor.pid });
  });

  it('gives up after too many crashes in a row', async () => {
    supervisor = new HostSupervisor({ hostScript: builtFile('host/index.mjs'), stdio: 'pipe', backoffMs: [10], maxRestarts: 2 });
    await supervisor.start();
    const killEachStart = supervisor.onState((s) => {
      if (s === 'ready') process.kill(supervisor!.pid!, 'SIGKILL');
    });
    process.kill(supervisor.pid!, 'SIGKILL');
    await untilState(supervisor, 'stopped');
    killEachStart();
    expect(supervisor.restartCount).toBe(2);
    await expect(supervisor.request('system', 'ping', {})).rejects.toMatchObject({ code: 'unavailable' });
  });
});
