import { contract, type Services } from '../../shared/contract/index.js';
import type { ServiceImpl } from '../../shared/rpc/define.js';
import type { RequestMessage } from '../../shared/rpc/messages.js';
import { forwardingImpl, serve } from '../../shared/rpc/runtime.js';
import type { Transport } from '../../shared/rpc/transport.js';
import type { HostState } from './supervisor.js';

/** What the gateway needs of the supervisor (a fake in tests). */
export interface HostLink {
  request(service: string, method: string, args: unknown): Promise<unknown>;
  onEvent(handler: (name: string, payload: unknown) => void): () => void;
  onState(handler: (state: HostState, reason: string | undefined) => void): () => void;
  readonly restartCount: number;
}

export interface GatewayOptions {
  caller: string;
  /** Throws ArgonautError('unauthorized') to refuse a request before validation. */
  authorize?: (request: RequestMessage) => void;
  log?: (message: string) => void;
  /**
   * Services this side serves itself instead of forwarding them to the host (Electron main's
   * native dialogs). Requests are validated against the contract first, like every other.
   */
  local?: Partial<ServiceImpl<Services>>;
}

/**
 * Serves the contract to one renderer connection (an Electron window or a browser-mode
 * WebSocket) by validating each request against its schema and forwarding it to the engine
 * host; relays the host's events and the host's own state to the renderer.
 */
export function serveGateway(transport: Transport, supervisor: HostLink, options: GatewayOptions): () => void {
  const impl = { ...forwardingImpl(contract, () => supervisor), ...options.local } as ServiceImpl<Services>;
  const server = serve(contract, impl, transport, {
    caller: options.caller,
    authorize: options.authorize,
    onInternalError: (error, request) => options.log?.(`gateway: ${request.service}.${request.method} failed: ${String(error)}`),
  });
  const offEvents = supervisor.onEvent((name, payload) => {
    try {
      transport.send({ kind: 'evt', name, payload });
    } catch {
      // connection gone; the close handler cleans up
    }
  });
  const offState = supervisor.onState((state, reason) =>
    server.emit('host', { state, restarts: supervisor.restartCount, ...(reason ? { reason } : {}) }),
  );
  const cleanup = () => {
    offEvents();
    offState();
    server.close();
  };
  transport.onClose(cleanup);
  return cleanup;
}
