import { z } from 'zod';
import { EXPORT_FORMATS } from '../project/manifest.js';

/**
 * The desktop shell's part of the contract: native file dialogs and the application menu. Electron
 * main serves `dialog.*` itself (the gateway validates the request like any other); the engine host
 * and browser mode answer `unavailable`, and the renderer shows path fields there instead (a
 * browser cannot pick a path on the machine that runs the engine).
 */
const path = z.string().min(1).max(4096).refine((s) => !s.includes('\0'), 'a path cannot contain NUL');

/** What a picker is for; main turns each into its title, filters and file-or-folder choice. */
export const DIALOG_PURPOSES = ['dataset', 'splat', 'project', 'folder', 'video', 'photos'] as const;

/** What a save dialog saves: a splat format, or a mesh (`mesh-ply`: a triangle-mesh PLY). */
export const SAVE_FORMATS = [...EXPORT_FORMATS, 'obj', 'mesh-ply'] as const; // glb: splats (KHR_gaussian_splatting) or a mesh

export const DialogOpenArgs = z.object({
  purpose: z.enum(DIALOG_PURPOSES),
  /** Where the dialog starts. */
  defaultPath: path.optional(),
}).strict();

export const DialogSaveArgs = z.object({
  format: z.enum(SAVE_FORMATS),
  defaultPath: path.optional(),
}).strict();

/** The chosen path, or null when the user cancelled. */
export const DialogResult = z.object({ path: z.string().nullable() });

/**
 * Commands of the application menu and their shortcuts: one table for Electron's menu (main/app)
 * and the renderer's own key handling in browser mode. `key` is Electron's accelerator syntax.
 */
export const APP_COMMANDS = [
  { id: 'new-from-dataset', label: 'New Project from Dataset…', key: 'CmdOrCtrl+N', menu: 'file' },
  { id: 'new-from-splat', label: 'New Project from Splat PLY…', key: 'CmdOrCtrl+Shift+N', menu: 'file' },
  { id: 'open-project', label: 'Open Project…', key: 'CmdOrCtrl+O', menu: 'file' },
  { id: 'export', label: 'Export…', key: 'CmdOrCtrl+E', menu: 'file' },
  { id: 'view-home', label: 'Home', key: 'CmdOrCtrl+1', menu: 'view' },
  { id: 'view-train', label: 'Train', key: 'CmdOrCtrl+2', menu: 'view' },
  { id: 'view-viewer', label: 'Viewer', key: 'CmdOrCtrl+3', menu: 'view' },
  { id: 'view-export', label: 'Export', key: 'CmdOrCtrl+4', menu: 'view' },
  { id: 'view-settings', label: 'Settings', key: 'CmdOrCtrl+5', menu: 'view' },
  { id: 'toggle-log', label: 'Toggle Log', key: 'CmdOrCtrl+J', menu: 'view' },
  { id: 'train-start', label: 'Start Training', key: 'CmdOrCtrl+Enter', menu: 'train' },
  { id: 'train-pause', label: 'Pause or Resume Training', key: 'CmdOrCtrl+P', menu: 'train' },
  { id: 'train-stop', label: 'Stop Training', key: 'CmdOrCtrl+.', menu: 'train' },
  // The Viewer's edits (docs/gui.md, "Edit mode"); in a text field the renderer hands each to the field instead.
  { id: 'edit-undo', label: 'Undo', key: 'CmdOrCtrl+Z', menu: 'edit' },
  { id: 'edit-redo', label: 'Redo', key: 'CmdOrCtrl+Shift+Z', menu: 'edit' },
  { id: 'edit-delete', label: 'Delete Selected Splats', key: 'Delete', menu: 'edit' },
  { id: 'edit-select-all', label: 'Select All', key: 'CmdOrCtrl+A', menu: 'edit' },
  { id: 'edit-select-none', label: 'Select None', key: 'CmdOrCtrl+Shift+A', menu: 'edit' },
  { id: 'edit-invert', label: 'Invert Selection', key: 'CmdOrCtrl+I', menu: 'edit' },
] as const;
export type AppCommandId = (typeof APP_COMMANDS)[number]['id'];
export const APP_COMMAND_IDS = APP_COMMANDS.map((c) => c.id) as [AppCommandId, ...AppCommandId[]];

/** Main asks the renderer to run a menu command (the renderer owns what each one does). */
export const AppCommandEvent = z.object({ command: z.enum(APP_COMMAND_IDS) });
