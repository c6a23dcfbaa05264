import type { WebSocket } from 'ws';
import { decodeMessage, encodeMessage } from '../../shared/rpc/codec.js';
import { isRpcMessage, type RpcMessage } from '../../shared/rpc/messages.js';
import { HandlerSet, type Transport } from '../../shared/rpc/transport.js';

/** Server side of the browser-mode WebSocket. Malformed frames close the connection. */
export function serverSocketTransport(socket: WebSocket, maxFrameBytes = 64 * 2 ** 20): Transport {
  const messages = new HandlerSet<[RpcMessage]>();
  const closes = new HandlerSet<[string]>();
  socket.on('message', (data, isBinary) => {
    try {
      const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
      if (bytes.length > maxFrameBytes) throw new Error('frame too large');
      const message = decodeMessage(isBinary ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : bytes.toString('utf8'));
      if (!isRpcMessage(message)) throw new Error('not an RPC message');
      messages.emit(message);
    } catch {
      socket.close(1007, 'malformed message');
    }
  });
  socket.on('close', (code, reason) => closes.emit(`socket closed (${code}${reason.length ? `: ${reason.toString()}` : ''})`));
  return {
    send(message) {
      if (socket.readyState !== socket.OPEN) throw new Error('socket is not open');
      socket.send(encodeMessage(message));
    },
    onMessage: (handler) => messages.add(handler),
    onClose: (handler) => closes.add(handler),
    close: () => socket.close(1000, 'closed'),
  };
}
