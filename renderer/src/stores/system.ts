import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { GpuInfo } from '../../../shared/contract/index.js';
import { toErrorEnvelope, type ErrorEnvelope } from '../../../shared/rpc/errors.js';
import type { Connection, StudioClient } from '../api/client.js';

/** The engine host's state as the supervisor reports it, plus the renderer's own connection states. */
export type HostState = 'connecting' | 'starting' | 'ready' | 'crashed' | 'restarting' | 'stopped' | 'disconnected';

export interface EngineVersion {
  app: string;
  node: string;
  platform: string;
}

/** Connection to the engine: the client, the host's state, the GPU it uses and its versions. */
export const useSystemStore = defineStore('system', () => {
  /** The typed client; a proxy over a transport, kept out of deep reactivity. */
  const client = shallowRef<StudioClient>();
  /** Engine host state, from the `host` event (and the connection itself). */
  const hostState = ref<HostState>('connecting');
  /** Restarts the supervisor has made since the studio started. */
  const restarts = ref(0);
  /** Why the host is in its state, when the supervisor said (exit code, crash message). */
  const hostReason = ref<string>();
  /** The GPU adapter, backend and limits the engine uses (`system.info`). */
  const gpu = ref<GpuInfo>();
  /** Versions of the engine host (`system.version`). */
  const version = ref<EngineVersion>();
  /** Why the engine cannot be reached or asked, as an error envelope. */
  const error = ref<ErrorEnvelope>();

  /** Short adapter label for the status bar: "llvmpipe (LLVM 15.0.6, 256 bits) · opengl". */
  const adapterLabel = computed(() => (gpu.value ? `${gpu.value.adapter.name || gpu.value.adapter.description || 'unnamed adapter'} · ${gpu.value.backend}` : undefined));

  /** Attaches a connection, follows the host's state and loads the GPU info and versions. */
  async function attach(connection: Connection) {
    const c = connection.client;
    client.value = c;
    c.on('host', (event) => {
      hostState.value = event.state;
      restarts.value = event.restarts;
      hostReason.value = event.reason;
      if (event.state === 'ready') void refresh();
    });
    connection.onClose((reason) => {
      hostState.value = 'disconnected';
      error.value = { code: 'unavailable', message: `Lost the connection to the engine: ${reason}.` };
    });
    await refresh();
  }

  /** Re-reads the GPU info and versions (after a host restart, say). */
  async function refresh() {
    const c = client.value;
    if (!c) return;
    try {
      const [info, versions] = await Promise.all([c.api.system.info({}), c.api.system.version({})]);
      gpu.value = info;
      version.value = versions;
      error.value = undefined;
      hostState.value = 'ready';
    } catch (e) {
      error.value = toErrorEnvelope(e);
    }
  }

  /** Records that no connection could be made at all. */
  function connectionFailed(e: unknown) {
    hostState.value = 'disconnected';
    const envelope = toErrorEnvelope(e);
    error.value = { code: 'unavailable', message: `Cannot reach the engine: ${envelope.message}` };
  }

  return { client, hostState, restarts, hostReason, gpu, version, error, adapterLabel, attach, refresh, connectionFailed };
});
