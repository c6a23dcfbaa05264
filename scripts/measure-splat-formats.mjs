// Bundles scripts/measure-splat-formats.ts (esbuild, as scripts/build.mjs does) and runs it.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// Inside the tree (out/ is ignored) so that the external sharp resolves from node_modules.
const outfile = path.join(root, 'out', 'measure', 'splat-formats.mjs');
await build({ entryPoints: [path.join(root, 'scripts/measure-splat-formats.ts')], outfile, bundle: true, platform: 'node', format: 'esm', external: ['sharp'], banner: { js: "import { createRequire as bannerRequire } from 'node:module'; const require = bannerRequire(import.meta.url);" }, logLevel: 'warning' });
const run = spawnSync(process.execPath, [outfile, ...process.argv.slice(2)], { stdio: 'inherit', cwd: root });
process.exit(run.status ?? 1);
