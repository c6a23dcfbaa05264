import { describe, expect, it } from 'vitest';
import { menuTemplate } from '../../../main/app/menu.js';
import { APP_COMMANDS, type AppCommandId } from '../../../shared/contract/shell.js';

type MenuItemConstructorOptions = ReturnType<typeof menuTemplate>[number];

function items(template: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] {
  return template.flatMap((m) => (Array.isArray(m.submenu) ? m.submenu : []));
}

describe('application menu', () => {
  it('has every command of the contract table once, with its shortcut, and clicking sends it', () => {
    const sent: AppCommandId[] = [];
    const all = items(menuTemplate({ isMac: false, dev: false, send: (c) => sent.push(c) }));
    for (const command of APP_COMMANDS) {
      const found = all.filter((i) => i.id === command.id);
      expect(found, command.id).toHaveLength(1);
      expect(found[0].accelerator).toBe(command.key);
      (found[0].click as () => void)();
    }
    expect(sent).toEqual(APP_COMMANDS.map((c) => c.id));
  });

  it('gives no two commands the same shortcut', () => {
    const keys = APP_COMMANDS.map((c) => c.key);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('has the app menu on macOS only, and developer tools only in development', () => {
    const roles = (t: MenuItemConstructorOptions[]) => [...t.map((m) => m.role), ...items(t).map((i) => i.role)].filter(Boolean);
    expect(roles(menuTemplate({ isMac: true, dev: false, send: () => {} }))).toContain('appMenu');
    expect(roles(menuTemplate({ isMac: false, dev: false, send: () => {} }))).not.toContain('appMenu');
    expect(roles(menuTemplate({ isMac: false, dev: false, send: () => {} }))).not.toContain('toggleDevTools');
    expect(roles(menuTemplate({ isMac: false, dev: true, send: () => {} }))).toContain('toggleDevTools');
    expect(roles(menuTemplate({ isMac: false, dev: false, send: () => {} }))).toContain('quit');
  });
});

describe('the Edit menu', () => {
  const template = menuTemplate({ isMac: false, dev: false, send: () => {} });
  const editMenu = template.find((m) => m.label === 'Edit');
  const submenu = (editMenu?.submenu ?? []) as MenuItemConstructorOptions[];

  it('holds the edit commands of the contract table, with text-field roles kept for cut, copy and paste', () => {
    const ids = submenu.map((i) => i.id).filter(Boolean);
    expect(ids).toEqual(APP_COMMANDS.filter((c) => c.menu === 'edit').map((c) => c.id));
    expect(ids).toEqual(expect.arrayContaining(['edit-undo', 'edit-redo', 'edit-delete', 'edit-select-all', 'edit-select-none', 'edit-invert']));
    expect(submenu.map((i) => i.role).filter(Boolean)).toEqual(['cut', 'copy', 'paste']);
    expect(template.some((m) => m.role === 'editMenu')).toBe(false); // its undo / select-all would take the same keys
  });

  it('shows the edit shortcuts without registering them, so the keys reach text fields', () => {
    const undo = submenu.find((i) => i.id === 'edit-undo');
    expect(undo?.accelerator).toBe('CmdOrCtrl+Z');
    expect(submenu.filter((i) => i.id).every((i) => i.registerAccelerator === false)).toBe(true);
    const others = items(template).filter((i) => i.id && !String(i.id).startsWith('edit-'));
    expect(others.length).toBeGreaterThan(0);
    expect(others.every((i) => i.registerAccelerator === undefined)).toBe(true);
  });
});
