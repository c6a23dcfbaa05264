import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the built pieces live relative to this bundle (out/cli/index.mjs):
 * out/host/index.mjs, out/renderer/, out/main/index.cjs. In a packaged app they sit in
 * app.asar.unpacked with the same layout.
 */
export function outDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  // Bundled: out/cli -> out. From sources (tests): main/cli -> <root>/out.
  return path.basename(here) === 'cli' && path.basename(path.dirname(here)) === 'out' ? path.dirname(here) : path.resolve(here, '../../out');
}

export function projectRoot(): string {
  return path.dirname(outDir());
}

export function hostScript(): string {
  return path.join(outDir(), 'host', 'index.mjs');
}

export function rendererDir(): string {
  return path.join(outDir(), 'renderer');
}

export function electronMain(): string {
  return path.join(outDir(), 'main', 'index.cjs');
}

/**
 * The Electron executable if its binary was downloaded (node_modules/electron/dist), else a
 * reason why not. Never triggers electron's lazy download.
 */
export function findElectron(root = projectRoot()): { path: string } | { missing: string } {
  const pkg = path.join(root, 'node_modules', 'electron');
  if (!existsSync(path.join(pkg, 'package.json'))) return { missing: 'the electron package is not installed' };
  try {
    const rel = readFileSync(path.join(pkg, 'path.txt'), 'utf8').trim();
    const exe = path.join(pkg, 'dist', rel);
    if (existsSync(exe)) return { path: exe };
    return { missing: `the Electron binary ${exe} is missing` };
  } catch {
    return { missing: 'the Electron binary was not downloaded (no network access to its release server during install?)' };
  }
}
