import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import type { GpuInfo } from '../../../shared/contract/index.js';
import type { StudioClient } from '../api/client.js';

/** Connection to the engine: the client, the host's state and the GPU it uses. */
export const useSystemStore = defineStore('system', () => {
  /** The typed client; kept out of deep reactivity. */
  const client = shallowRef<StudioClient>();
  /** Engine host state as reported by the supervisor. */
  const hostState = ref<string>('connecting');
  const gpu = ref<GpuInfo>();
  const error = ref<string>();

  /** Attaches the client and loads the GPU info. */
  async function attach(c: StudioClient) {
    client.value = c;
    c.on('host', (e) => {
      hostState.value = e.state;
      if (e.state === 'ready') void refresh();
    });
    hostState.value = 'ready';
    await refresh();
  }

  /** Re-reads the GPU info (after a host restart, say). */
  async function refresh() {
    if (!client.value) return;
    try {
      gpu.value = await client.value.api.system.info({});
      error.value = undefined;
    } catch (e) {
      error.value = (e as Error).message;
    }
  }

  return { client, hostState, gpu, error, attach, refresh };
});
