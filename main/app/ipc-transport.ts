import { ArgonautError } from '../../shared/rpc/errors.js';
import { isRpcMessage, type RpcMessage } from '../../shared/rpc/messages.js';
import { HandlerSet, type Transport } from '../../shared/rpc/transport.js';

export const RPC_CHANNEL = 'argonaut:rpc';

/** The slice of Electron's API this module needs (stubbed in tests). */
export interface IpcMainLike {
  on(channel: string, listener: (event: IpcEventLike, message: unknown) => void): unknown;
  removeListener(channel: string, listener: (event: IpcEventLike, message: unknown) => void): unknown;
}
export interface WebContentsLike {
  id: number;
  send(channel: string, message: unknown): void;
  isDestroyed(): boolean;
  once(event: 'destroyed', listener: () => void): unknown;
}
export interface IpcEventLike {
  sender: { id: number };
  senderFrame: { url: string; parent: unknown } | null;
}

/**
 * Transport between Electron main and one window's renderer. Messages from any other
 * webContents, from sub-frames or from pages that are not our app:// origin are dropped and
 * answered with `unauthorized` (requests) before they reach validation.
 */
export function ipcMainTransport(ipcMain: IpcMainLike, contents: WebContentsLike, isTrusted: (url: string | undefined, isMainFrame: boolean) => boolean): Transport {
  const messages = new HandlerSet<[RpcMessage]>();
  const closes = new HandlerSet<[string]>();
  let closed = false;
  const send = (message: RpcMessage) => {
    if (closed || contents.isDestroyed()) throw new Error('window closed');
    contents.send(RPC_CHANNEL, message);
  };
  const listener = (event: IpcEventLike, message: unknown) => {
    if (event.sender.id !== contents.id) return;
    if (!isRpcMessage(message) || message.kind !== 'req') return;
    const frame = event.senderFrame;
    if (!isTrusted(frame?.url, Boolean(frame) && !frame?.parent)) {
      const error = new ArgonautError('unauthorized', `refused ${message.service}.${message.method} from ${frame?.url ?? 'an unknown frame'}`);
      try {
        send({ kind: 'res', id: message.id, ok: false, error: error.toEnvelope() });
      } catch {
        // window gone
      }
      return;
    }
    messages.emit(message);
  };
  ipcMain.on(RPC_CHANNEL, listener);
  const finish = (reason: string) => {
    if (closed) return;
    closed = true;
    ipcMain.removeListener(RPC_CHANNEL, listener);
    closes.emit(reason);
  };
  contents.once('destroyed', () => finish('window closed'));
  return {
    send,
    onMessage: (handler) => messages.add(handler),
    onClose: (handler) => closes.add(handler),
    close: () => finish('closed'),
  };
}
