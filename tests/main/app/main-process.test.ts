import { EventEmitter } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// Electron is stubbed at the module boundary only; everything behind it is the real code.
const created: { options: Record<string, unknown>; contents: FakeContents }[] = [];
const ipcMain = new EventEmitter();
const protocolHandlers = new Map<string, (req: { url: string }) => Promise<Response>>();
const privileged: unknown[] = [];
const menus: { template: { label?: string; role?: string; submenu?: { id?: string; accelerator?: string; click?: () => void }[] }[] }[] = [];
const dialogCalls: { kind: string; options: Record<string, unknown> }[] = [];
const userData = path.join(tmpdir(), `argonaut-userdata-${process.pid}`);

class FakeContents extends EventEmitter {
  static next = 1;
  id = FakeContents.next++;
  sent: unknown[] = [];
  loaded: string | undefined;
  mainFrame = { url: 'app://renderer/index.html', parent: null };
  windowOpenHandler: ((d: { url: string }) => unknown) | undefined;
  send(_channel: string, message: unknown) {
    this.sent.push(message);
  }
  isDestroyed() {
    return false;
  }
  setWindowOpenHandler(h: (d: { url: string }) => unknown) {
    this.windowOpenHandler = h;
  }
}

// The app object: an EventEmitter so tests can send 'open-file' and 'second-instance' like the OS.
const appEvents = new EventEmitter();
const recentDocuments: string[] = [];
const launchCwd = path.join(tmpdir(), 'argonaut-launch');
const argvProject = path.join(launchCwd, 'projects', 'statue.argo');
// As Electron starts it in development: [electron, main script, ...user args].
process.argv = [process.execPath, 'out/main/index.cjs', '--enable-logging', path.relative(process.cwd(), argvProject), 'notes.txt'];

vi.mock('electron', () => {
  class BrowserWindow extends EventEmitter {
    static all: BrowserWindow[] = [];
    static getAllWindows() {
      return BrowserWindow.all;
    }
    id = BrowserWindow.all.length + 1;
    webContents = new FakeContents();
    constructor(options: Record<string, unknown>) {
      super();
      created.push({ options, contents: this.webContents });
      BrowserWindow.all.push(this);
    }
    loadURL(url: string) {
      this.webContents.loaded = url;
      return Promise.resolve();
    }
    show() {}
    maximized = false;
    maximize() {
      this.maximized = true;
    }
    isMaximized() {
      return this.maximized;
    }
    getNormalBounds() {
      return { x: 120, y: 80, width: 1300, height: 820 };
    }
    focused = 0;
    focus() {
      this.focused += 1;
    }
    isDestroyed() {
      return false;
    }
    isMinimized() {
      return false;
    }
    restore() {}
  }
  const app = Object.assign(appEvents, {
    isPackaged: false,
    whenReady: () => Promise.resolve(),
    quit: vi.fn(),
    exit: vi.fn(),
    requestSingleInstanceLock: vi.fn(() => true),
    addRecentDocument: (file: string) => recentDocuments.push(file),
    getPath: (name: string) => (name === 'userData' ? userData : tmpdir()),
  });
  return {
    app,
    BrowserWindow,
    ipcMain,
    protocol: {
      registerSchemesAsPrivileged: (s: unknown) => privileged.push(s),
      handle: (scheme: string, handler: (req: { url: string }) => Promise<Response>) => protocolHandlers.set(scheme, handler),
    },
    shell: { openExternal: vi.fn() },
    screen: { getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }] },
    Menu: {
      buildFromTemplate: (template: (typeof menus)[number]['template']) => ({ template }),
      setApplicationMenu: (menu: (typeof menus)[number]) => menus.push(menu),
    },
    dialog: {
      showOpenDialog: async (_window: unknown, options: Record<string, unknown>) => {
        dialogCalls.push({ kind: 'open', options });
        return { canceled: false, filePaths: ['/data/statue'] };
      },
      showSaveDialog: async (_window: unknown, options: Record<string, unknown>) => {
        dialogCalls.push({ kind: 'save', options });
        return { canceled: true };
      },
    },
  };
});

