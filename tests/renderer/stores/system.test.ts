import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it } from 'vitest';
import { ArgonautError } from '../../../shared/rpc/errors.js';
import { useSystemStore } from '../../../renderer/src/stores/system.js';
import { FAKE_GPU, fakeEngine, settle } from '../helpers/engine.js';

beforeEach(() => setActivePinia(createPinia()));

describe('system store', () => {
  it('loads the GPU info and versions when attached, and reports ready', async () => {
    const system = useSystemStore();
    expect(system.hostState).toBe('connecting');
    await system.attach(fakeEngine().connection);
    expect(system.hostState).toBe('ready');
    expect(system.gpu).toEqual(FAKE_GPU);
    expect(system.version?.app).toBe('9.9.9');
    expect(system.adapterLabel).toBe('Test GPU 9000 · vulkan');
    expect(system.error).toBeUndefined();
  });

  it('follows the host event: restarts, reasons, and re-reads the GPU when ready again', async () => {
    let calls = 0;
    const engine = fakeEngine({ info: async () => (calls++, FAKE_GPU) });
    const system = useSystemStore();
    await system.attach(engine.connection);
    engine.server.emit('host', { state: 'restarting', restarts: 1, reason: 'exit code 75' });
    await settle();
    expect(system.hostState).toBe('restarting');
    expect(system.restarts).toBe(1);
    expect(system.hostReason).toBe('exit code 75');
    engine.server.emit('host', { state: 'ready', restarts: 1 });
    await settle();
    await settle();
    expect(system.hostState).toBe('ready');
    expect(calls).toBe(2);
  });

  it('keeps the error envelope when the engine refuses, and says disconnected when the connection drops', async () => {
    const engine = fakeEngine({
      info: async () => {
        throw new ArgonautError('no_gpu', 'no adapter: tried vulkan, opengl');
      },
    });
    const system = useSystemStore();
    await system.attach(engine.connection);
    expect(system.error).toEqual({ code: 'no_gpu', message: 'no adapter: tried vulkan, opengl' });
    expect(system.gpu).toBeUndefined();
    engine.disconnect();
    await settle();
    expect(system.hostState).toBe('disconnected');
    expect(system.error?.code).toBe('unavailable');
  });

  it('records a failed connection', () => {
    const system = useSystemStore();
    system.connectionFailed(new Error('cannot connect to ws://127.0.0.1:1/rpc'));
    expect(system.hostState).toBe('disconnected');
    expect(system.error?.message).toContain('cannot connect');
  });
});
