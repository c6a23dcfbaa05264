// The one build: esbuild for every Node/Electron bundle, Vite for the renderer.
//   node scripts/build.mjs            everything (npm install runs it)
//   node scripts/build.mjs --node     only the Node/Electron bundles (fast; tests use it)
//   node scripts/build.mjs --gpu      also the GPU-machine runner (out/gpu/), see docs/gpu-machine.md
import { build } from 'esbuild';
import { copyFile, mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { wgslEsbuild } from './wgsl-plugin.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8'));
// The commit goes into the bundles: benchmark results carry it (the GPU machine has no .git).
let commit = process.env.ARGONAUT_COMMIT ?? 'unknown';
try {
  const { execFileSync } = await import('node:child_process');
  commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  if (dirty) commit += '-dirty';
} catch {
  // not a git checkout
}

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
  plugins: [wgslEsbuild],
  define: { __ARGONAUT_VERSION__: JSON.stringify(pkg.version), __ARGONAUT_COMMIT__: JSON.stringify(commit) },
  // Native addons and Electron are resolved at run time, never bundled: webgpu (dawn.node), sharp
  // (its JS finds @img/sharp-<platform>/sharp.node and libvips beside it), sql.js (its .wasm is read
  // from node_modules/sql.js/dist), in every bundle.
  // bullmq and ioredis are bundled; what they require only when present stays out: bullmq's
  // PostgreSQL backend (pg, not installed) and msgpackr's optional native encoder (msgpackr-extract,
  // without which msgpackr runs its own JS).
  external: ['webgpu', 'sharp', 'electron', 'sql.js', 'pg', 'msgpackr-extract'],
};
// ESM bundles that inline CommonJS dependencies need a real `require` for Node built-ins.
const esmBanner = { js: "import { createRequire as __argonautCreateRequire } from 'node:module'; const require = __argonautCreateRequire(import.meta.url);" };

const node = [
  { entryPoints: [path.join(root, 'main/cli/entry.ts')], outfile: path.join(root, 'out/cli/index.mjs'), format: 'esm', banner: esmBanner },
  { entryPoints: [path.join(root, 'main/host/index.ts')], outfile: path.join(root, 'out/host/index.mjs'), format: 'esm', banner: esmBanner },
  { entryPoints: [path.join(root, 'main/app/index.ts')], outfile: path.join(root, 'out/main/index.cjs'), format: 'cjs' },
  { entryPoints: [path.join(root, 'main/preload/index.ts')], outfile: path.join(root, 'out/preload/index.cjs'), format: 'cjs', platform: 'browser', external: ['electron'] },
  // Worker threads are bundles of their own, beside each entry that starts them (the engine finds
  // them at new URL('./<name>.mjs', import.meta.url): sfm/verify/verify-pool.ts).
  ...['cli', 'host'].map((entry) => ({ entryPoints: [path.join(root, 'main/engine/sfm/verify/verify-worker.ts')], outfile: path.join(root, `out/${entry}/verify-worker.mjs`), format: 'esm', banner: esmBanner })),
  // (dataset/view-image-pool.ts: training's view images)
  ...['cli', 'host'].map((entry) => ({ entryPoints: [path.join(root, 'main/engine/dataset/view-image-worker.ts')], outfile: path.join(root, `out/${entry}/view-image-worker.mjs`), format: 'esm', banner: esmBanner })),
];
// The exported web viewer (renderer/web-viewer/): a page of its own that web exports copy
// (main/engine/project/web-export.ts), so the engine's tests need it and --node builds it too. One
// classic script: a page opened from file:// may load no ES modules and no lazy chunks.
const webViewerDir = path.join(root, 'out/web-viewer');
const webViewer = {
  entryPoints: [path.join(root, 'renderer/web-viewer/viewer.ts')],
  outfile: path.join(webViewerDir, 'viewer.js'),
  bundle: true,
  platform: 'browser',
  format: 'iife',
  target: 'es2020',
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
};
async function buildWebViewer() {
  await rm(webViewerDir, { recursive: true, force: true });
  await mkdir(webViewerDir, { recursive: true });
  await Promise.all([build(webViewer), copyFile(path.join(root, 'renderer/web-viewer/index.html'), path.join(webViewerDir, 'index.html'))]);
}
const gpu = [
  { entryPoints: [path.join(root, 'tests/gpu/runner.ts')], outfile: path.join(root, 'out/gpu/runner.mjs'), format: 'esm', banner: esmBanner },
  // the partitioned benchmarks' scene, made on the GPU machine (bench/partition-city.ts)
  { entryPoints: [path.join(root, 'bench/partition-city.ts')], outfile: path.join(root, 'out/gpu/partition-city.mjs'), format: 'esm', banner: esmBanner },
];

const started = performance.now();
// The GPU machine's transfer limit (64 MiB with data) wants small bundles: minify there.
const gpuBuild = args.has('--gpu') ? { minify: true, keepNames: true, sourcemap: false } : {};
const jobs = [...node, ...(args.has('--gpu') ? gpu : [])].map((options) => build({ ...common, ...gpuBuild, ...options }));
if (!args.has('--gpu')) jobs.push(buildWebViewer());
if (!args.has('--node') && !args.has('--gpu')) {
  await rm(path.join(root, 'out/renderer'), { recursive: true, force: true });
  const { build: viteBuild } = await import('vite');
  jobs.push(viteBuild({ configFile: path.join(root, 'renderer/vite.config.ts'), logLevel: 'warn' }));
}
await Promise.all(jobs);
console.log(`build: done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
