import { describe, expect, it } from 'vitest';
import { APP_COMMANDS } from '../../../../shared/contract/shell.js';
import { EDIT_COMMANDS, EDIT_SHORTCUTS, editActionForKey, isTextField, matchesAccelerator, shortcutLabel, textFieldCommand } from '../../../../renderer/src/viewer/edit/edit-keys.js';

const press = (key: string, mods: Partial<{ shiftKey: boolean; ctrlKey: boolean; altKey: boolean; metaKey: boolean }> = {}) => ({ key, shiftKey: false, ctrlKey: false, altKey: false, metaKey: false, ...mods });

describe('edit shortcuts', () => {
  it('take the menu commands and their keys from the contract table, one action per edit command', () => {
    const editCommands = APP_COMMANDS.filter((c) => c.menu === 'edit');
    expect(editCommands.map((c) => c.id).sort()).toEqual(Object.keys(EDIT_COMMANDS).sort());
    for (const c of editCommands) expect(EDIT_SHORTCUTS.find((s) => s.key === c.key)?.action).toBe(EDIT_COMMANDS[c.id]);
  });

  it('give no two actions the same key', () => {
    const keys = EDIT_SHORTCUTS.map((s) => s.key);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('read CmdOrCtrl as Cmd on macOS and Ctrl elsewhere, and need the exact modifiers', () => {
    expect(editActionForKey(press('z', { ctrlKey: true }), false)).toBe('undo');
    expect(editActionForKey(press('z', { metaKey: true }), true)).toBe('undo');
    expect(editActionForKey(press('z', { metaKey: true }), false)).toBeUndefined();
    expect(editActionForKey(press('Z', { ctrlKey: true, shiftKey: true }), false)).toBe('redo');
    expect(editActionForKey(press('y', { ctrlKey: true }), false)).toBe('redo');
    expect(editActionForKey(press('Delete'), false)).toBe('delete');
    expect(editActionForKey(press('Backspace'), true)).toBe('delete');
    expect(editActionForKey(press('h'), false)).toBe('hide');
    expect(editActionForKey(press('H', { shiftKey: true }), false)).toBe('unhide-all');
    expect(editActionForKey(press('a', { ctrlKey: true }), false)).toBe('select-all');
    expect(editActionForKey(press('A', { ctrlKey: true, shiftKey: true }), false)).toBe('select-none');
    expect(editActionForKey(press('i', { ctrlKey: true }), false)).toBe('invert');
    expect(editActionForKey(press('w'), false)).toBeUndefined(); // fly mode's forward
    expect(matchesAccelerator('CmdOrCtrl+Shift+Z', press('z', { ctrlKey: true }), false)).toBe(false);
  });

  it('leave text fields their keys, and hand a menu command to a focused field as its own edit', () => {
    expect(isTextField({ tagName: 'INPUT', type: 'text' })).toBe(true);
    expect(isTextField({ tagName: 'INPUT', type: 'range' })).toBe(false);
    expect(isTextField({ tagName: 'TEXTAREA' })).toBe(true);
    expect(isTextField({ tagName: 'DIV', isContentEditable: true })).toBe(true);
    expect(isTextField({ tagName: 'CANVAS' })).toBe(false);
    expect(isTextField(null)).toBe(false);
    expect(textFieldCommand('edit-undo')).toBe('undo');
    expect(textFieldCommand('edit-select-all')).toBe('selectAll');
    expect(textFieldCommand('edit-invert')).toBeUndefined();
  });

  it('write shortcuts the way each platform does', () => {
    expect(shortcutLabel('CmdOrCtrl+Shift+Z', false)).toBe('Ctrl+Shift+Z');
    expect(shortcutLabel('CmdOrCtrl+Shift+Z', true)).toBe('⌘⇧Z');
  });
});
