/**
 * Preload (sandboxed, context-isolated): exposes exactly one object to the page, a transport for
 * contract messages, plus the one thing only a preload can do for dropped files: tell their path
 * (Electron's webUtils; a sandboxed page's File has none). The page builds the typed client on the
 * transport (shared/rpc), the same client the browser mode builds over WebSocket; main validates
 * every request against the contract.
 */
import { contextBridge, ipcRenderer, webUtils } from 'electron';

const CHANNEL = 'argonaut:rpc';
type Listener = (message: unknown) => void;
const listeners = new Set<Listener>();

ipcRenderer.on(CHANNEL, (_event, message: unknown) => {
  for (const listener of listeners) listener(message);
});

contextBridge.exposeInMainWorld('argonautIpc', {
  send(message: unknown): void {
    if (!message || typeof message !== 'object' || (message as { kind?: unknown }).kind !== 'req') {
      throw new Error('argonautIpc.send: only contract requests may be sent');
    }
    ipcRenderer.send(CHANNEL, message);
  },
  onMessage(listener: Listener): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  /** The path of a file or folder dropped on the window ('' for files that have none, e.g. from another app's memory). */
  pathForFile(file: File): string {
    return webUtils.getPathForFile(file);
  },
});
