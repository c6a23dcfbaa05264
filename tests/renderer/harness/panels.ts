/**
 * Harness page for the panels: mounts ParamPanel (synthetic registry and the real one), LogConsole,
 * KernelTable, MetricsChart and one ErrorBanner per error code, and exposes `window.harness` so the
 * test can feed them (log lines, metric points) the way the stores would.
 */
import { createPinia } from 'pinia';
import { createApp } from 'vue';
import '../../../renderer/src/styles/theme.css';
import { useLogStore, type LogLevel } from '../../../renderer/src/stores/logs.js';
import PanelsHarness from './PanelsHarness.vue';
import { harnessMetrics } from './harness-state.js';

const app = createApp(PanelsHarness);
app.use(createPinia());
app.mount('#app');

const logs = useLogStore();
Object.assign(window, {
  harness: {
    addLogs(count: number, level: LogLevel = 'info', prefix = 'line') {
      for (let i = 0; i < count; i++) logs.add({ level, message: `${prefix} ${i}`, source: 'harness', timeMs: Date.UTC(2025, 0, 1, 12, 0, 0, i) });
    },
    appendMetrics(from: number, count: number) {
      for (let step = from; step < from + count; step++) harnessMetrics.set.append(step, { loss: 0.5 / (1 + step / 50), psnr: 12 + 10 * (1 - Math.exp(-step / 200)), splats: 10000 + step * 40 });
      harnessMetrics.version.value++;
    },
    clearMetrics() {
      harnessMetrics.set.clear();
      harnessMetrics.version.value++;
    },
  },
});
