/**
 * Output folders that are read-only or full, on real file systems: small tmpfs mounts (needs root
 * on Linux, as in CI; elsewhere these tests skip and say why). Each write fails with exit 3 naming
 * the file and the reason, leaves no partial file, and leaves every project and checkpoint as it was.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../main/cli/index.js';
import { EXPORT_FORMATS } from '../../shared/project/manifest.js';
import { tempDir } from '../helpers/datasets.js';
import { hashTree, tinyDataset } from '../helpers/projects.js';
import { captureStreams } from '../helpers/streams.js';
import { trainedProject, type TrainedProject } from './cases.js';

let root: string;
let trained: TrainedProject;
const mounts: string[] = [];
let mountError: string | undefined;

function mountTmpfs(dir: string, options: string): void {
  mkdirSync(dir, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { stdio: 'pipe' });
  mounts.push(dir);
}

/** Fills a file system until it refuses another byte. */
function fill(dir: string): void {
  const chunk = Buffer.alloc(4096, 1);
  for (let i = 0; ; i++) {
    try {
      writeFileSync(path.join(dir, `filler-${i}`), chunk);
    } catch {
      break;
    }
  }
  try {
    writeFileSync(path.join(dir, 'filler-last'), Buffer.alloc(1));
  } catch {
    // full
  }
}

let full: string;
let readOnly: string;
let small: string;

beforeAll(async () => {
  root = await tempDir('outputs');
  trained = await trainedProject(root);
  full = path.join(root, 'full disk ü');
  readOnly = path.join(root, 'read-only ü');
  small = path.join(root, 'small disk');
  try {
    if (process.platform !== 'linux' || process.getuid?.() !== 0) throw new Error('needs root on Linux to mount tmpfs');
    mountTmpfs(full, 'size=64k');
    fill(full);
    mountTmpfs(readOnly, 'ro,size=64k');
    mountTmpfs(small, 'size=16k');
  } catch (error) {
    mountError = (error as Error).message;
    console.warn(`skipping the read-only and full-disk tests: ${mountError}`);
  }
}, 120_000);

afterAll(() => {
  for (const dir of mounts.reverse()) {
    try {
      execFileSync('umount', [dir], { stdio: 'pipe' });
    } catch {
      // leave it; the OS clears tmpfs at reboot
    }
  }
});

async function expectRefused(argv: string[], file: string, problem: RegExp, cwd = root) {
  const before = hashTree(root, (n) => n === '.argonaut-cache' || n.startsWith('filler'));
  const streams = captureStreams();
  const code = await runCli(['--no-gui', ...argv, '--json'], { streams, cwd });
  const error = streams.jsonLines().find((l) => l.type === 'error');
  expect(code, streams.err()).toBe(3);
  expect(error?.message).toContain(file);
  expect(error?.message).toMatch(problem);
  expect(hashTree(root, (n) => n === '.argonaut-cache' || n.startsWith('filler'))).toEqual(before);
}

const noTemps = (dir: string) => readdirSync(dir).filter((n) => n.endsWith('.tmp'));

describe.skipIf(process.platform !== 'linux' || process.getuid?.() !== 0)('read-only and full output folders (tmpfs)', () => {
  it('export to a full disk: "the disk is full", no partial file', async () => {
    expect(mountError).toBeUndefined();
    for (const format of EXPORT_FORMATS) {
      const out = path.join(full, `scene ü.${format}`);
      await expectRefused(['export', trained.file, '--format', format, '--out', out], out, /cannot write \(the disk is full\)/);
      expect(existsSync(out)).toBe(false);
    }
    expect(noTemps(full)).toEqual([]);
  });

  it('render to a full disk', async () => {
    const out = path.join(full, 'view.png');
    await expectRefused(['render', trained.file, '--view', '1', '--out', out], out, /the disk is full/);
    expect(noTemps(full)).toEqual([]);
  });

  it('export and render into a read-only file system: "the file system is read-only"', async () => {
    const out = path.join(readOnly, 'scene.spz');
    await expectRefused(['export', trained.file, '--format', 'spz', '--out', out], out, /cannot write \(the file system is read-only\)/);
    await expectRefused(['render', trained.file, '--view', '0', '--out', path.join(readOnly, 'v.png')], path.join(readOnly, 'v.png'), /read-only/);
  });

  it('import into a read-only folder creates nothing', async () => {
    const ds = await tinyDataset();
    const project = path.join(readOnly, 'new.argo');
    await expectRefused(['import', ds.root, '--project', project], project, /read-only/);
    expect(readdirSync(readOnly)).toEqual([]);
  });

  it('import --copy onto a disk too small for the dataset removes its partial copy', async () => {
    const ds = await tinyDataset();
    const project = path.join(small, 'copied.argo');
    await expectRefused(['import', ds.root, '--project', project, '--copy'], path.join(small, 'copied.argo.data'), /the disk is full/);
    expect(readdirSync(small)).toEqual([]);
  });

  it('train --out into a read-only folder is refused before training', async () => {
    const out = path.join(readOnly, 'results');
    await expectRefused(['train', trained.file, '--new-run', '--out', out], out, /cannot create the folder \(the file system is read-only\)/);
  });

  it('training a project on a full disk stops at once, its project and checkpoints untouched', async () => {
    const ds = await tinyDataset();
    const home = path.join(small, 'project home');
    mkdirSync(home);
    const project = path.join(home, 'p.argo');
    expect(await runCli(['--no-gui', 'import', ds.root, '--project', project, '--iterations', '10', '--json'], { streams: captureStreams() })).toBe(0);
    fill(small);
    await expectRefused(['train', project], path.join(home, 'p.argo.data', 'train.lock'), /the disk is full/);
  });
});
