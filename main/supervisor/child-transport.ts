import type { ChildProcess } from 'node:child_process';
import { isRpcMessage, type RpcMessage } from '../../shared/rpc/messages.js';
import { HandlerSet, type Transport } from '../../shared/rpc/transport.js';

/**
 * Transport over Node's child-process IPC channel with `serialization: 'advanced'`
 * (structured clone: ArrayBuffers and typed arrays cross without JSON). The parent side wraps
 * a ChildProcess; the child side wraps `process`.
 */
export function childProcessTransport(child: ChildProcess): Transport {
  return processLikeTransport(child, (handler) => child.once('exit', (code, signal) => handler(signal ? `signal ${signal}` : `exit code ${code}`)));
}

export function parentTransport(): Transport {
  if (!process.send) throw new Error('parentTransport: this process has no IPC channel (start it with fork/stdio "ipc")');
  return processLikeTransport(process, (handler) => process.once('disconnect', () => handler('parent disconnected')));
}

interface ProcessLike {
  send?(message: unknown, callback?: (error: Error | null) => void): boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  off(event: 'message', listener: (message: unknown) => void): unknown;
  connected?: boolean;
  disconnect?(): void;
}

function processLikeTransport(target: ProcessLike, onEnd: (handler: (reason: string) => void) => void): Transport {
  const messages = new HandlerSet<[RpcMessage]>();
  const closes = new HandlerSet<[string]>();
  let closed = false;
  const listener = (message: unknown) => {
    if (isRpcMessage(message)) messages.emit(message);
  };
  target.on('message', listener);
  const finish = (reason: string) => {
    if (closed) return;
    closed = true;
    target.off('message', listener);
    closes.emit(reason);
  };
  onEnd(finish);
  return {
    send(message) {
      if (closed || !target.send || target.connected === false) throw new Error('IPC channel closed');
      target.send(message, (error) => {
        if (error) finish(`send failed: ${error.message}`);
      });
    },
    onMessage: (handler) => messages.add(handler),
    onClose: (handler) => closes.add(handler),
    close() {
      finish('closed');
    },
  };
}
