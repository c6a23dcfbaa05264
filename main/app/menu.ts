/**
 * The application menu, built from the contract's command table (shared/contract/shell.ts) so the
 * menu, its shortcuts and the renderer's browser-mode key handling never disagree. Clicking an
 * item sends the `appCommand` event to the focused window; the renderer decides what it does.
 * Pure: returns Electron's MenuItemConstructorOptions; index.ts builds the Menu.
 *
 * The Edit menu holds the Viewer's edit commands (undo, redo, delete, select all / none / invert)
 * where Electron's `editMenu` role had text undo and select-all on the same keys. Their shortcuts
 * are shown but not registered on Windows and Linux (`registerAccelerator: false`), so the keys
 * reach the page, where a text field keeps its own undo and the Viewer's key handling does the
 * rest; macOS always registers menu shortcuts, so there the renderer hands a command to the
 * focused text field itself (renderer/src/viewer/edit/edit-keys.ts). Cut, copy and paste keep
 * their roles: macOS text fields need them.
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
  const items = (menu: 'file' | 'view' | 'train' | 'edit'): MenuItemConstructorOptions[] =>
    APP_COMMANDS.filter((c) => c.menu === menu).map((c) => ({
      id: c.id,
      label: c.label,
      accelerator: c.key,
      ...(menu === 'edit' ? { registerAccelerator: false } : {}),
      click: () => send(c.id),
    }));
  const file = items('file');
  const edit = items('edit');
  return [
    ...(isMac ? [{ role: 'appMenu' as const }] : []),
    { label: 'File', submenu: [...file.slice(0, 3), { type: 'separator' }, ...file.slice(3), { type: 'separator' }, isMac ? { role: 'close' } : { role: 'quit' }] },
    {
      label: 'Edit',
      submenu: [...edit.slice(0, 2), { type: 'separator' }, { role: 'cut' }, { role: 'copy' }, { role: 'paste' }, { type: 'separator' }, ...edit.slice(2)],
    },
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
