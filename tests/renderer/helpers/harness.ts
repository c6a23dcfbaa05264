/**
 * In-browser component tests: a small harness page (tests/renderer/harness/<entry>.html) built by
 * Vite with the studio's own Vue plugin and served on 127.0.0.1 with the studio's CSP, opened in
 * Debian's Chromium through playwright-core (tests/e2e/helpers/chromium.ts). Vitest itself runs
 * in Node here (no jsdom, no @vitest/browser installed), so this is how components meet a real DOM.
 */
import vue from '@vitejs/plugin-vue';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { contentSecurityPolicy } from '../../../shared/security.js';

const harnessDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../harness');

const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml', '.map': 'application/json' };

export interface Harness {
  /** URL of the harness page. */
  url: string;
  close(): Promise<void>;
}

/** Builds `harness/<entry>.html` into a fresh folder and serves it; close() removes both. */
export async function startHarness(entry: 'panels' | 'viewer' | 'partition'): Promise<Harness> {
  const outDir = mkdtempSync(path.join(tmpdir(), `argonaut-harness-${entry}-`));
  await build({
    root: harnessDir,
    base: './',
    configFile: false,
    logLevel: 'warn',
    plugins: [vue()],
    build: {
      outDir,
      emptyOutDir: true,
      target: 'es2022',
      chunkSizeWarningLimit: 10000,
      rolldownOptions: { input: path.join(harnessDir, `${entry}.html`), checks: { bundlerTimings: false } },
    },
  });
  const server = createServer((req, res) => {
    void (async () => {
      const rel = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname).replace(/^\/+/, '');
      const file = path.resolve(outDir, rel);
      if (!file.startsWith(outDir + path.sep)) throw new Error('outside');
      const body = await readFile(file);
      res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'Content-Security-Policy': contentSecurityPolicy() });
      res.end(body);
    })().catch(() => {
      res.writeHead(404);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/${entry}.html`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(outDir, { recursive: true, force: true });
    },
  };
}
