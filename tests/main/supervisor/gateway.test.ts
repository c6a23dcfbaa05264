import { describe, expect, it, vi } from 'vitest';
import { serveGateway, type HostLink } from '../../../main/supervisor/gateway.js';
import type { HostState } from '../../../main/supervisor/supervisor.js';
import { contract } from '../../../shared/contract/index.js';
import { ArgonautError } from '../../../shared/rpc/errors.js';
import { createClient } from '../../../shared/rpc/runtime.js';
import { createMemoryTransportPair, HandlerSet } from '../../../shared/rpc/transport.js';

function fakeHost() {
  const events = new HandlerSet<[string, unknown]>();
  const states = new HandlerSet<[HostState, string | undefined]>();
  const request = vi.fn(async (service: string, method: string) => {
    if (service === 'system' && method === 'ping') return { pong: true, pid: 1, uptimeS: 0 };
    throw new ArgonautError('internal', 'unexpected');
  });
  const host: HostLink = { request, onEvent: (h) => events.add(h), onState: (h) => states.add(h), restartCount: 3 };
  return { host, request, events, states };
}

describe('gateway (renderer -> main -> host)', () => {
  it('forwards valid requests to the host', async () => {
    const { host, request } = fakeHost();
    const [rendererSide, mainSide] = createMemoryTransportPair();
    serveGateway(mainSide, host, { caller: 'window-1' });
    const client = createClient(contract, rendererSide);
    await expect(client.api.system.ping({})).resolves.toMatchObject({ pong: true });
    expect(request).toHaveBeenCalledWith('system', 'ping', {});
  });

  it('refuses an invalid argument with a typed error that never reaches the host', async () => {
    const { host, request } = fakeHost();
    const [rendererSide, mainSide] = createMemoryTransportPair();
    serveGateway(mainSide, host, { caller: 'window-1' });
    const client = createClient(contract, rendererSide);
    await expect(client.request('system', 'ping', { injected: '../../etc/passwd' })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(client.request('system', 'ping', 'not an object')).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(client.request('fs', 'readFile', { path: '/etc/passwd' })).rejects.toMatchObject({ code: 'unknown_method' });
    expect(request).not.toHaveBeenCalled();
  });

  it('refuses unauthorized callers before validation', async () => {
    const { host, request } = fakeHost();
    const [rendererSide, mainSide] = createMemoryTransportPair();
    serveGateway(mainSide, host, {
      caller: 'x',
      authorize: () => {
        throw new ArgonautError('unauthorized', 'no');
      },
    });
    await expect(createClient(contract, rendererSide).api.system.ping({})).rejects.toMatchObject({ code: 'unauthorized' });
    expect(request).not.toHaveBeenCalled();
  });

  it('relays host events and host state to the renderer', async () => {
    const { host, events, states } = fakeHost();
    const [rendererSide, mainSide] = createMemoryTransportPair();
    serveGateway(mainSide, host, { caller: 'w' });
    const client = createClient(contract, rendererSide);
    const logs: string[] = [];
    const hostStates: unknown[] = [];
    client.on('log', (e) => logs.push(e.message));
    client.on('host', (e) => hostStates.push(e));
    events.emit('log', { level: 'info', message: 'hello', source: 't', timeMs: 0 });
    states.emit('crashed', 'killed by SIGKILL');
    await new Promise((r) => setTimeout(r, 0));
    expect(logs).toEqual(['hello']);
    expect(hostStates).toEqual([{ state: 'crashed', restarts: 3, reason: 'killed by SIGKILL' }]);
  });
});

describe('gateway local services', () => {
  it('serves local services (Electron\'s dialogs) after validation, without the host', async () => {
    const { host, request } = fakeHost();
    const [rendererSide, mainSide] = createMemoryTransportPair();
    const open = vi.fn(async () => ({ path: '/picked' }));
    serveGateway(mainSide, host, { caller: 'w', local: { dialog: { open, save: async () => ({ path: null }) } } });
    const client = createClient(contract, rendererSide);
    await expect(client.api.dialog.open({ purpose: 'splat' })).resolves.toEqual({ path: '/picked' });
    await expect(client.request('dialog', 'open', { purpose: 'splat', properties: ['multiSelections'] })).rejects.toMatchObject({ code: 'invalid_argument' });
    expect(open).toHaveBeenCalledTimes(1);
    expect(request).not.toHaveBeenCalled();
    await expect(client.api.system.ping({})).resolves.toMatchObject({ pong: true });
    expect(request).toHaveBeenCalledTimes(1);
  });
});
