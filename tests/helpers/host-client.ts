/**
 * The engine host's services served over an in-memory transport, as the host serves them
 * (contract validation both ways): the client a renderer would have, on a job manager whose state
 * lives in `stateDir`. The job manager's events and the engine's log go out as the host sends
 * them (main/host/index.ts), so `client.on('job' | 'block' | ...)` sees what a renderer would.
 */
import { contract } from '../../shared/contract/index.js';
import { createClient, serve } from '../../shared/rpc/runtime.js';
import { createMemoryTransportPair } from '../../shared/rpc/transport.js';
import type { Engine } from '../../main/engine/engine.js';
import { JobManager } from '../../main/engine/jobs/manager.js';
import { createServices } from '../../main/host/services.js';

export type HostClient = ReturnType<typeof createClient<typeof contract.services, typeof contract.events>>;

export function hostSession(engine: Engine, stateDir: string): { client: HostClient; jobs: JobManager; close: () => void } {
  const [hostSide, clientSide] = createMemoryTransportPair();
  const jobs = new JobManager({ engine, stateDir, emit: (name, payload) => server.emit(name, payload as never) });
  const server = serve(contract, createServices(engine, jobs, { stateDir, saved: {}, env: process.env, requestRestart: () => {} }), hostSide, { caller: 'test' });
  const offLogs = engine.logs.add((entry) => server.emit('log', entry));
  return { client: createClient(contract, clientSide), jobs, close: offLogs };
}

export function hostClient(engine: Engine, stateDir: string): HostClient {
  return hostSession(engine, stateDir).client;
}
