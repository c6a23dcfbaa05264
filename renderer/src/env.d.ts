/// <reference types="vite/client" />
declare module '*.vue' {
  import type { DefineComponent } from 'vue';
  const component: DefineComponent<object, object, unknown>;
  export default component;
}

interface ArgonautIpc {
  send(message: unknown): void;
  onMessage(listener: (message: unknown) => void): () => void;
}

interface Window {
  /** Present in Electron (preload); absent in browser mode. */
  argonautIpc?: ArgonautIpc;
}
