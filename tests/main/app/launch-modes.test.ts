import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isNoGui, OpenQueue, projectFilesFromArgs, userArgs } from '../../../main/app/open-files.js';
import { builtFile } from '../../helpers/build.js';

/** Imports Electron main afresh with this argv and an electron stub (the module boundary only). */
async function launch(argv: string[], options: { lockHeld?: boolean } = {}) {
  vi.resetModules();
  const app = Object.assign(new EventEmitter(), {
    isPackaged: false,
    whenReady: () => Promise.resolve(),
    quit: vi.fn(),
    exit: vi.fn(),
    requestSingleInstanceLock: vi.fn(() => !options.lockHeld),
    addRecentDocument: vi.fn(),
    dock: { hide: vi.fn() },
  });
  const windows: unknown[] = [];
  const registered: unknown[] = [];
  vi.doMock('electron', () => ({
    app,
    BrowserWindow: class {
      static getAllWindows = () => windows;
      constructor() {
        windows.push(this);
        throw new Error('no window expected in this launch mode');
      }
    },
    ipcMain: new EventEmitter(),
    protocol: { registerSchemesAsPrivileged: (s: unknown) => registered.push(s), handle: vi.fn() },
    shell: { openExternal: vi.fn() },
  }));
  const argvBefore = process.argv;
  process.argv = [process.execPath, 'out/main/index.cjs', ...argv];
  try {
    await import('../../../main/app/index.js');
  } finally {
    process.argv = argvBefore;
  }
  return { app, windows, registered };
}

afterEach(() => {
  vi.doUnmock('electron');
  delete process.env.ARGONAUT_NODE;
});

describe('Electron main launch modes (electron stubbed)', () => {
  it('--no-gui runs the CLI with plain Node, without a window, and exits with its code', async () => {
    builtFile('cli/index.mjs');
    process.env.ARGONAUT_NODE = process.execPath;
    const ok = await launch(['--no-gui', '--version']);
    await vi.waitFor(() => expect(ok.app.exit).toHaveBeenCalledWith(0), { timeout: 20_000 });
    const usage = await launch(['--no-gui', 'frobnicate']);
    await vi.waitFor(() => expect(usage.app.exit).toHaveBeenCalledWith(2), { timeout: 20_000 });
    for (const run of [ok, usage]) {
      expect(run.windows).toHaveLength(0);
      expect(run.registered).toHaveLength(0); // no protocol, no studio
      expect(run.app.requestSingleInstanceLock).not.toHaveBeenCalled(); // headless runs never block the studio
    }
  });

  it('--no-gui reports a missing Node runtime instead of hanging', async () => {
    process.env.ARGONAUT_NODE = '/nonexistent/node';
    const run = await launch(['--no-gui', 'info']);
    await vi.waitFor(() => expect(run.app.exit).toHaveBeenCalledWith(1), { timeout: 20_000 });
  });

  it('a second studio quits at once when the first holds the lock (its files went to the first)', async () => {
    const run = await launch(['scene.argo'], { lockHeld: true });
    expect(run.app.quit).toHaveBeenCalled();
    expect(run.windows).toHaveLength(0);
    expect(run.registered).toHaveLength(0);
  });
});

describe('which files a launch opens', () => {
  it('takes user arguments after the executable (packaged) or the main script (development)', () => {
    expect(userArgs(['/opt/Argonaut/argonaut', 'a.argo'], true)).toEqual(['a.argo']);
    expect(userArgs(['/usr/bin/electron', 'out/main/index.cjs', 'a.argo'], false)).toEqual(['a.argo']);
    expect(isNoGui(['train', '--no-gui'])).toBe(true);
    expect(isNoGui(['a.argo'])).toBe(false);
  });

  it('keeps .argo files (any case), resolved against the launch folder, once each, skipping flags and other files', () => {
    const cwd = '/home/me';
    expect(projectFilesFromArgs(['--enable-logging', 'a.argo', 'B.ARGO', '/abs/c.argo', 'a.argo', 'photo.jpg', '--x=y.argo', 'Spaced Name ü.argo'], cwd)).toEqual([
      '/home/me/a.argo', '/home/me/B.ARGO', '/abs/c.argo', '/home/me/Spaced Name ü.argo',
    ]);
  });

  it('queues opens until the renderer subscribes, then delivers them in order and later ones at once', () => {
    const q = new OpenQueue();
    const got: string[] = [];
    q.push('/a.argo', 'argv');
    q.push('/b.argo', 'open-file');
    q.push('/a.argo', 'second-instance');
    expect(q.waiting).toHaveLength(2);
    q.attach((p, via) => got.push(`${via}:${p}`));
    q.push('/c.argo', 'second-instance');
    expect(got).toEqual(['argv:/a.argo', 'open-file:/b.argo', 'second-instance:/c.argo']);
    q.detach();
    q.push('/d.argo', 'open-file');
    expect(q.waiting).toEqual([{ path: '/d.argo', via: 'open-file' }]);
  });
});
