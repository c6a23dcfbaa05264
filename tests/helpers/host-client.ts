/**
 * The engine host's services served over an in-memory transport, as the host serves them
 * (contract validation both ways), for service tests that need no events: the client a renderer
 * would have, on a job manager whose state lives in `stateDir`.
 */
import { contract } from '../../shared/contract/index.js';
import { createClient, serve } from '../../shared/rpc/runtime.js';
import { createMemoryTransportPair } from '../../shared/rpc/transport.js';
import type { Engine } from '../../main/engine/engine.js';
import { JobManager } from '../../main/engine/jobs/manager.js';
import { createServices } from '../../main/host/services.js';

export type HostClient = ReturnType<typeof createClient<typeof contract.services, typeof contract.events>>;

export function hostClient(engine: Engine, stateDir: string): HostClient {
  const [hostSide, clientSide] = createMemoryTransportPair();
  const jobs = new JobManager({ engine, stateDir, emit: () => undefined });
  serve(contract, createServices(engine, jobs, { stateDir, saved: {}, env: process.env, requestRestart: () => {} }), hostSide, { caller: 'test' });
  return createClient(contract, clientSide);
}
