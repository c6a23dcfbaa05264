import type { RpcMessage } from './messages.js';

/**
 * One interface, several implementations: Electron IPC (through the preload), WebSocket
 * (browser mode, loopback only, token), Node child-process IPC (main <-> engine host) and
 * in-memory (unit tests). The RPC runtime only ever sees this.
 */
export interface Transport {
  send(message: RpcMessage): void;
  /** Registers a handler; returns a function that removes it. */
  onMessage(handler: (message: RpcMessage) => void): () => void;
  /** Called once when the other side goes away (process exit, socket close). */
  onClose(handler: (reason: string) => void): () => void;
  close(): void;
}

/** Small helper that transports use to manage their handler lists. */
export class HandlerSet<T extends unknown[]> {
  private readonly handlers = new Set<(...args: T) => void>();

  add(handler: (...args: T) => void): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  emit(...args: T): void {
    for (const handler of [...this.handlers]) handler(...args);
  }

  get size(): number {
    return this.handlers.size;
  }
}

/**
 * Two connected in-memory transports. Messages are delivered asynchronously (a microtask later),
 * like every real transport, so tests exercise the same ordering.
 */
export function createMemoryTransportPair(): [Transport, Transport] {
  const make = () => ({ messages: new HandlerSet<[RpcMessage]>(), closes: new HandlerSet<[string]>(), closed: false });
  const a = make();
  const b = make();
  const side = (self: ReturnType<typeof make>, peer: ReturnType<typeof make>): Transport => ({
    send(message) {
      if (self.closed) throw new Error('transport is closed');
      queueMicrotask(() => {
        if (!peer.closed) peer.messages.emit(message);
      });
    },
    onMessage: (handler) => self.messages.add(handler),
    onClose: (handler) => self.closes.add(handler),
    close() {
      if (self.closed) return;
      self.closed = true;
      peer.closed = true;
      queueMicrotask(() => {
        self.closes.emit('closed');
        peer.closes.emit('peer closed');
      });
    },
  });
  return [side(a, b), side(b, a)];
}
