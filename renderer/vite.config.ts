import { defineConfig } from 'vite';
import vue from '@vitejs/plugin-vue';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: here,
  base: './',
  plugins: [vue()],
  build: {
    outDir: path.resolve(here, '../out/renderer'),
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 8000,
    sourcemap: true,
    // Babylon's many lazily loaded shader chunks make the Vue transform look slow; the timing
    // report is noise in every build and test log.
    rolldownOptions: { checks: { bundlerTimings: false } },
  },
});
