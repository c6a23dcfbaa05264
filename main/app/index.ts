/**
 * Electron main: windows, protocol, IPC routing and engine-host supervision. The only code that
 * imports 'electron' (besides the preload). Compute runs in the engine host (plain Node), which
 * this process starts, watches and restarts.
 *
 * Launch modes: `--no-gui ...` runs the CLI with the bundled Node and no window (no-gui.ts);
 * otherwise the studio, one instance per user: a second launch hands its .argo files to the
 * first (second-instance) and quits; macOS delivers double-clicked files as `open-file`. Files
 * wait in an OpenQueue until the window's renderer has subscribed (its first request), then go
 * to it as the `openProject` event and into the OS's recent documents.
 *
 * The window keeps its size and position across launches (window-state.ts); the application menu
 * (menu.ts) sends its commands to the renderer as `appCommand` events; native file dialogs are the
 * contract's `dialog.*`, served here (dialogs.ts) after the gateway validated the request.
 */
import { app, BrowserWindow, dialog, ipcMain, Menu, protocol, screen, shell } from 'electron';
import path from 'node:path';
import type { AppCommandId } from '../../shared/contract/shell.js';
import { serveGateway } from '../supervisor/gateway.js';
import { HostSupervisor } from '../supervisor/supervisor.js';
import { dialogService, type DialogLike } from './dialogs.js';
import { ipcMainTransport } from './ipc-transport.js';
import { menuTemplate } from './menu.js';
import { runCliWithoutWindow } from './no-gui.js';
import { isNoGui, OpenQueue, projectFilesFromArgs, userArgs, type OpenVia } from './open-files.js';
import { appProtocolResponse } from './protocol.js';
import { bundledNodePath, unpackedOutDir } from './runtime-paths.js';
import { APP_ORIGIN, APP_SCHEME, isAllowedNavigation, isTrustedSender, secureWebPreferences } from './security.js';
import { initialBounds, loadWindowState, saveWindowState, windowStateFile, type WindowState } from './window-state.js';

// out/main/index.cjs -> out/ (bundled); main/app/index.ts -> <root>/out (tests).
const outDir = path.basename(__dirname) === 'main' && path.basename(path.dirname(__dirname)) === 'out' ? path.resolve(__dirname, '..') : path.resolve(__dirname, '../../out');
// Plain Node runs the host and the CLI: the packaged app ships one in resources/node (see electron-builder.yml).
const nodePath = app.isPackaged ? bundledNodePath(process.resourcesPath) : process.env.ARGONAUT_NODE ?? 'node';
const unpackedOut = unpackedOutDir(outDir);
const hostScript = path.join(unpackedOut, 'host', 'index.mjs');
const cliScript = path.join(unpackedOut, 'cli', 'index.mjs');

const args = userArgs(process.argv, app.isPackaged);

if (isNoGui(args)) {
  app.dock?.hide();
  void app.whenReady().then(async () => app.exit(await runCliWithoutWindow({ nodePath, cliScript, args })));
} else if (!app.requestSingleInstanceLock()) {
  // Another studio runs: it received our files through 'second-instance'.
  app.quit();
} else {
  startStudio();
}

function startStudio() {
  protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
  const supervisor = new HostSupervisor({ hostScript, nodePath });
  const opens = new OpenQueue();
  let mainWindow: BrowserWindow | undefined;
  /** Sends a menu command to the window's renderer (set once its renderer subscribed). */
  let sendCommand: ((command: AppCommandId) => void) | undefined;

  const focus = () => {
    if (!mainWindow || mainWindow.isDestroyed()) return;
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.focus();
  };
  for (const file of projectFilesFromArgs(args, process.cwd())) opens.push(file, 'argv');
  // macOS sends open-file before 'ready' for a launch by double-click: registered at once.
  app.on('open-file', (event, file) => {
    event.preventDefault();
    opens.push(path.resolve(file), 'open-file');
    focus();
  });
  app.on('second-instance', (_event, argv, workingDirectory) => {
    for (const file of projectFilesFromArgs(userArgs(argv, app.isPackaged), workingDirectory)) opens.push(file, 'second-instance');
    focus();
  });

  function createWindow(saved: WindowState | undefined) {
    const bounds = initialBounds(saved, screen.getAllDisplays().map((d) => d.workArea));
    const window = new BrowserWindow({
      ...bounds,
      minWidth: 960,
      minHeight: 600,
      title: 'Argonaut Studio',
      backgroundColor: '#15171c',
      show: false,
      webPreferences: secureWebPreferences(path.join(outDir, 'preload', 'index.cjs')),
    });
    mainWindow = window;
    const transport = ipcMainTransport(ipcMain, window.webContents, isTrustedSender);
    serveGateway(transport, supervisor, { caller: `window-${window.id}`, log: (line) => console.error(line), local: { dialog: dialogService(dialog as unknown as DialogLike, window) } });
    // The renderer subscribes to every event before its first call: deliver opens after that call.
    const offFirst = transport.onMessage(() => {
      offFirst();
      sendCommand = (command) => {
        try {
          transport.send({ kind: 'evt', name: 'appCommand', payload: { command } });
        } catch {
          // the window closed
        }
      };
      opens.attach((file: string, via: OpenVia) => {
        app.addRecentDocument(file);
        try {
          transport.send({ kind: 'evt', name: 'openProject', payload: { path: file, via } });
        } catch {
          // the window closed; the next window gets later opens
        }
      });
    });
    if (saved?.maximized) window.maximize();
    // Saved on close (not on every move): the normal bounds, so a maximized window restores right.
    window.on('close', () => {
      void saveWindowState(windowStateFile(app.getPath('userData')), window.getNormalBounds(), window.isMaximized()).catch((error: unknown) => console.error(`window state: ${String(error)}`));
    });
    window.once('closed', () => {
      if (mainWindow === window) {
        mainWindow = undefined;
        sendCommand = undefined;
      }
      opens.detach();
    });
    window.webContents.on('will-navigate', (event, url) => {
      if (!isAllowedNavigation(url)) event.preventDefault();
    });
    window.webContents.setWindowOpenHandler(({ url }) => {
      if (/^https:\/\//.test(url)) void shell.openExternal(url);
      return { action: 'deny' };
    });
    window.once('ready-to-show', () => window.show());
    void window.loadURL(`${APP_ORIGIN}/index.html`);
    return window;
  }

  app.whenReady().then(async () => {
    protocol.handle(APP_SCHEME, (request) => appProtocolResponse(path.join(outDir, 'renderer'), request.url));
    void supervisor.start().catch((error: unknown) => console.error(`engine host: ${String(error)}`));
    Menu.setApplicationMenu(Menu.buildFromTemplate(menuTemplate({ isMac: process.platform === 'darwin', dev: !app.isPackaged, send: (command) => sendCommand?.(command) })));
    const stateFile = windowStateFile(app.getPath('userData'));
    createWindow(await loadWindowState(stateFile));
    app.on('activate', () => {
      if (BrowserWindow.getAllWindows().length === 0) void loadWindowState(stateFile).then(createWindow);
    });
  });

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });

  app.on('before-quit', () => {
    void supervisor.stop();
  });
}
