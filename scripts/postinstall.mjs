// Runs after `npm install` / `npm ci` in this repository:
//  1. builds the project, so `npx argonaut ...` works right away;
//  2. fetches the Electron binary (electron >= 36 downloads it lazily; we do it now) but never
//     fails the install when it cannot: machines without access to Electron's release server
//     (CI, air-gapped servers) run the CLI and browser mode, and `npm start` says why.
// Set ARGONAUT_SKIP_ELECTRON=1 to skip the download.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

if (!existsSync(path.join(root, 'node_modules', 'esbuild'))) {
  console.log('argonaut: dev dependencies absent (production install); skipping the build');
  process.exit(0);
}

const build = spawnSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const installer = path.join(root, 'node_modules', 'electron', 'install.js');
if (process.env.ARGONAUT_SKIP_ELECTRON === '1' || !existsSync(installer)) process.exit(0);
const fetched = spawnSync(process.execPath, [installer], { cwd: path.dirname(installer), stdio: ['ignore', 'pipe', 'pipe'], timeout: 300_000, encoding: 'utf8' });
if (fetched.status === 0) console.log('argonaut: Electron binary installed');
else {
  const reason = `${fetched.stderr ?? ''}`.split('\n').find((l) => /error|failed/i.test(l))?.trim() ?? `exit ${fetched.status ?? fetched.signal}`;
  console.log(`argonaut: the Electron binary could not be downloaded (${reason}).`);
  console.log('argonaut: everything else works: `npx argonaut --no-gui ...`, and `npm start` opens the studio in your browser instead.');
}
