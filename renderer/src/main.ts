import { createPinia } from 'pinia';
import { createApp } from 'vue';
import App from './App.vue';
import { connect } from './api/client.js';
import { useSystemStore } from './stores/system.js';

const app = createApp(App);
app.use(createPinia());
app.mount('#app');

const system = useSystemStore();
connect()
  .then((client) => system.attach(client))
  .catch((error: unknown) => {
    system.hostState = 'disconnected';
    system.error = `Cannot reach the engine: ${(error as Error).message}`;
  });
