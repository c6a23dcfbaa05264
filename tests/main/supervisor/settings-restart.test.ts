/**
 * settings.apply through a real engine host: the host saves the settings, exits asking for a
 * restart, and its supervisor starts a fresh host at once (no crash counted) that runs with them.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HostSupervisor, type HostState } from '../../../main/supervisor/supervisor.js';
import { builtFile } from '../../helpers/build.js';
import { tempDir } from '../../helpers/datasets.js';

let supervisor: HostSupervisor | undefined;
afterEach(async () => {
  await supervisor?.stop();
  supervisor = undefined;
});

describe('GPU settings restart the engine host', () => {
  it('saves, restarts without counting a crash, and the new host runs with the saved values', async () => {
    const state = await tempDir('settings-host');
    supervisor = new HostSupervisor({ hostScript: builtFile('host/index.mjs'), stdio: 'pipe', env: { ARGONAUT_STATE_DIR: state } });
    await supervisor.start();
    const before = (await supervisor.request('settings', 'get', {})) as { params: Record<string, unknown>; sources: Record<string, string> };
    expect(before.sources['system.kernelVariant']).toBe('default');
    const firstPid = supervisor.pid;
    const states: [HostState, string | undefined][] = [];
    supervisor.onState((s, reason) => states.push([s, reason]));

    await expect(supervisor.request('settings', 'apply', { params: { 'system.kernelVariant': 'portable', 'system.profile': true } })).resolves.toEqual({ restarting: true });
    await expect.poll(() => states.at(-1)?.[0], { timeout: 20_000 }).toBe('ready');
    expect(states[0]).toEqual(['restarting', 'restarting with new GPU settings']);
    expect(states.some(([s]) => s === 'crashed')).toBe(false);
    expect(supervisor.restartCount).toBe(0);
    expect(supervisor.pid).not.toBe(firstPid);
    expect(existsSync(path.join(state, 'settings.json'))).toBe(true);

    const after = (await supervisor.request('settings', 'get', {})) as { params: Record<string, unknown>; sources: Record<string, string> };
    expect(after.params).toMatchObject({ 'system.kernelVariant': 'portable', 'system.profile': true });
    expect(after.sources).toMatchObject({ 'system.kernelVariant': 'saved', 'system.profile': 'saved', 'system.backend': 'default' });
  });
});