const hostRequest = vi.fn(async () => ({ pong: true, pid: 42, uptimeS: 1 }));
vi.mock('../../../main/supervisor/supervisor.js', () => ({
  HostSupervisor: class {
    restartCount = 0;
    request = hostRequest;
    start = vi.fn(async () => {});
    stop = vi.fn(async () => {});
    onEvent = () => () => {};
    onState = () => () => {};
  },
}));

afterAll(() => rmSync(userData, { recursive: true, force: true }));

beforeAll(async () => {
  await import('../../../main/app/index.js');
  await new Promise((r) => setTimeout(r, 10));
});

function sendFromRenderer(contents: FakeContents, message: unknown, frame: { url: string; parent: unknown } = contents.mainFrame) {
  ipcMain.emit('argonaut:rpc', { sender: { id: contents.id }, senderFrame: frame }, message);
}

describe('Electron main (electron stubbed)', () => {
  it('opens one sandboxed, isolated window on the app:// page', () => {
    expect(created).toHaveLength(1);
    const prefs = created[0].options.webPreferences as Record<string, unknown>;
    expect(prefs).toMatchObject({ sandbox: true, contextIsolation: true, nodeIntegration: false });
    expect(String(prefs.preload)).toMatch(/preload[/\\]index\.cjs$/);
    expect(created[0].contents.loaded).toBe('app://renderer/index.html');
    expect(privileged).toHaveLength(1);
    expect(protocolHandlers.has('app')).toBe(true);
  });

  it('forwards valid contract requests from the page to the engine host', async () => {
    const contents = created[0].contents;
    sendFromRenderer(contents, { kind: 'req', id: 1, service: 'system', method: 'ping', args: {} });
    await vi.waitFor(() => expect(contents.sent).toContainEqual({ kind: 'res', id: 1, ok: true, result: { pong: true, pid: 42, uptimeS: 1 } }));
    expect(hostRequest).toHaveBeenCalledTimes(1);
  });

  it('refuses requests from sub-frames or foreign pages, and invalid arguments, without reaching the host', async () => {
    const contents = created[0].contents;
    hostRequest.mockClear();
    sendFromRenderer(contents, { kind: 'req', id: 2, service: 'system', method: 'ping', args: {} }, { url: 'https://evil.example/', parent: null });
    sendFromRenderer(contents, { kind: 'req', id: 3, service: 'system', method: 'ping', args: {} }, { url: 'app://renderer/index.html', parent: {} });
    sendFromRenderer(contents, { kind: 'req', id: 4, service: 'system', method: 'ping', args: { evil: true } });
    await vi.waitFor(() => expect(contents.sent.filter((m) => (m as { ok?: boolean }).ok === false)).toHaveLength(3));
    const byId = new Map(contents.sent.map((m) => [(m as { id: number }).id, m]));
    expect(byId.get(2)).toMatchObject({ error: { code: 'unauthorized' } });
    expect(byId.get(3)).toMatchObject({ error: { code: 'unauthorized' } });
    expect(byId.get(4)).toMatchObject({ error: { code: 'invalid_argument' } });
    expect(hostRequest).not.toHaveBeenCalled();
  });

  it('blocks navigation away from the app and opening windows', () => {
    const contents = created[0].contents;
    const event = { preventDefault: vi.fn() };
    contents.emit('will-navigate', event, 'https://evil.example/');
    expect(event.preventDefault).toHaveBeenCalled();
    expect(contents.windowOpenHandler?.({ url: 'https://example.com' })).toEqual({ action: 'deny' });
  });

  it('holds the single-instance lock', async () => {
    const { app } = await import('electron');
    expect(app.requestSingleInstanceLock).toHaveBeenCalledTimes(1);
    expect(app.quit).not.toHaveBeenCalled();
  });

  it('delivers .argo files from argv once the renderer has subscribed (its first request), and records them as recent', async () => {
    const contents = created[0].contents;
    // The earlier tests' requests were the renderer's first: argv's file went out then, exactly once.
    const opens = contents.sent.filter((m) => (m as { name?: string }).name === 'openProject');
    expect(opens).toEqual([{ kind: 'evt', name: 'openProject', payload: { path: argvProject, via: 'argv' } }]);
    expect(recentDocuments).toContain(argvProject);
  });

  it('opens files from macOS open-file events and from a second launch (relative to its working directory), focusing the window', async () => {
    const contents = created[0].contents;
    const event = { preventDefault: vi.fn() };
    appEvents.emit('open-file', event, '/Users/me/Scenes/garden.argo');
    expect(event.preventDefault).toHaveBeenCalled();
    appEvents.emit('second-instance', {}, [process.execPath, 'out/main/index.cjs', '--flag', 'sub/room.argo', 'image.png'], '/home/me/work');
    const opens = contents.sent.filter((m) => (m as { name?: string }).name === 'openProject').map((m) => (m as { payload: unknown }).payload);
    expect(opens).toContainEqual({ path: path.resolve('/Users/me/Scenes/garden.argo'), via: 'open-file' });
    expect(opens).toContainEqual({ path: path.resolve('/home/me/work', 'sub/room.argo'), via: 'second-instance' });
    expect(opens.some((o) => String((o as { path: string }).path).endsWith('image.png'))).toBe(false);
    const { BrowserWindow } = await import('electron');
    expect((BrowserWindow.getAllWindows()[0] as unknown as { focused: number }).focused).toBeGreaterThanOrEqual(2);
  });
});

