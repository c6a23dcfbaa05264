import { decodeMessage, encodeMessage } from '../../../shared/rpc/codec.js';
import { isRpcMessage, type RpcMessage } from '../../../shared/rpc/messages.js';
import { HandlerSet, type Transport } from '../../../shared/rpc/transport.js';

/** Electron: the preload's bridge. */
export function ipcTransport(ipc: ArgonautIpc): Transport {
  const messages = new HandlerSet<[RpcMessage]>();
  const closes = new HandlerSet<[string]>();
  const off = ipc.onMessage((message) => {
    if (isRpcMessage(message)) messages.emit(message);
  });
  return {
    send: (message) => ipc.send(message),
    onMessage: (handler) => messages.add(handler),
    onClose: (handler) => closes.add(handler),
    close() {
      off();
      closes.emit('closed');
    },
  };
}

/**
 * Browser mode: WebSocket to the page's own origin (/rpc). The session cookie set when the
 * tokened URL was opened authenticates it; the token also rides as a subprotocol.
 */
export function webSocketTransport(url: string, token: string | undefined): Promise<Transport> {
  const socket = new WebSocket(url, token ? ['argonaut', `token.${token}`] : ['argonaut']);
  socket.binaryType = 'arraybuffer';
  const messages = new HandlerSet<[RpcMessage]>();
  const closes = new HandlerSet<[string]>();
  const queue: RpcMessage[] = [];
  socket.addEventListener('message', (event: MessageEvent<string | ArrayBuffer>) => {
    try {
      const message = decodeMessage(event.data);
      if (isRpcMessage(message)) messages.emit(message);
    } catch (error) {
      console.error('argonaut: dropped a malformed message', error);
    }
  });
  socket.addEventListener('close', (event) => closes.emit(`connection closed (${event.code})`));
  const transport: Transport = {
    send(message) {
      if (socket.readyState === WebSocket.CONNECTING) queue.push(message);
      else if (socket.readyState === WebSocket.OPEN) socket.send(encodeMessage(message));
      else throw new Error('connection closed');
    },
    onMessage: (handler) => messages.add(handler),
    onClose: (handler) => closes.add(handler),
    close: () => socket.close(1000),
  };
  return new Promise((resolve, reject) => {
    socket.addEventListener('open', () => {
      for (const m of queue.splice(0)) socket.send(encodeMessage(m));
      resolve(transport);
    });
    socket.addEventListener('error', () => reject(new Error(`cannot connect to ${url}`)));
  });
}
