/**
 * The application menu, built from the contract's command table (shared/contract/shell.ts) so the
 * menu, its shortcuts and the renderer's browser-mode key handling never disagree. Clicking an
 * item sends the `appCommand` event to the focused window; the renderer decides what it does.
 * Pure: returns Electron's MenuItemConstructorOptions; index.ts builds the Menu.
 */
import type { MenuItemConstructorOptions } from 'electron';
import { APP_COMMANDS, type AppCommandId } from '../../shared/contract/shell.js';

export interface MenuOptions {
  isMac: boolean;
  /** Development build: reload and developer tools in the View menu. */
  dev: boolean;
  send: (command: AppCommandId) => void;
}

export function menuTemplate({ isMac, dev, send }: MenuOptions): MenuItemConstructorOptions[] {
  const items = (menu: 'file' | 'view' | 'train'): MenuItemConstructorOptions[] =>
    APP_COMMANDS.filter((c) => c.menu === menu).map((c) => ({ id: c.id, label: c.label, accelerator: c.key, click: () => send(c.id) }));
  const file = items('file');
  return [
    ...(isMac ? [{ role: 'appMenu' as const }] : []),
    { label: 'File', submenu: [...file.slice(0, 3), { type: 'separator' }, ...file.slice(3), { type: 'separator' }, isMac ? { role: 'close' } : { role: 'quit' }] },
    { role: 'editMenu' },
    {
      label: 'View',
      submenu: [
        ...items('view'),
        { type: 'separator' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        { role: 'togglefullscreen' },
        ...(dev ? [{ type: 'separator' as const }, { role: 'reload' as const }, { role: 'toggleDevTools' as const }] : []),
      ],
    },
    { label: 'Train', submenu: items('train') },
    { role: 'windowMenu' },
  ];
}
