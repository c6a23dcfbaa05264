/**
 * Electron main: windows, protocol, IPC routing and engine-host supervision. The only code that
 * imports 'electron' (besides the preload). Compute runs in the engine host (plain Node), which
 * this process starts, watches and restarts.
 */
import { app, BrowserWindow, ipcMain, protocol, shell } from 'electron';
import path from 'node:path';
import { serveGateway } from '../supervisor/gateway.js';
import { HostSupervisor } from '../supervisor/supervisor.js';
import { ipcMainTransport } from './ipc-transport.js';
import { appProtocolResponse } from './protocol.js';
import { APP_ORIGIN, APP_SCHEME, isAllowedNavigation, isTrustedSender, secureWebPreferences } from './security.js';

// out/main/index.cjs -> out/ (bundled); main/app/index.ts -> <root>/out (tests).
const outDir = path.basename(__dirname) === 'main' && path.basename(path.dirname(__dirname)) === 'out' ? path.resolve(__dirname, '..') : path.resolve(__dirname, '../../out');
// Plain Node runs the host: the packaged app ships one in resources/node (see electron-builder.yml).
const nodePath = app.isPackaged ? path.join(process.resourcesPath, 'node', process.platform === 'win32' ? 'node.exe' : 'bin/node') : process.env.ARGONAUT_NODE ?? 'node';
const hostScript = path.join(outDir.replace('app.asar', 'app.asar.unpacked'), 'host', 'index.mjs');

protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);

const supervisor = new HostSupervisor({ hostScript, nodePath });

function createWindow() {
  const window = new BrowserWindow({
    width: 1440,
    height: 900,
    minWidth: 960,
    minHeight: 600,
    title: 'Argonaut Studio',
    backgroundColor: '#15171c',
    show: false,
    webPreferences: secureWebPreferences(path.join(outDir, 'preload', 'index.cjs')),
  });
  const transport = ipcMainTransport(ipcMain, window.webContents, isTrustedSender);
  serveGateway(transport, supervisor, { caller: `window-${window.id}`, log: (line) => console.error(line) });
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
  createWindow();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow();
  });
});

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});

app.on('before-quit', () => {
  void supervisor.stop();
});
