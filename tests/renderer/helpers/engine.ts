/**
 * A fake engine behind the real contract runtime: the renderer's stores talk to it through
 * `createClient` over an in-memory transport, exactly as they talk to the engine host, and the
 * test emits events through the real `serve` server.
 */
import { contract, type Services } from '../../../shared/contract/index.js';
import type { GpuInfo } from '../../../shared/contract/gpu.js';
import type { ServiceImpl } from '../../../shared/rpc/define.js';
import { createClient, serve } from '../../../shared/rpc/runtime.js';
import { createMemoryTransportPair } from '../../../shared/rpc/transport.js';
import type { Connection } from '../../../renderer/src/api/client.js';

export const FAKE_GPU: GpuInfo = {
  backend: 'vulkan',
  featureLevel: 'core',
  adapter: { name: 'Test GPU 9000', vendor: 'test', architecture: 'unit', description: 'a fake adapter', software: false },
  features: ['timestamp-query'],
  limits: { maxBufferSize: 2 ** 30 },
  subgroupMinSize: 32,
  subgroupMaxSize: 32,
  variant: 'subgroup',
  variantForced: false,
};

export function fakeEngine(overrides: Partial<ServiceImpl<Services>['system']> = {}, services: Partial<Omit<ServiceImpl<Services>, 'system'>> = {}) {
  const [clientSide, serverSide] = createMemoryTransportPair();
  // `system` is faked, plus whatever `services` the test brings; the rest answer "declared but not served here".
  const impl: Pick<ServiceImpl<Services>, 'system'> & Partial<ServiceImpl<Services>> = {
    ...services,
    system: {
      ping: async () => ({ pong: true as const, pid: 1, uptimeS: 1 }),
      info: async () => FAKE_GPU,
      version: async () => ({ app: '9.9.9', node: 'v20', platform: 'test-x64' }),
      ...overrides,
    },
  };
  const server = serve(contract, impl as ServiceImpl<Services>, serverSide, { caller: 'test' });
  const client = createClient(contract, clientSide);
  const connection: Connection = { client, onClose: (handler) => clientSide.onClose(handler) };
  return {
    connection,
    client,
    server,
    /** Drops the connection as a dying socket would. */
    disconnect: () => serverSide.close(),
  };
}

/** Lets queued microtasks (the memory transport delivers on them) and a macrotask run. */
export const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
