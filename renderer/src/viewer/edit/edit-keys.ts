/**
 * The Viewer's edit shortcuts. The application menu's edit commands come from the contract's
 * command table (shared/contract/shell.ts, `menu: 'edit'`), so their keys are defined once; the
 * keys below them (hide, tools, Backspace) are the Viewer's own, as in SuperSplat.
 *
 * In Electron on Windows and Linux the menu shows these shortcuts without registering them
 * (main/app/menu.ts), so the key reaches the page and this table handles it; a key typed into a
 * text field is the field's (never an edit). A menu click, or a registered shortcut on macOS,
 * arrives as the `appCommand` event: with a text field focused, `textFieldCommand` says which
 * editing command the field should run instead (undo, select all, ...).
 */
import { APP_COMMANDS, type AppCommandId } from '../../../../shared/contract/shell.js';

export type EditAction =
  | 'undo'
  | 'redo'
  | 'delete'
  | 'select-all'
  | 'select-none'
  | 'invert'
  | 'hide'
  | 'unhide-all'
  | 'cancel'
  | 'tool-rect'
  | 'tool-lasso'
  | 'tool-brush'
  | 'tool-box'
  | 'tool-sphere';

/** Menu command -> edit action. */
export const EDIT_COMMANDS: Readonly<Partial<Record<AppCommandId, EditAction>>> = {
  'edit-undo': 'undo',
  'edit-redo': 'redo',
  'edit-delete': 'delete',
  'edit-select-all': 'select-all',
  'edit-select-none': 'select-none',
  'edit-invert': 'invert',
};

/** Keys of the Viewer alone (not in the menu: plain letters there would take them from text fields on macOS). */
const VIEWER_KEYS: readonly { key: string; action: EditAction; label: string }[] = [
  { key: 'Backspace', action: 'delete', label: 'Delete selected splats' },
  { key: 'CmdOrCtrl+Y', action: 'redo', label: 'Redo' },
  { key: 'H', action: 'hide', label: 'Hide selected splats' },
  { key: 'Shift+H', action: 'unhide-all', label: 'Unhide all' },
  { key: 'Escape', action: 'cancel', label: 'Cancel the shape being drawn' },
  { key: 'R', action: 'tool-rect', label: 'Rectangle tool' },
  { key: 'L', action: 'tool-lasso', label: 'Lasso tool' },
  { key: 'B', action: 'tool-brush', label: 'Brush tool' },
  { key: 'X', action: 'tool-box', label: 'Box tool' },
  { key: 'O', action: 'tool-sphere', label: 'Sphere tool' },
];

/** Every edit shortcut: the menu's (from the contract table) first, then the Viewer's own. */
export const EDIT_SHORTCUTS: readonly { key: string; action: EditAction; label: string }[] = [
  ...APP_COMMANDS.filter((c) => EDIT_COMMANDS[c.id] !== undefined).map((c) => ({ key: c.key, action: EDIT_COMMANDS[c.id]!, label: c.label })),
  ...VIEWER_KEYS,
];

export interface KeyLike {
  key: string;
  shiftKey: boolean;
  ctrlKey: boolean;
  altKey: boolean;
  metaKey: boolean;
}

/** Whether a key event matches an Electron accelerator ("CmdOrCtrl+Shift+Z"); CmdOrCtrl is Cmd on macOS, else Ctrl. */
export function matchesAccelerator(accelerator: string, event: KeyLike, isMac: boolean): boolean {
  const parts = accelerator.split('+');
  const key = parts.pop()!;
  const wants = { shift: false, ctrl: false, alt: false, meta: false };
  for (const modifier of parts) {
    if (modifier === 'CmdOrCtrl') wants[isMac ? 'meta' : 'ctrl'] = true;
    else if (modifier === 'Shift') wants.shift = true;
    else if (modifier === 'Alt') wants.alt = true;
    else if (modifier === 'Ctrl') wants.ctrl = true;
    else if (modifier === 'Cmd') wants.meta = true;
  }
  if (event.shiftKey !== wants.shift || event.ctrlKey !== wants.ctrl || event.altKey !== wants.alt || event.metaKey !== wants.meta) return false;
  return key.length === 1 ? event.key.toUpperCase() === key.toUpperCase() : event.key === key;
}

/** The edit action a key press means, if any. */
export function editActionForKey(event: KeyLike, isMac: boolean): EditAction | undefined {
  return EDIT_SHORTCUTS.find((s) => matchesAccelerator(s.key, event, isMac))?.action;
}

/** A text field (input, textarea, select, contenteditable) keeps its keys. Duck-typed so Node tests can call it. */
export function isTextField(target: unknown): boolean {
  const element = target as { tagName?: string; isContentEditable?: boolean; type?: string } | null;
  if (!element || typeof element.tagName !== 'string') return false;
  if (element.isContentEditable) return true;
  const tag = element.tagName.toUpperCase();
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  return tag === 'INPUT' && !['checkbox', 'radio', 'range', 'button', 'submit', 'color', 'file'].includes(element.type ?? 'text');
}

/** The document.execCommand a menu edit command means inside a focused text field (none: the field ignores it). */
export function textFieldCommand(command: AppCommandId): 'undo' | 'redo' | 'forwardDelete' | 'selectAll' | undefined {
  switch (command) {
    case 'edit-undo':
      return 'undo';
    case 'edit-redo':
      return 'redo';
    case 'edit-delete':
      return 'forwardDelete';
    case 'edit-select-all':
      return 'selectAll';
    default:
      return undefined;
  }
}

/** "CmdOrCtrl+Shift+Z" as the platform writes it ("Ctrl+Shift+Z", "⌘⇧Z"). */
export function shortcutLabel(accelerator: string, isMac: boolean): string {
  if (!isMac) return accelerator.replace('CmdOrCtrl', 'Ctrl');
  return accelerator.replace('CmdOrCtrl+', '⌘').replace('Shift+', '⇧').replace('Alt+', '⌥').replace('Delete', '⌦').replace('Backspace', '⌫');
}