describe('Electron shell: menu, dialogs, window state (electron stubbed)', () => {
  it('sets an application menu whose commands reach the renderer as appCommand events', () => {
    expect(menus).toHaveLength(1);
    const items = menus[0].template.flatMap((m) => m.submenu ?? []);
    const open = items.find((i) => i.id === 'open-project');
    expect(open?.accelerator).toBe('CmdOrCtrl+O');
    const contents = created[0].contents;
    open!.click!();
    items.find((i) => i.id === 'view-train')!.click!();
    const commands = contents.sent.filter((m) => (m as { name?: string }).name === 'appCommand').map((m) => (m as { payload: unknown }).payload);
    expect(commands).toEqual([{ command: 'open-project' }, { command: 'view-train' }]);
  });

  it('serves dialog.open and dialog.save in main (validated first, never forwarded to the host)', async () => {
    const contents = created[0].contents;
    hostRequest.mockClear();
    sendFromRenderer(contents, { kind: 'req', id: 50, service: 'dialog', method: 'open', args: { purpose: 'dataset' } });
    sendFromRenderer(contents, { kind: 'req', id: 51, service: 'dialog', method: 'save', args: { format: 'ply', defaultPath: '/data/statue.ply' } });
    sendFromRenderer(contents, { kind: 'req', id: 52, service: 'dialog', method: 'open', args: { purpose: 'anything', filters: ['*'] } });
    await vi.waitFor(() => expect(contents.sent.filter((m) => [50, 51, 52].includes((m as { id?: number }).id ?? 0))).toHaveLength(3));
    const byId = new Map(contents.sent.map((m) => [(m as { id: number }).id, m]));
    expect(byId.get(50)).toMatchObject({ ok: true, result: { path: '/data/statue' } });
    expect(byId.get(51)).toMatchObject({ ok: true, result: { path: null } });
    expect(byId.get(52)).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
    expect(dialogCalls).toHaveLength(2);
    expect(dialogCalls[0].options).toMatchObject({ properties: ['openDirectory'] });
    expect(dialogCalls[1].options).toMatchObject({ defaultPath: '/data/statue.ply', filters: [{ extensions: ['ply'] }] });
    expect(hostRequest).not.toHaveBeenCalled();
  });

  it('saves the window bounds on close, for the next launch', async () => {
    const { BrowserWindow } = await import('electron');
    (BrowserWindow.getAllWindows()[0] as unknown as EventEmitter).emit('close');
    const { loadWindowState, windowStateFile } = await import('../../../main/app/window-state.js');
    await vi.waitFor(async () => expect(await loadWindowState(windowStateFile(userData))).toEqual({ version: 1, bounds: { x: 120, y: 80, width: 1300, height: 820 }, maximized: false }));
  });
});
