import { contract, type Contract } from '../../../shared/contract/index.js';
import { createClient, type Client } from '../../../shared/rpc/runtime.js';
import type { Transport } from '../../../shared/rpc/transport.js';
import { ipcTransport, webSocketTransport } from './transports.js';

export type StudioClient = Client<Contract['services'], Contract['events']>;

/** A typed client and a way to hear that its connection went away. */
export interface Connection {
  client: StudioClient;
  /** Called once when the transport closes (browser tab's socket dropped, server stopped). */
  onClose(handler: (reason: string) => void): () => void;
}

function connection(transport: Transport): Connection {
  return { client: createClient(contract, transport), onClose: (handler) => transport.onClose(handler) };
}

/** Connects over Electron IPC when the preload is there, else over the browser-mode WebSocket. */
export async function connect(): Promise<Connection> {
  if (window.argonautIpc) return connection(ipcTransport(window.argonautIpc));
  const params = new URLSearchParams(location.search);
  const token = params.get('token') ?? undefined;
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/rpc`;
  return connection(await webSocketTransport(url, token));
}
