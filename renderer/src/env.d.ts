/// <reference types="vite/client" />
declare module '*.vue' {
  import type { DefineComponent } from 'vue';
  const component: DefineComponent<object, object, unknown>;
  export default component;
}

interface ArgonautIpc {
  send(message: unknown): void;
  onMessage(listener: (message: unknown) => void): () => void;
  /** The path of a dropped file or folder ('' when it has none). */
  pathForFile(file: File): string;
}

interface Window {
  /** Present in Electron (preload); absent in browser mode. */
  argonautIpc?: ArgonautIpc;
}
