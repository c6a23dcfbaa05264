import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it, vi } from 'vitest';
import type { Engine } from '../../../main/engine/engine.js';
import type { JobManager } from '../../../main/engine/jobs/manager.js';
import { createServices } from '../../../main/host/services.js';
import { describeSettings, readSavedSettings, settingsFile, writeSavedSettings } from '../../../main/host/settings.js';
import { tempDir } from '../../helpers/datasets.js';

const context = { signal: new AbortController().signal, caller: 'test' };

describe('engine host GPU settings', () => {
  it('saves, reads back, and says where each value comes from: saved > environment > default', async () => {
    const dir = await tempDir('settings');
    const warn = vi.fn();
    expect(await readSavedSettings(dir, warn)).toEqual({});
    await writeSavedSettings(dir, { 'system.backend': 'opengl', 'system.profile': true, 'system.adapter': undefined });
    const saved = await readSavedSettings(dir, warn);
    expect(saved).toEqual({ 'system.backend': 'opengl', 'system.profile': true });
    const described = describeSettings(saved, { ARGONAUT_BACKEND: 'vulkan', ARGONAUT_ADAPTER: 'llvmpipe' }, dir);
    expect(described.params).toEqual({ 'system.backend': 'opengl', 'system.adapter': 'llvmpipe', 'system.kernelVariant': 'auto', 'system.gpuMemoryBudget': '', 'system.profile': true });
    expect(described.sources).toEqual({ 'system.backend': 'saved', 'system.adapter': 'env', 'system.kernelVariant': 'default', 'system.gpuMemoryBudget': 'default', 'system.profile': 'saved' });
    expect(described.file).toBe(settingsFile(dir));
    expect(warn).not.toHaveBeenCalled();
  });

  it('ignores a settings file that does not parse, naming the file and the field', async () => {
    const dir = await tempDir('settings-bad');
    const warn = vi.fn();
    await writeFile(settingsFile(dir), JSON.stringify({ version: 1, params: { 'system.backend': 'directx9' } }));
    expect(await readSavedSettings(dir, warn)).toEqual({});
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(new RegExp(`${settingsFile(dir).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: params\\.system\\.backend: `)));
    await writeFile(settingsFile(dir), '{ not json');
    expect(await readSavedSettings(dir, warn)).toEqual({});
    expect(warn).toHaveBeenLastCalledWith(expect.stringContaining('not JSON'));
  });

  it('settings.apply saves and asks for a restart, and refuses while a job trains', async () => {
    const dir = await tempDir('settings-apply');
    const engine = { log: vi.fn() } as unknown as Engine;
    let states = [{ job: 'job-a', state: 'finished' }];
    const jobs = { status: () => states } as unknown as JobManager;
    const requestRestart = vi.fn();
    const services = createServices(engine, jobs, { stateDir: dir, saved: {}, env: {}, requestRestart });
    await expect(services.settings.apply({ params: { 'system.kernelVariant': 'portable' } }, context)).resolves.toEqual({ restarting: true });
    expect(requestRestart).toHaveBeenCalledTimes(1);
    expect(JSON.parse(await readFile(settingsFile(dir), 'utf8'))).toEqual({ version: 1, params: { 'system.kernelVariant': 'portable' } });

    states = [{ job: 'job-b', state: 'paused' }];
    await expect(services.settings.apply({ params: {} }, context)).rejects.toMatchObject({ code: 'busy', message: expect.stringContaining('job-b') });
    expect(requestRestart).toHaveBeenCalledTimes(1);
  });

  it('dialogs are the desktop shell\'s: the host answers unavailable', async () => {
    const services = createServices({} as Engine, {} as JobManager, { stateDir: '/nowhere', saved: {}, env: {}, requestRestart: () => {} });
    await expect(services.dialog.open({ purpose: 'dataset' }, context)).rejects.toMatchObject({ code: 'unavailable' });
  });
});
