import { contract, type Contract } from '../../../shared/contract/index.js';
import { createClient, type Client } from '../../../shared/rpc/runtime.js';
import { ipcTransport, webSocketTransport } from './transports.js';

export type StudioClient = Client<Contract['services'], Contract['events']>;

/** Connects over Electron IPC when the preload is there, else over the browser-mode WebSocket. */
export async function connect(): Promise<StudioClient> {
  if (window.argonautIpc) return createClient(contract, ipcTransport(window.argonautIpc));
  const params = new URLSearchParams(location.search);
  const token = params.get('token') ?? undefined;
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/rpc`;
  return createClient(contract, await webSocketTransport(url, token));
}
