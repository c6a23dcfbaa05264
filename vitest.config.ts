import { defineConfig } from 'vitest/config';
import vue from '@vitejs/plugin-vue';
// @ts-expect-error plain ESM helper without types
import { wgslVite } from './scripts/wgsl-plugin.mjs';

export default defineConfig({
  plugins: [wgslVite(), vue()],
  test: {
    include: ['tests/**/*.test.ts'],
    // Dawn is a native addon: one process per test file, no worker threads.
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
