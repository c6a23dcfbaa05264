import { createPinia } from 'pinia';
import { createApp } from 'vue';
import App from './App.vue';
import { connect } from './api/client.js';
import { useLogStore } from './stores/logs.js';
import { useNavigationStore } from './stores/navigation.js';
import { useEditStore } from './stores/edits.js';
import { useExportStore } from './stores/exports.js';
import { usePathStore } from './stores/paths.js';
import { usePartitionStore } from './stores/partitions.js';
import { useNoticeStore } from './stores/notices.js';
import { useProjectStore } from './stores/projects.js';
import { useSceneStore } from './stores/scene.js';
import { useSettingsStore } from './stores/settings.js';
import { useSystemStore } from './stores/system.js';
import { useTrainingStore } from './stores/training.js';
import './styles/theme.css';

const app = createApp(App);
app.use(createPinia());
useSettingsStore(); // applies the stored theme before the first paint
useNavigationStore().followHash();
app.mount('#app');

const system = useSystemStore();
const logs = useLogStore();
logs.studio('info', 'studio started; connecting to the engine');
connect()
  .then((connection) => {
    // Subscribe everything before the first call so no event is missed.
    logs.attach(connection.client);
    useNoticeStore().attach(connection.client);
    useTrainingStore().attach(connection.client);
    useSceneStore().attach(connection.client);
    useProjectStore().attach(connection.client);
    useExportStore().attach(connection.client);
    usePathStore().attach(connection.client);
    usePartitionStore().attach(connection.client);
    useEditStore().attach(connection.client);
    connection.onClose((reason) => logs.studio('error', `connection to the engine closed: ${reason}`));
    return system.attach(connection);
  })
  .then(() => {
    if (system.gpu) logs.studio('info', `connected; engine uses ${system.adapterLabel}`);
  })
  .catch((error: unknown) => {
    system.connectionFailed(error);
    logs.studio('error', system.error?.message ?? String(error));
  });
